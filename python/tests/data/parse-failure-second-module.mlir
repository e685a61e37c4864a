// Issue 14: the same across two top-level modules (the use in the first).
module {
  pgpu.program_space(%M) {
  }
}
module {
  %M = arith.constant 0 : index
^bb1:
  pgpu.bogus
}
