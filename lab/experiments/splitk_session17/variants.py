"""Hand edits of generated split-K modules (session 17): which part of the kernel keeps it behind cuBLAS?

    python3 variants.py DIR        (DIR: modules the compiler generated, `tessel compile ... -o DIR/NAME.py`)

For each module NAME.py (the compiler's atomic-partials form) writes beside it:
  NAME_nosum.py     the accumulator stored straight into C, no merge and no ticket (wrong results, a bound:
                    main loop and one store);
  NAME_hostdesc.py  the operands' tensor descriptors made on the host (cached per data pointer and shape)
                    and passed to the kernel, instead of each program making its own on the device;
  NAME_ws.py        the K loop as tl.range(..., warp_specialize=True) (Triton 3.6 on Hopper: may hang; run it
                    under a timeout).
"""
import pathlib
import re
import sys

KERNEL = "_splitk_gemm_bf16_kernel"


def epilogue(src):
    """(start, end, acc, rows, cols, mask) of the merge: from the atomic add of the partial to C's store."""
    add = re.search(r"\n( +)tl\.atomic_add\((arg\d+) \+ \((v\d+)\) \* \(_extent_N\) \+ \((v\d+)\), (v\d+), mask=(v\d+)", src)
    store = re.search(r"\n +tl\.store\(c \+ .*\n", src[add.end():])
    return add.start(), add.end() + store.end(), add.group(5), add.group(3), add.group(4), add.group(6), add.group(1)


def nosum(src):
    start, end, acc, rows, cols, mask, ind = epilogue(src)
    return (src[:start] + f"\n{ind}tl.store(c + ({rows}) * c_stride0 + ({cols}) * c_stride1, {acc}, mask={mask})\n"
            + src[end:])


def warp_specialized(src):
    return re.sub(r"for (v\d+) in range\(0, (v\d+), (v\d+)\):", r"for \1 in tl.range(0, \2, \3, warp_specialize=True):",
                  src, count=1)


def hostdesc(src):
    shapes = re.findall(r"(_desc\d) = tl\.make_tensor_descriptor\((\w+), .*block_shape=\[(\d+), (\d+)\]\)", src)
    for name, _, _, _ in shapes:
        src = re.sub(rf"{name} = tl\.make_tensor_descriptor\(.*\)", f"{name} = _h{name}", src)
    src = src.replace("USE_TMA: tl.constexpr):", "USE_TMA: tl.constexpr, " + ", ".join("_h" + n for n, *_ in shapes) + "):", 1)
    warps = re.search(r"num_warps=(\d+), num_stages=(\d+)", src)
    grid = re.search(r"_grid = \((.*), 1, 1\)\n", src).group(1)
    descs = ", ".join(f"TensorDescriptor({t}, list({t}.shape), list({t}.stride()), [{r}, {c}])" for _, t, r, c in shapes)
    src += f'''

from triton.tools.tensor_descriptor import TensorDescriptor  # noqa: E402
_HD = {{}}


def splitk_gemm_bf16(a, b, c):  # noqa: F811
    """Host-made descriptors, cached per (pointer, shape, stride) of the operands."""
    key = (a.data_ptr(), a.shape, a.stride(), b.data_ptr(), b.shape, b.stride())
    d = _HD.get(key)
    if d is None:
        d = _HD[key] = ({descs},)
    s = torch.cuda.current_stream().cuda_stream
    n = a.shape[0] * b.shape[1]
    _grid = ({grid}, 1, 1)
    {KERNEL}[_grid](a, a.shape[0], a.shape[1], a.stride(0), a.stride(1), b, b.shape[1], b.stride(0), b.stride(1),
                    c, c.stride(0), c.stride(1), _zeroed(n, torch.int32, a.device, s, 't'),
                    _zeroed(n, torch.float32, a.device, s, 'w'), True, *d, num_warps={warps.group(1)},
                    num_stages={warps.group(2)})
'''
    return src


def main():
    d = pathlib.Path(sys.argv[1])
    for path in sorted(d.glob("*.py")):
        if re.search(r"_(nosum|hostdesc|ws)$", path.stem):
            continue
        src = path.read_text()
        for tag, fn in (("nosum", nosum), ("hostdesc", hostdesc), ("ws", warp_specialized)):
            (d / f"{path.stem}_{tag}.py").write_text(fn(src))


if __name__ == "__main__":
    main()


