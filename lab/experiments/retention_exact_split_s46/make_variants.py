"""Writes corpus 27's Triton source at a few bindings, as the compiler makes it (`fma_*.py`) and hand-edited so
that each FMA-spelled f32 tl.dot (input_precision="ieee") is nine bf16 tensor-core products of the operands'
exact bf16 parts (`x9_*.py`: hi + mid + lo = x exactly, pgpu::splitBF16's rule on both operands; a non-finite
hi takes no part in the cross products, where inf * 0 would make a NaN that the IEEE product does not;
`x9u_*.py` leave that guard out, a ceiling only).
    PYTHONPATH=python python3 lab/experiments/retention_exact_split_s46/make_variants.py OUTDIR"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[3]
sys.path[:0] = [str(ROOT / "python"), str(ROOT / "bench" / "corpus")]
import _harness  # noqa: E402

HELPERS = '''
@triton.jit
def _split3(x):
    hi = x.to(tl.bfloat16)
    r = x - hi.to(tl.float32)
    r = tl.where(r == r, r, 0.0)  # inf or NaN: no remainder
    mid = r.to(tl.bfloat16)
    lo = (r - mid.to(tl.float32)).to(tl.bfloat16)
    return hi, mid, lo


@triton.jit
def _finite(h):
    return tl.where(h.to(tl.float32) - h.to(tl.float32) == 0.0, h, tl.zeros_like(h))


@triton.jit
def _dot9(a, b, acc):
    ah, am, al = _split3(a)
    bh, bm, bl = _split3(b)
    af, bf = _finite(ah), _finite(bh)
    acc = tl.dot(al, bl, acc)
    acc = tl.dot(al, bm, acc)
    acc = tl.dot(am, bl, acc)
    acc = tl.dot(am, bm, acc)
    acc = tl.dot(af, bl, acc)
    acc = tl.dot(al, bf, acc)
    acc = tl.dot(af, bm, acc)
    acc = tl.dot(am, bf, acc)
    return tl.dot(ah, bh, acc)

'''

# (name, binding): the default (16 x 16 FMA tiles, 4 warps) and larger tiles
BINDINGS = {
    "default": {},
    "t64x32w4": dict(TILE_2=64, TILE_4=32, WARPS=4, STAGES=2),
    "t128x32w8": dict(TILE_2=128, TILE_4=32, WARPS=8, STAGES=2),
    "t64x64w4": dict(TILE_2=64, TILE_4=64, WARPS=4, STAGES=2),
    "t128x64w8": dict(TILE_2=128, TILE_4=64, WARPS=8, STAGES=2),
}
BASE = {"TILE_2": 16, "TILE_3": 128, "TILE_4": 16, "TILE_K": 128, "GROUP_2": 8, "PERSIST": 1, "WARPS": 4,
        "STAGES": 4, "TMA": 1, "FLATTEN": 1}


def main(out):
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    mod = _harness.load("27_retention")
    for name, b in BINDINGS.items():
        src = mod.KERNEL.source("triton", {}, {**BASE, **b})
        (out / f"fma_{name}.py").write_text(src)
        x9 = re.sub(r'tl\.dot\(([^()]*), input_precision="ieee"\)', r"_dot9(\1)", src)
        x9 = x9.replace("@triton.jit\ndef _retention_kernel", HELPERS + "\n@triton.jit\ndef _retention_kernel", 1)
        (out / f"x9_{name}.py").write_text(x9)
        # The ceiling without the guard (a non-finite operand may give NaN where IEEE gives inf): not exact.
        (out / f"x9u_{name}.py").write_text(x9.replace("    af, bf = _finite(ah), _finite(bh)", "    af, bf = ah, bh"))
        print(out / f"x9_{name}.py")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/tmp/retention_variants")
