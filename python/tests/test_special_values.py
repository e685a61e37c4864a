"""Special values through both interpreters (issue 14): random inputs are never NaN, ±inf, ties,
denormals or signed zeros, so these reach the KIR and pgpu interpreters here through
`tessel run --in`. For kernels whose semantics define the result of such values, the constructed
pgpu program must compute exactly what the KIR program computes (bit patterns; NaN equals NaN)."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples"))

F32 = np.float32
SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 1.17e-38, 3.4e38, -3.4e38, 1.0, 1.0,
                     -1.0, 2.5, 2.5], dtype=F32)


def special_matrix(rows, cols, seed, kinds):
    """Rows of special values: each row mixes `kinds` (nan, inf, ties, denormal, zero) with ordinary
    values, so every reduction and scan sees each class alone and combined."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, size=(rows, cols)).astype(F32)
    for r in range(rows):
        kind = kinds[r % len(kinds)]
        picks = rng.choice(cols, size=min(cols, 3), replace=False)
        if kind == "nan":
            x[r, picks[0]] = np.nan
        elif kind == "inf":
            x[r, picks] = [np.inf, -np.inf, np.inf][:len(picks)]
        elif kind == "-inf-only":
            x[r, :] = -np.inf
        elif kind == "ties":
            x[r, :] = 0.5
        elif kind == "denormal":
            x[r, picks] = [1e-45, -1e-45, 1e-40][:len(picks)]
        elif kind == "zeros":
            x[r, :] = np.where(np.arange(cols) % 2, 0.0, -0.0)
    return x


KINDS = ["nan", "inf", "-inf-only", "ties", "denormal", "zeros", "plain"]

# kernel -> (inputs builder, scalars, constexpr variants). Kernels whose result on such values the
# semantics define: max-like reductions and scans (NaN propagates, ties pick a side), sums, and
# pointwise arithmetic.
CASES = {
    "vector_add": (lambda s: {"x": SPECIALS, "y": np.roll(SPECIALS, s)}, {"scale": 2.0}, [{}]),
    "cummax": (lambda s: {"x": special_matrix(7, 9, s, KINDS)}, {}, [{}, {"REVERSE": True}]),
    "cumsum": (lambda s: {"x": special_matrix(7, 9, s, KINDS)}, {}, [{}]),
    "argmax": (lambda s: {"x": special_matrix(7, 9, s, KINDS)}, {}, [{}]),
    "softmax": (lambda s: {"x": special_matrix(7, 9, s, KINDS)}, {}, [{}]),
    "rmsnorm": (lambda s: {"x": special_matrix(7, 9, s, KINDS), "w": SPECIALS[:9]}, {"eps": 1e-5}, [{}]),
    "layernorm": (lambda s: {"x": special_matrix(7, 9, s, KINDS), "w": SPECIALS[:9], "bb": SPECIALS[3:12]},
                  {"eps": 1e-5}, [{}]),
}


def kernel(name):
    import importlib
    return getattr(importlib.import_module(name), name)


def run(tessel_bin, path, name, inputs, scalars, out, stage):
    args = [str(tessel_bin), "run", f"{path}:{name}", "--out", str(out), f"--stage={stage}"]
    for k, v in inputs.items():
        np.save(out.parent / f"{k}.npy", v)
        args += ["--in", f"{k}={out.parent / (k + '.npy')}"]
    for k, v in scalars.items():
        args += ["--scalar", f"{k}={v!r}"]
    r = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    return {p.name[:-4]: np.load(p) for p in sorted(out.glob("*.npy")) if not p.name.endswith(".in.npy")}


def same_bits(a, b):
    if a.dtype.kind == "f":
        nan = np.isnan(a)
        return np.array_equal(nan, np.isnan(b)) and np.array_equal(a[~nan].view(np.uint32 if a.itemsize == 4 else
                                                                             np.uint64),
                                                                   b[~nan].view(np.uint32 if b.itemsize == 4 else
                                                                                np.uint64))
    return np.array_equal(a, b)


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("seed", [0, 1])
def test_pgpu_matches_kir_on_special_values(name, seed, tessel_bin, tmp_path):
    build, scalars, variants = CASES[name]
    k = kernel(name)
    for i, cx in enumerate(variants):
        case = tmp_path / f"v{i}"
        case.mkdir()
        path = case / f"{name}.mlir"
        path.write_text(k.kir(cx))
        inputs = build(seed)
        want = run(tessel_bin, path, name, inputs, scalars, case / "kir", "kir")
        got = run(tessel_bin, path, name, inputs, scalars, case / "pgpu", "pgpu")
        assert want.keys() == got.keys()
        for out in want:
            w, g = want[out], got[out]
            bad = ~((w == g) | (np.isnan(w) & np.isnan(g))) if w.dtype.kind == "f" else w != g
            assert same_bits(w, g), (f"{name} {cx} output {out}: pgpu differs from KIR at "
                                     f"{np.argwhere(bad)[:5].tolist()}: kir {w[bad][:5]} pgpu {g[bad][:5]}")