def merge_variants(src):
    """Where the merge's time goes (hand edits of the atomic-partials epilogue):
      _red     the partial's atomic adds only (no ticket, C unwritten: wrong, a bound);
      _ticket  the adds and the ticket, the last arrival doing nothing (wrong, a bound);
      _first   ticket first: the first arrival stores its partial, the others add theirs once it is
               stored, the last waits for them and adds its own registers to what it reads (no zeroing
               pass, no adds of its own; correct)."""
    start, end, acc, rows, cols, mask, ind = epilogue(src)
    tick = re.search(r"_arrived\d+ = tl\.atomic_add\((arg\d+ \+ \(v\d+\) \* \(_extent_N\) \+ \(v\d+\)), 1", src[start:end])
    ws = re.search(r"tl\.atomic_add\((arg\d+) \+", src[start:end]).group(1)
    splits = re.search(r"if _arrived\d+ == \((v\d+)\) - 1:", src[start:end]).group(1)
    t0, w = tick.group(1), f"{ws} + ({rows}) * (_extent_N) + ({cols})"
    cptr = f"c + ({rows}) * c_stride0 + ({cols}) * c_stride1"
    i = ind
    red = f"\n{i}tl.atomic_add({w}, {acc}, mask={mask}, sem='relaxed')\n"
    ticket = red + (f"{i}tl.debug_barrier()\n{i}_t = tl.atomic_add({t0}, 1, sem='acq_rel', scope='gpu')\n"
                    f"{i}if _t == ({splits}) - 1:\n{i}    tl.atomic_xchg({t0}, 0, sem='relaxed', scope='gpu')\n")
    first = (f"\n{i}tl.debug_barrier()\n"
             f"{i}_t = tl.atomic_add({t0}, 1, sem='acq_rel', scope='gpu')\n"
             f"{i}if _t == 0:\n"
             f"{i}    tl.store({w}, {acc}, mask={mask})\n"
             f"{i}    tl.debug_barrier()\n"
             f"{i}    tl.atomic_add({t0} + 1, 1, sem='release', scope='gpu')\n"
             f"{i}elif _t < ({splits}) - 1:\n"
             f"{i}    while tl.atomic_add({t0} + 1, 0, sem='acquire', scope='gpu') < 1:\n"
             f"{i}        pass\n"
             f"{i}    tl.atomic_add({w}, {acc}, mask={mask}, sem='relaxed')\n"
             f"{i}    tl.debug_barrier()\n"
             f"{i}    tl.atomic_add({t0} + 1, 1, sem='release', scope='gpu')\n"
             f"{i}else:\n"
             f"{i}    while tl.atomic_add({t0} + 1, 0, sem='acquire', scope='gpu') < ({splits}) - 1:\n"
             f"{i}        pass\n"
             f"{i}    _s = tl.load({w}, mask={mask}, other=0.0) + {acc}\n"
             f"{i}    tl.store({cptr}, _s, mask={mask})\n"
             f"{i}    tl.atomic_xchg({t0}, 0, sem='relaxed', scope='gpu')\n"
             f"{i}    tl.atomic_xchg({t0} + 1, 0, sem='relaxed', scope='gpu')\n")
    return {"red": src[:start] + red + src[end:], "ticket": src[:start] + ticket + src[end:],
            "first": src[:start] + first + src[end:]}


