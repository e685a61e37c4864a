// The drivers' dense-array check (NestingLimit.h): `array<T: ...>` with T neither an integer nor a
// float type is refused before MLIR parses it, with its location. MLIR's parser asks T for its bit
// width and segfaulted on `array<index: -1, 0>` (the in-process fuzzer, seed 14, session 26, mutating
// the `joint = array<i64: ...>` of a kir.gather; test/fuzz/known/5-dense-array-index.input). Must not
// fire: integer and float arrays, `array<` in a comment or a string.
// RUN: split-file %s %t
// RUN: not tessel-opt %t/bad.mlir 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not tessel compile %t/bad.mlir --emit=pgpu 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: tessel-opt %t/fine.mlir | FileCheck %s --check-prefix=FINE

// BAD: bad.mlir:3:33: error: a dense array attribute's element type must be an integer (i64, si8, ...) or a float type
// FINE: array<i64: -1, 0>
// FINE-SAME: array<f32: 1.500000e+00>

//--- bad.mlir
%c = arith.constant 1 : i32
// the attribute below crashed the parser
%d = arith.addi %c, %c {joint = array<index: -1, 0>} : i32

//--- fine.mlir
// array<index: 1> in a comment
%c = arith.constant 1 : i32
%d = arith.addi %c, %c {a = array<i64: -1, 0>, b = array<f32: 1.5>, s = "array<index: 2>"} : i32
