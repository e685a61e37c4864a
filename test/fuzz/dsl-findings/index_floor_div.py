# DSL fuzzer finding (session 26), fixed (issue 47; a regression test now): Triton spells `//` and `%` on index values with Triton's
# operators, which truncate; tessel's are floor division and its remainder (docs/language.md), so a
# negative index quotient is off by one under Triton: (0 - 3) // 2 gave -1 (KIR interpreter: -2),
# (0 - 3) % 2 gave -1 (1). Integer types were fixed (commit d193b0e); index was left because the
# same operators spell construction's address arithmetic in every kernel. The Triton provider now
# floors index quotients and remainders unless the operands are provably non-negative (pgpu IndexSign.h).
import tessel
import tessel.language as T


@tessel.kernel
def kernel(x: T.In[T.f32, ("M",)], y: T.Out[T.i32, ("M",)], z: T.Out[T.i32, ("M",)]):
    M = x.shape[0]
    for m in T.parallel(T.domain(0, M)):
        y[m] = T.cast((m - 3) // 2, T.i32)
        z[m] = T.cast((m - 3) % 2, T.i32)


SHAPES = {"M": 7}