def c_direct(src):
    """_cdirect: no merged-sum workspace. The first arrival at a tile's ticket stores its partial into C
    and raises the tile's flag; every later one waits for the flag (a volatile read, then one acquire),
    adds its partial into C with atomics and counts itself done; the last to count resets ticket, flag and
    count for the next launch. Nobody waits on a program that has not arrived (the first has), so it needs
    no co-residency; C must be f32 (the accumulator's type)."""
    start, end, acc, rows, cols, mask, ind = epilogue(src)
    tick = re.search(r"_arrived\d+ = tl\.atomic_add\((arg\d+ \+ \(v\d+\) \* \(_extent_N\) \+ \(v\d+\)), 1", src[start:end])
    splits = re.search(r"if _arrived\d+ == \((v\d+)\) - 1:", src[start:end]).group(1)
    t0, i = tick.group(1), ind
    cptr = f"c + ({rows}) * c_stride0 + ({cols}) * c_stride1"
    body = (f"\n{i}tl.debug_barrier()\n"
            f"{i}_t = tl.atomic_add({t0}, 1, sem='acq_rel', scope='gpu')\n"
            f"{i}if _t == 0:\n"
            f"{i}    tl.store({cptr}, {acc}, mask={mask})\n"
            f"{i}    tl.debug_barrier()\n"
            f"{i}    tl.atomic_xchg({t0} + 1, 1, sem='release', scope='gpu')\n"
            f"{i}else:\n"
            f"{i}    while tl.load({t0} + 1, volatile=True) == 0:\n"
            f"{i}        pass\n"
            f"{i}    tl.atomic_add({t0} + 1, 0, sem='acquire', scope='gpu')\n"
            f"{i}    tl.atomic_add({cptr}, {acc}, mask={mask}, sem='relaxed', scope='gpu')\n"
            f"{i}    tl.debug_barrier()\n"
            f"{i}    _d = tl.atomic_add({t0} + 2, 1, sem='acq_rel', scope='gpu')\n"
            f"{i}    if _d == ({splits}) - 2:\n"
            f"{i}        tl.atomic_xchg({t0}, 0, sem='relaxed', scope='gpu')\n"
            f"{i}        tl.atomic_xchg({t0} + 1, 0, sem='relaxed', scope='gpu')\n"
            f"{i}        tl.atomic_xchg({t0} + 2, 0, sem='relaxed', scope='gpu')\n")
    return src[:start] + body + src[end:]


def zero_first(src):
    """_zstart: C is zeroed at the start and every partial added into it. The program of split 0 counts
    its arrival at the start (n = count // SPLITS is the launch's number on this kept counter), zeroes C's
    tile and publishes n + 1 on the tile's flag (release); every other program counts itself at its end,
    waits until the flag reads its own launch's n + 1 (acquire: set long before, as split 0 started
    first) and adds its partial into C with atomics; split 0 adds its own at its end. No merged-sum
    workspace, no last arrival's pass, no reset (the counter and flag only grow: a probe, not wrap-safe)."""
    start, end, acc, rows, cols, mask, ind = epilogue(src)
    tick = re.search(r"_arrived\d+ = tl\.atomic_add\((arg\d+ \+ \(v\d+\) \* \(_extent_N\) \+ \(v\d+\)), 1", src[start:end])
    splits = re.search(r"if _arrived\d+ == \((v\d+)\) - 1:", src[start:end]).group(1)
    t0, i = tick.group(1), ind
    cptr = f"c + ({rows}) * c_stride0 + ({cols}) * c_stride1"
    split = re.search(r"\n +(v\d+) = _rest\d+ % " + splits + r"\n", src).group(1)
    zero_at = re.search(r"\n( +)v\d+ = v\d+ < v\d+\n +# gemm_kernels\.py:16\n", src)
    rv, cv = re.findall(r"(v\d+) = tl\.arange\(0, \d+\) \+ v\d+", src)[:2]
    rm, cm = re.findall(r"(v\d+) = v\d+ < v\d+", src)[:2]
    j = zero_at.group(1)
    head = (f"{j}if {split} == 0:\n"
            f"{j}    _a = tl.atomic_add({t0}, 1, sem='relaxed', scope='gpu')\n"
            f"{j}    tl.store(c + ({rv}[:, None]) * c_stride0 + ({cv}[None, :]) * c_stride1, "
            f"tl.zeros([{rv}.shape[0], {cv}.shape[0]], tl.float32), mask={rm}[:, None] & {cm}[None, :])\n"
            f"{j}    tl.debug_barrier()\n"
            f"{j}    tl.atomic_xchg({t0} + 1, _a // {splits} + 1, sem='release', scope='gpu')\n")
    tail = (f"\n{i}if {split} != 0:\n"
            f"{i}    _a = tl.atomic_add({t0}, 1, sem='relaxed', scope='gpu')\n"
            f"{i}    while tl.atomic_add({t0} + 1, 0, sem='acquire', scope='gpu') != _a // {splits} + 1:\n"
            f"{i}        pass\n"
            f"{i}tl.atomic_add({cptr}, {acc}, mask={mask}, sem='relaxed', scope='gpu')\n")
    out = src[:start] + tail + src[end:]
    k = out.index(zero_at.group(0)) + len(zero_at.group(0)) - len("# gemm_kernels.py:16\n") - len(j)
    return out[:k] + head + out[k:]
