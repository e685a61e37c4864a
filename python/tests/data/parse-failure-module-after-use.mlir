// Issue 14 (test/fuzz/known): a forward reference at the top level (%M), bound to a definition in
// a later module's first block, then a parse error in the module's second block. MLIR's generated
// module parser freed the body with the use still linked (valgrind: invalid write in
// Operation::dropAllReferences); the drivers now refuse the module before parsing
// (ModulePlacement.h).
pgpu.program_space(%M) {
}
module {
  %M = arith.constant 0 : index
^bb1:
  pgpu.bogus
}
