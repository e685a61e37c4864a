// The drivers' result-number check (NestingLimit.h): a use `%name#N` with N above 65536 is refused before
// MLIR parses it, with the use's location. MLIR's parser sizes the name's result slots to N first, so
// `%r#2147483648` aborted with "LLVM ERROR: out of memory" (the in-process fuzzer, seed 14, session 14;
// test/fuzz/known/4-huge-result-number.input). Must not fire: a number in a comment or a string, a
// result number within the limit (an ordinary invalid one is the parser's own located error).
// RUN: split-file %s %t
// RUN: not tessel-opt %t/huge.mlir 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: not tessel compile %t/huge.mlir --emit=pgpu 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: not tessel-opt %t/small.mlir 2>&1 | FileCheck %s --check-prefix=SMALL
// RUN: tessel-opt %t/fine.mlir | FileCheck %s --check-prefix=FINE

// HUGE: huge.mlir:3:21: error: this use names a result number above 65536; tessel refuses it before parsing
// SMALL: error: {{.*}}result number{{.*}}
// SMALL-NOT: refuses it before parsing
// FINE: arith.addi

//--- huge.mlir
%c = arith.constant 1 : i32
%d = arith.constant 2 : i32
%s = arith.addi %c, %d#2147483648 : i32
//--- small.mlir
%c = arith.constant 1 : i32
%d = arith.constant 2 : i32
%s = arith.addi %c, %d#7 : i32
//--- fine.mlir
// a comment naming %r#2147483648 is not a use
%c = arith.constant 1 : i32
%s = arith.addi %c, %c {note = "%r#2147483648"} : i32
