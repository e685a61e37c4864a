"""Hand edits of generated split-K modules (session 16): where do the last ~7 us against cuBLAS go?

    python3 variants.py SRC_DIR OUT_DIR

For each generated module of bench/splitk_gemm.py named in MODULES, writes (names follow
bench/splitk_gemm.py's --before convention, KERNEL_sSPLITS_...):
  *_own     the last arrival starts its sum from its own accumulator (registers), reading SPLITS-1 tiles;
  *_strip   every program of a tile waits until all SPLITS partials are stored, then sums one row strip
            (TILE_1 / SPLITS rows) of the tile: the serial read is spread over the tile's programs.
            Safe here only because every work item runs in one round (programs >= items);
  *_atomic  every program adds its accumulator into C with f32 atomics (C zeroed by the wrapper first),
            no workspace sum (order of the adds not fixed: results differ in the last bits run to run);
  *_nosum   the partial store only (C left unwritten: the time of the main loop and the store, a bound).
"""
import pathlib
import re
import sys

MODULES = {  # stem -> (TILE_1, TILE_2, SPLITS)
    "splitk_gemm_bf16_s8": (128, 128, 8),
    "splitk_gemm_bf16_s16": (128, 128, 16),
    "splitk_gemm_bf16_s16_STAGES4_TILE_2256": (128, 256, 16),
    "splitk_gemm_bf16_s16_STAGES3_TILE_2256": (128, 256, 16),
}


def edit(src, tm, tn, splits, how):
    store = re.search(r"\n( +)tl\.store\((arg\d+) \+ \((v\d+)\) \* \(_extent_M\) \* \(_extent_N\) \+ \((v\d+)\) \* "
                      r"\(_extent_N\) \+ \((v\d+)\), (v\d+), mask=(v\d+)\)\n", src)
    ind, ws, splitv, rows, cols, acc, mask = store.groups()
    split = re.search(rf"{splitv} = tl\.zeros\(\[\d+, \d+\], tl\.int32\) \+ (v\d+)", src).group(1)
    tick = re.search(r"_arrived\d+ = tl\.atomic_add\((arg\d+ \+ \(v\d+\) \* \(_extent_N\) \+ \((v\d+)\))", src)
    ticket, col0 = tick.group(1), tick.group(2)
    row0 = re.search(rf"(v\d+) \* (v\d+)\n *{tick.group(0).split('(')[0]}", src)
    row0 = re.search(r"\+ \((v\d+)\) \* \(_extent_N\) \+ \(" + col0, ticket).group(1)
    nsplit = re.search(r"for v\d+ in range\(0, (v\d+), 1\):\n +v\d+ = tl\.zeros\(\[\d+, \d+\], tl\.int32\) \+ v\d+\n"
                       r" +v\d+ = tl\.load\(" + ws, src).group(1)
    head = src[:store.end()]
    end = src.index("\n\n\n_splitk_gemm_bf16_plans")
    tail = src[end:]
    i = ind
    if how == "own":
        body = src[store.end():end].split("\n")
        at = next(k for k, ln in enumerate(body) if re.match(r" +for v\d+ in range\(0, " + nsplit + r", 1\):", ln))
        depth = len(body[at]) - len(body[at].lstrip())
        loopvar = re.match(r" +for (v\d+)", body[at]).group(1)
        body[at - 1] = re.sub(r"= v\d+$", f"= {acc}", body[at - 1])  # the sum starts from the own tile
        k = at + 1
        while k < len(body) and len(body[k]) - len(body[k].lstrip()) > depth:
            body[k] = "    " + body[k]
            k += 1
        body.insert(at + 1, " " * (depth + 4) + f"if {loopvar} != {split}:")
        return head + "\n".join(body) + tail
    if how == "nosum":
        return head + tail
    if how == "atomic":
        head = src[:store.start()] + "\n"
        body = (f"{i}tl.atomic_add(c + ({rows}) * c_stride0 + ({cols}) * c_stride1, {acc}, mask={mask}, "
                f"sem='relaxed', scope='gpu')\n")
        tail = tail.replace("            _launch(_grid,", "            c.zero_()\n            _launch(_grid,")
        tail = tail.replace("    _compiled = _splitk_gemm_bf16_kernel[_grid](",
                            "    c.zero_()\n    _compiled = _splitk_gemm_bf16_kernel[_grid](")
        return head + body + tail
    assert how == "strip"
    h = tm // splits
    body = f"""{i}tl.debug_barrier()
{i}_arr = tl.atomic_add({ticket}, 1, sem='acq_rel', scope='gpu')
{i}while _arr < {nsplit}:
{i}    _arr = tl.atomic_add({ticket}, 0, sem='acquire', scope='gpu')
{i}_r = tl.arange(0, {h}) + {row0} + {split} * {h}
{i}_c = tl.arange(0, {tn}) + {col0}
{i}_m = (_r < _extent_M)[:, None] & (_c < _extent_N)[None, :]
{i}_acc = tl.zeros([{h}, {tn}], tl.float32)
{i}for _s in range(0, {nsplit}):
{i}    _acc += tl.load({ws} + _s * (_extent_M) * (_extent_N) + _r[:, None] * (_extent_N) + _c[None, :], mask=_m, other=0.0)
{i}tl.store(c + _r[:, None] * c_stride0 + _c[None, :] * c_stride1, _acc, mask=_m)
{i}_d = tl.atomic_add({ticket}, 1, sem='relaxed', scope='gpu')
{i}if _d == 2 * {nsplit} - 1:
{i}    tl.atomic_xchg({ticket}, 0, sem='relaxed', scope='gpu')"""
    return head + body + tail


def main():
    src_dir, out_dir = map(pathlib.Path, sys.argv[1:3])
    out_dir.mkdir(parents=True, exist_ok=True)
    for stem, (tm, tn, splits) in MODULES.items():
        src = (src_dir / (stem + ".py")).read_text()
        for how in ("own", "strip", "atomic", "nosum"):
            name = f"{stem}_{how}" if "_s" + str(splits) + "_" in stem + "_" else stem
            (out_dir / f"{stem}_{how}.py").write_text(edit(src, tm, tn, splits, how))
    print("wrote", len(list(out_dir.glob("*.py"))), "modules to", out_dir)


if __name__ == "__main__":
    main()
