"""Hand edits of generated grouped-GEMM modules (bench/grouped_gemm.py gen DIR), to measure what a
spelling change would buy before building it in the compiler. Not tessel code: a probe.

    python3 edit_variants.py SRC_DIR OUT_DIR

For each generated binding module it writes:
  <name>__tmaAB.py   A as a box of the whole [M, K] view at (group start + tile row, k) with no row
                     mask (rows past the group's end feed only accumulator rows the store masks off;
                     rows past M read zero), B as a [1, TK, T2] box of the [G, K, N] view; C stays a
                     masked pointer store.
  <name>__tmaABC.py  as tmaAB, and C stored through a descriptor of the group's rows
                     [start, start + rows) made per group (TMA clips the rows past the group's end).
  <name>__tmaABflat.py  as tmaAB, with the tile loop a flattened tl.range (one software pipeline
                     over the tiles' K loops).
  <name>__tmaABbounds.py  as tmaAB, with each group's end a running maximum carried over the group
                     loop (one load of OFFS a group) instead of a maximum over the prefix OFFS[0:g+1].
  <name>__tmaABCboundsflat.py  all of the above.
The variable names are the generator's (same structure for every binding); an edit that does not
apply raises.
"""
import pathlib
import re
import sys


def tiles(src):
    t1 = int(re.search(r"\n\s+v110 = (\d+)\n", src).group(1))
    t2 = int(re.search(r"\n\s+v14 = (\d+)\n", src).group(1))
    tk = int(re.search(r"\n\s+v140 = (\d+)\n", src).group(1))
    return t1, t2, tk


def sub1(pattern, repl, src):
    out, n = re.subn(pattern, repl, src, count=1)
    if n != 1:
        raise ValueError(f"edit did not apply: {pattern}")
    return out


BOUNDS = re.compile(r"\n\s+# gemm_kernels\.py:39\n\s+v24 = 512\n.*?\n\s+v104 = tl\.cast\(v103, tl\.int32\)", re.S)


def edit(src, store_desc=False, flatten=False, bounds=False):
    t1, t2, tk = tiles(src)
    src = sub1(r"(\n    _extents, _device = \{\}, \[\]\n)", r"\1    _tma_allocator()\n", src)
    head = ("def _grouped_gemm_bf16_kernel(a, _extent_M, _extent_K, a_stride0, a_stride1, b, _extent_G, _extent_N, "
            "b_stride0, b_stride1, b_stride2, offs, offs_stride0, c, c_stride0, c_stride1, arg4):\n")
    src = sub1(re.escape(head), head +
               f"    _dA = tl.make_tensor_descriptor(a, shape=[_extent_M, _extent_K], strides=[a_stride0, 1], block_shape=[{t1}, {tk}])\n"
               f"    _dB = tl.make_tensor_descriptor(b, shape=[_extent_G, _extent_K, _extent_N], strides=[b_stride0, b_stride1, 1], block_shape=[1, {tk}, {t2}])\n",
               src)
    src = sub1(r"(\n\s+)v153 = tl\.load\(a \+ [^\n]*", r"\1v153 = _dA.load([v105 + v131, v142])", src)
    src = sub1(r"(\n\s+)v160 = tl\.load\(b \+ [^\n]*", r"\1pass", src)
    src = sub1(r"(\n\s+)v161 = tl\.permute\(v160, \(1, 0\)\)", rf"\1v161 = _dB.load([v21, v142, v135]).reshape({tk}, {t2})", src)
    if store_desc:
        src = sub1(r"(\n\s+)(v108 = tl\.maximum\(v107, 0\))",
                   rf"\1\2\1_dC = tl.make_tensor_descriptor(c + v105 * c_stride0, shape=[tl.maximum(v108, 1), _extent_N], "
                   rf"strides=[c_stride0, 1], block_shape=[{t1}, {t2}])", src)
        src = sub1(r"(\n\s+)tl\.store\(c \+ \(v166\)[^\n]*", r"\1_dC.store([v131, v135], v163)", src)
    if bounds:  # the group's end as a running maximum carried over the group loop, not a prefix re-read
        src = sub1(r"(\n\s+)v20 = 0\n", r"\1v20 = 0\1_end = tl.full([], 0, tl.int32)\n", src)
        src = sub1(BOUNDS, "\n            v61 = tl.cast(v0, tl.int32)\n            v63 = _end\n"
                   "            v104 = tl.minimum(tl.maximum(tl.maximum(_end, tl.load(offs + v21)), 0), v61)\n"
                   "            _end = v104", src)
    if flatten:
        src = sub1(r"for v119 in range\(v118, v114, v13\):", "for v119 in tl.range(v118, v114, v13, flatten=True):", src)
    return src


def main():
    src_dir, out_dir = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    out_dir.mkdir(parents=True, exist_ok=True)
    for path in sorted(src_dir.glob("*.py")):
        if "__" in path.stem:
            continue
        src = path.read_text()
        (out_dir / path.name).write_text(src)
        (out_dir / f"{path.stem}__tmaAB.py").write_text(edit(src))
        (out_dir / f"{path.stem}__tmaABC.py").write_text(edit(src, store_desc=True))
        (out_dir / f"{path.stem}__tmaABflat.py").write_text(edit(src, flatten=True))
        (out_dir / f"{path.stem}__tmaABbounds.py").write_text(edit(src, bounds=True))
        (out_dir / f"{path.stem}__tmaABCboundsflat.py").write_text(edit(src, store_desc=True, bounds=True, flatten=True))
    print("wrote", len(list(out_dir.glob("*.py"))), "modules in", out_dir)


if __name__ == "__main__":
    main()
