// Issue 14: the same with the module nested in a kernel (the use in the kernel's body).
pgpu.kernel @k(%a: !pgpu.view<f16, [M, K], in>) {
  pgpu.program_space(%M) {
  }
  builtin.module {
    %M = arith.constant 0 : index
  ^bb1:
    pgpu.bogus
  }
}
