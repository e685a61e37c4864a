// COM: The pipeline is built for a provider (include/tessel/Target/Provider.h): a pass that forms a
// COM: program only some providers spell runs when the provider states the capability it needs, and
// COM: a provider's legalization in the pipeline (Triton's) is its last group, `<name>-legalize`.
// COM: Causal attention: pgpu-split-folds (workspace sized at launch) declares FOLD_SPLIT and
// COM: pgpu-pair-blocks (program counts) PAIR_BLOCKS for Triton, which states both; not for cuTile.
// RUN: tessel-opt %tessel_src/examples/kir/attention.mlir --tessel-pipeline="provider=triton stop-after=narrow-fold-ranges" | FileCheck %s --check-prefix=TRITON
// RUN: tessel-opt %tessel_src/examples/kir/attention.mlir --tessel-pipeline="provider=cutile stop-after=narrow-fold-ranges" | FileCheck %s --check-prefix=NEUTRAL
// COM: The default provider is Triton.
// RUN: tessel-opt %tessel_src/examples/kir/attention.mlir --tessel-pipeline="stop-after=realize-folds" > %t.default.mlir
// RUN: tessel-opt %tessel_src/examples/kir/attention.mlir --tessel-pipeline="provider=triton stop-after=realize-folds" > %t.triton.mlir
// RUN: cmp %t.default.mlir %t.triton.mlir
// COM: Linear attention: pgpu-chain-scans (an acquire/release hand-off) declares SCAN_CHAIN for
// COM: Triton only; a provider stating no capability gets the provider-neutral program, and one
// COM: that legalizes inside its emission adds no group after realize-folds.
// RUN: tessel-opt %tessel_src/examples/kir/linear_attention.mlir --tessel-pipeline="provider=triton stop-after=realize-folds" | FileCheck %s --check-prefix=CHAIN
// RUN: tessel-opt %tessel_src/examples/kir/linear_attention.mlir --tessel-pipeline="provider=ptx" > %t.ptx.mlir
// RUN: tessel-opt %tessel_src/examples/kir/linear_attention.mlir --tessel-pipeline="provider=amdgpu stop-after=realize-folds" > %t.amdgpu.mlir
// RUN: cmp %t.ptx.mlir %t.amdgpu.mlir
// RUN: FileCheck %s --check-prefix=NOCHAIN < %t.ptx.mlir
// COM: The same neutral program as `tessel compile --emit=pgpu` prints (no provider).
// RUN: tessel compile %tessel_src/examples/kir/linear_attention.mlir --emit=pgpu --target=ptx > %t.cli.mlir
// RUN: tessel-opt %t.cli.mlir > %t.cli.opt.mlir
// RUN: tessel-opt %t.ptx.mlir > %t.ptx.opt.mlir
// RUN: cmp %t.cli.opt.mlir %t.ptx.opt.mlir
// COM: Unknown providers and groups a provider does not have are errors that list what there is.
// RUN: not tessel-opt %tessel_src/examples/kir/softmax.mlir --tessel-pipeline=provider=nonesuch 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not tessel-opt %tessel_src/examples/kir/softmax.mlir --tessel-pipeline="provider=cutile stop-after=triton-legalize" 2>&1 | FileCheck %s --check-prefix=NOGROUP
// RUN: not tessel compile %tessel_src/examples/kir/softmax.mlir --target=nonesuch 2>&1 | FileCheck %s --check-prefix=CLI
// RUN: not tessel compile %tessel_src/examples/kir/softmax.mlir --target=triton --emit=llvm 2>&1 | FileCheck %s --check-prefix=STAGE

// TRITON-DAG: #pgpu.param<"FOLD_SPLIT"
// TRITON-DAG: #pgpu.param<"PAIR_BLOCKS"
// TRITON: pgpu.workspace_extent

// NEUTRAL: pgpu.kernel @attention
// NEUTRAL-NOT: FOLD_SPLIT
// NEUTRAL-NOT: PAIR_BLOCKS
// NEUTRAL-NOT: pgpu.workspace_extent

// CHAIN: #pgpu.param<"SCAN_CHAIN"
// CHAIN: pgpu.while

// NOCHAIN: pgpu.kernel @linear_attention
// NOCHAIN-NOT: SCAN_CHAIN
// NOCHAIN-NOT: pgpu.while

// UNKNOWN: tessel-pipeline: no provider 'nonesuch'; the providers are triton, cutile, ptx, amdgpu
// NOGROUP: tessel-pipeline: no pass group 'triton-legalize'; the groups are annotate-origins, construct, form-tiles, refine-mapping, form-blocking, stage-rows, online-normalize, narrow-predicates, narrow-fold-ranges, realize-folds{{$}}
// CLI: error: --target=nonesuch: no such provider; the providers are triton, cutile, ptx, amdgpu
// STAGE: error: --emit=llvm is a stage of --target=ptx and --target=amdgpu
