// COM: The pipeline is registered once (tessel-opt --tessel-pipeline) with a stop point after each
// COM: pass group; `tessel groups` lists them in order, and tests stop there instead of copying passes.
// RUN: tessel groups | FileCheck %s --check-prefix=GROUPS
// RUN: tessel-opt %tessel_src/examples/kir/softmax.mlir --tessel-pipeline=stop-after=annotate-origins | FileCheck %s --check-prefix=KIR
// RUN: tessel-opt %tessel_src/examples/kir/softmax.mlir --tessel-pipeline=stop-after=construct | FileCheck %s --check-prefix=CONSTRUCT
// RUN: tessel-opt %tessel_src/examples/kir/softmax.mlir --tessel-pipeline=stop-after=form-blocking | FileCheck %s --check-prefix=BLOCKING
// COM: The whole pipeline (no stop point) is what `tessel compile` legalizes for Triton.
// RUN: tessel-opt %tessel_src/examples/kir/softmax.mlir --tessel-pipeline > %t.opt.mlir
// RUN: tessel-opt %tessel_src/examples/kir/softmax.mlir --tessel-pipeline=stop-after=triton-legalize > %t.last.mlir
// RUN: cmp %t.opt.mlir %t.last.mlir
// RUN: not tessel-opt %tessel_src/examples/kir/softmax.mlir --tessel-pipeline=stop-after=nonesuch 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// GROUPS: annotate-origins
// GROUPS-NEXT: construct
// GROUPS-NEXT: form-tiles
// GROUPS-NEXT: refine-mapping
// GROUPS-NEXT: form-blocking
// GROUPS-NEXT: stage-rows
// GROUPS-NEXT: online-normalize
// GROUPS-NEXT: narrow-predicates
// GROUPS-NEXT: narrow-fold-ranges
// GROUPS-NEXT: realize-folds
// GROUPS-NEXT: triton-legalize

// KIR: kir.kernel @softmax
// KIR-NOT: pgpu.kernel

// CONSTRUCT: pgpu.kernel @softmax
// CONSTRUCT-NOT: #pgpu.param<"BLOCK"

// BLOCKING: #pgpu.param<"BLOCK"

// UNKNOWN: tessel-pipeline: no pass group 'nonesuch'; the groups are annotate-origins, construct, form-tiles, refine-mapping, form-blocking, stage-rows, online-normalize, narrow-predicates, narrow-fold-ranges, realize-folds, triton-legalize
