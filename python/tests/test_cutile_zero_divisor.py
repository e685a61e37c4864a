"""Integer `//` and `%` by zero in the cuTile provider: KIR gives 0 for both (docs/KIRDialect.md, the
interpreter); cuTile's operators leave it undefined on the GPU, so the serializer guards a divisor that may be
0 (lib/Target/Common/ZeroDivisor.cpp, as the Triton and PTX providers do; test/Target/CuTile/
serialize-zero-divisor.mlir shows the spelling and where it must not fire).

Differential, without a GPU: the generated `@ct.kernel` runs on NumPy through a small stand-in for the
`cuda.tile` functions it calls, one program instance at a time, where an integer `//` or `%` by 0 gives a
poison value (the GPU's undefined result); at N = 0, 1, a prime and a non-multiple of both the program's
span and its block (the full-block and the masked tail loops), with negative dividends and divisors, it
must compute what the KIR interpreter computes."""
import types

import numpy as np
import pytest

import tessel
import tessel.language as T

torch = pytest.importorskip("torch")

POISON = -123456789


@tessel.kernel
def zero_divisors(x: T.In[T.i32, ("N",)], d: T.In[T.i32, ("N",)], q: T.Out[T.i32, ("N",)],
                  r: T.Out[T.i32, ("N",)]):
    n = T.domain(0, x.shape[0])
    q[n] = x[n] // d[n]
    r[n] = x[n] % d[n]


class Tile(np.ndarray):
    """A tile: NumPy's floor division and modulo, poison where the divisor is 0 (undefined on the GPU)."""

    def _divide(self, a, b, op):
        a, b = np.asarray(a), np.asarray(b)
        with np.errstate(all="ignore"):
            out = np.where(b == 0, POISON, op(a, np.where(b == 0, 1, b)))
        return out.astype(np.result_type(a, b)).view(Tile)

    def __floordiv__(self, other):
        return self._divide(self, other, np.floor_divide)

    def __rfloordiv__(self, other):
        return self._divide(other, self, np.floor_divide)

    def __mod__(self, other):
        return self._divide(self, other, np.mod)

    def __rmod__(self, other):
        return self._divide(other, self, np.mod)


def tile(a, dtype=None):
    return np.asarray(a, dtype).view(Tile)


def cutile_on_numpy():
    """The `ct` functions the generated kernel calls, on NumPy (1-d accesses), and its launch."""
    state = types.SimpleNamespace(bid=0)

    def gather(array, index, mask=None, padding_value=0):
        (i,) = index
        mask = np.ones(np.shape(i), bool) if mask is None else np.asarray(mask)
        out = np.full(np.shape(i), np.asarray(padding_value), array.dtype)
        out[mask] = array[np.asarray(i)[mask]]
        return tile(out)

    def scatter(array, index, value, mask=None):
        (i,) = index
        mask = np.ones(np.shape(i), bool) if mask is None else np.asarray(mask)
        array[np.asarray(i)[mask]] = np.broadcast_to(np.asarray(value), np.shape(i))[mask]

    def load(array, index, shape):
        (b,), (s,) = index, shape
        return tile(array[int(b) * s:(int(b) + 1) * s])

    def store(array, index, tile):
        (b,) = index
        array[int(b) * len(tile):(int(b) + 1) * len(tile)] = tile

    def launch(stream, grid, kernel, args):
        arrays = [a.numpy() for a in args]
        for b in range(grid[0]):
            state.bid = b
            kernel(*arrays)

    return types.SimpleNamespace(
        kernel=lambda f: f, launch=launch, int32=np.int32, bool_=np.bool_,
        astype=lambda x, t: tile(x, t), cdiv=lambda a, b: -(-a // b), bid=lambda axis: state.bid,
        maximum=lambda a, b, **_: tile(np.maximum(a, b)), minimum=lambda a, b, **_: tile(np.minimum(a, b)),
        arange=lambda n, dtype: tile(np.arange(n, dtype=dtype)), full=lambda s, v, t: tile(np.full(s, v, t)),
        where=lambda c, a, b: tile(np.where(c, a, b)), gather=gather, scatter=scatter, load=load, store=store)


def test_the_stand_in_poisons_a_zero_divisor():
    """The differential below can fail: an unguarded `//` or `%` by 0 gives the poison value."""
    x, d = tile([7, -7, 5], np.int32), tile([2, 0, -3], np.int32)
    assert (x // d).tolist() == [3, POISON, -2] and (x % d).tolist() == [1, POISON, -1]


@pytest.mark.parametrize("N", [0, 1, 7, 2053])
def test_cutile_division_by_zero_matches_the_interpreter(N):
    source = zero_divisors.source(target="cutile")
    assert "== ct.full((), 0, ct.int32)" in source  # the guard is spelled (the lit test shows where)
    names = {"ct": cutile_on_numpy()}
    exec(compile(source.replace("import cuda.tile as ct\n", ""), "zero_divisors_cutile.py", "exec"), names)
    names.update(_check_view=lambda *a, **k: None, _check_apart=lambda *a: None,
                 torch=types.SimpleNamespace(int32=torch.int32,
                                             cuda=types.SimpleNamespace(current_stream=lambda device=None: None)))
    rng = np.random.default_rng(N)
    inputs = {"x": rng.integers(-50, 51, N).astype(np.int32), "d": rng.integers(-3, 4, N).astype(np.int32)}
    if N:
        inputs["d"][0] = 0  # at least one zero divisor, in the first block
    want = zero_divisors.run_interp({"N": N}, inputs=inputs)
    q, r = torch.full((N,), 7, dtype=torch.int32), torch.full((N,), 7, dtype=torch.int32)
    names["zero_divisors"](torch.from_numpy(inputs["x"]), torch.from_numpy(inputs["d"]), q, r)
    np.testing.assert_array_equal(q.numpy(), want["q"], err_msg="q = x // d")
    np.testing.assert_array_equal(r.numpy(), want["r"], err_msg="r = x % d")
    assert (want["q"][inputs["d"] == 0] == 0).all() and (want["r"][inputs["d"] == 0] == 0).all()
