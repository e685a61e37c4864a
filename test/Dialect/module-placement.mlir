// The drivers' module placement check (ModulePlacement.h, issue 14): a `module` that follows an
// SSA name, another module, or sits in brackets is refused before MLIR parses it. Each such text,
// with a parse error after the module's first block, made MLIR's parser leave a use bound to a
// freed definition (heap corruption; test/fuzz/known). The must-not-fire cases parse as usual.
// RUN: split-file %s %t
// RUN: not tessel-opt %t/use-before.mlir 2>&1 | FileCheck %s --check-prefix=BEFORE
// RUN: not tessel-opt %t/nested.mlir 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: not tessel-opt %t/second.mlir 2>&1 | FileCheck %s --check-prefix=SECOND
// RUN: not tessel-opt --split-input-file %t/split.mlir 2>&1 | FileCheck %s --check-prefix=SPLIT
// RUN: not tessel compile %t/use-before.mlir --emit=kir 2>&1 | FileCheck %s --check-prefix=BEFORE
// RUN: tessel-opt %t/fine.mlir | FileCheck %s --check-prefix=FINE
// RUN: tessel-opt --split-input-file %t/fine-split.mlir | FileCheck %s --check-prefix=FINE-SPLIT

//--- use-before.mlir
pgpu.program_space(%M) {
}
module {
  %M = arith.constant 0 : index
^bb1:
  pgpu.bogus
}
// BEFORE: use-before.mlir:3:1: error: a 'module' must be the input's only top-level module and come before every SSA value
// BEFORE-NOT: pgpu.bogus' is unknown

//--- nested.mlir
kir.kernel @k(%x: !kir.view<f32, [N], in>) {
  builtin.module {
  }
  kir.return
}
// NESTED: nested.mlir:2:3: error: a 'module' must be the input's only

//--- second.mlir
module {
}
module attributes {pgpu.target = #pgpu.target<arch = "sm_90">} {
}
// SECOND: second.mlir:3:1: error: a 'module' must be the input's only

//--- split.mlir
module {
}
// -----
kir.kernel @k(%x: !kir.view<f32, [N], in>) {
  kir.return
}
module {
}
// SPLIT: split.mlir:7:1: error: a 'module' must be the input's only

//--- fine.mlir
// A module first, with names after it; `module` in a comment, a string, a dictionary key or an SSA
// name is not the op; the generic form parses safely and is not checked.
#t = #pgpu.target<arch = "sm_90">
module attributes {pgpu.target = #t, tessel.note = "module {", tessel.x = {module = 1 : i64}} {
  kir.kernel @module(%module: !kir.view<f32, [N], in>) {
    kir.return
  }
}
// FINE: kir.kernel @module(%module
"builtin.module"() ({
^bb0:
}) : () -> ()

//--- fine-split.mlir
module {
  kir.kernel @a(%x: !kir.view<f32, [N], in>) {
    kir.return
  }
}
// -----
module {
  kir.kernel @b(%x: !kir.view<f32, [N], in>) {
    kir.return
  }
}
// FINE-SPLIT: kir.kernel @a
// FINE-SPLIT: kir.kernel @b
