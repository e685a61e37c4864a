"""Hand edit of generated split-K modules (session 15): the ticketed sum of the splits' partials runs
per row strip of the output tile instead of per tile, so the sum is spread over the tile's programs.

Today the last of a tile's SPLITS programs to arrive reads all SPLITS partial tiles alone: at 128x256
and SPLITS 16 that is 2 MiB through one SM (128x128 at SPLITS 8: 512 KiB), while the other programs
have finished. Edited: each program, after storing its partial, takes R tickets in turn, one per strip
of TILE_1 / R rows, starting at strip (split mod R); the last arrival at a strip sums that strip's
partials and stores it (a strip wholly past M has no ticket). Programs that arrive together are each last for about R / SPLITS strips, so
the serial read per program drops by up to R. A program that arrives after all the others sums every
strip (as today). Tickets: a strip counts at the element of its first row and the tile's first
column in the M x N ticket buffer (distinct per tile and strip), reset to 0 by its last arrival as
before.

Usage: python3 strips.py GENDIR OUTDIR  (GENDIR from `python3 bench/splitk_gemm.py gen GENDIR`); the
edited modules are named KERNEL_sSPLITS_stripsR_..., so `bench/splitk_gemm.py time GENDIR --before
OUTDIR` times them beside the compiler's (every module is checked against an f64 product first, at the
bench case and at 383x257x10007)."""
import pathlib
import re
import sys

EDITS = [  # (module stem in GENDIR, strips)
    ("splitk_gemm_bf16_s8", 4),
    ("splitk_gemm_bf16_s8", 8),
    ("splitk_gemm_bf16_s16_STAGES4_TILE_2256", 4),
    ("splitk_gemm_bf16_s16_STAGES4_TILE_2256", 8),
    ("splitk_gemm_bf16_s16_STAGES4_TILE_2256", 16),
    ("splitk_gemm_bf16_s8_STAGES4_TILE_2256", 8),
    ("splitk_gemm_bf16_s8_STAGES6", 4),
]


def strips(src, r):
    params = dict(re.findall(r"'(TILE_1|TILE_2)': \(\[[^\]]*\], (\d+)\)", src))
    t1, t2 = int(params["TILE_1"]), int(params["TILE_2"])
    assert t1 % r == 0, (t1, r)
    rows = t1 // r
    # The partial's store names the split index; the ticket its tile's corner; the sum ends at C's store.
    split = re.search(r"v\d+ = tl\.zeros\(\[%d, %d\], tl\.int32\) \+ (v\d+)\n *v\d+ = tl\.broadcast_to" % (t1, t2),
                      src).group(1)
    pat = re.compile(
        r"( *)(_arrived\d+) = tl\.atomic_add\((arg\d+) \+ \((v\d+)\) \* \(_extent_N\) \+ \((v\d+)\), 1, "
        r"sem='acq_rel', scope='gpu'\)\n *if \2 == \((v\d+)\) - 1:\n(?:.*\n)*? *(?:if USE_TMA:\n.*\n *else:\n *)?"
        r"tl\.store\(c \+ .*\n", re.M)
    m = pat.search(src)
    assert m, "no ticketed sum found"
    ind, _, tickets, row0, col0, splits = m.groups()
    work = re.search(r"tl\.store\((arg\d+) \+ \(v\d+\) \* \(_extent_M\) \* \(_extent_N\)", src).group(1)
    i = ind
    body = "\n".join([
        f"{i}# hand edit (lab/experiments/splitk_session15/strips.py): the sum runs per strip of {rows} rows",
        f"{i}for _j in range(0, {r}):",
        f"{i}    _strip = ({split} + _j) % {r}",
        f"{i}    _top = {row0} + _strip * {rows}",
        f"{i}    if _top < _extent_M:",
        f"{i}        _arrived = tl.atomic_add({tickets} + _top * (_extent_N) + ({col0}), 1, sem='acq_rel', scope='gpu')",
        f"{i}        if _arrived == ({splits}) - 1:",
        f"{i}            tl.atomic_xchg({tickets} + _top * (_extent_N) + ({col0}), 0, sem='relaxed', scope='gpu')",
        f"{i}            _r = tl.arange(0, {rows}) + _top",
        f"{i}            _c = tl.arange(0, {t2}) + {col0}",
        f"{i}            _rr = tl.broadcast_to(_r[:, None], [{rows}, {t2}])",
        f"{i}            _cc = tl.broadcast_to(_c[None, :], [{rows}, {t2}])",
        f"{i}            _ok = (_rr < _extent_M) & (_cc < _extent_N)",
        f"{i}            _sum = tl.zeros([{rows}, {t2}], tl.float32)",
        f"{i}            for _s in range(0, {splits}, 1):",
        f"{i}                _sum += tl.load({work} + _s * (_extent_M) * (_extent_N) + _rr * (_extent_N) + _cc, mask=_ok, other=0.0)",
        f"{i}            tl.store(c + _rr * c_stride0 + _cc * c_stride1, _sum, mask=_ok)",
        ""])
    src = src[:m.start()] + body + src[m.end():]
    # C's descriptor, if it had one, is no longer used: not made on the device either.
    desc = re.search(r" *(_desc\d+) = tl\.make_tensor_descriptor\(c, .*\n", src)
    if desc and src.count(desc.group(1)) == 1:
        src = src.replace(desc.group(0), "")
    return src


def main():
    gen, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    for stem, r in EDITS:
        src = (gen / (stem + ".py")).read_text()
        kernel, splits, rest = re.match(r"(.+?)_s(\d+)(.*)", stem).groups()
        (out / f"{kernel}_s{splits}_strips{r}{rest}.py").write_text(strips(src, r))
    print(f"wrote {len(EDITS)} modules in {out}")


if __name__ == "__main__":
    main()
