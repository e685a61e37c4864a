"""The steady loops of a generated module's Gluon kernel, compiled for sm_90 on this CPU machine (no GPU):
python3 ptx.py mods/TAG.py [B H G S D] (grouped-query attention modules, bf16). python/tests/gluon_compile.py
compiles the kernel down to PTX (mods/TAG.ptx); this prints, for each loop that issues wgmma, the count of
each instruction of interest in its body (wgmma, barriers, mbarrier waits and arrivals, the softmax's
arithmetic), e.g. to see what a change does to the consumer's steady loop before timing it."""
import collections
import json
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[3]
KEEP = ("wgmma", "bar", "mbarrier", "fma", "ex2", "max", "mul", "add", "cvt", "sub", "selp", "shfl", "div", "rcp")


def loop_counts(ptx):
    """(first line, last line, mnemonic counts) per loop body: a label a later branch jumps back to."""
    lines = ptx.splitlines()
    labels = {m.group(1): i for i, l in enumerate(lines) if (m := re.match(r"^(\$L__BB\w+):", l))}
    loops = []
    for i, l in enumerate(lines):
        m = re.search(r"bra(?:\.uni)?\s+(\$L__BB\w+);", l)
        if m and m.group(1) in labels and labels[m.group(1)] < i:
            body = lines[labels[m.group(1)]:i + 1]
            ops = (re.match(r"\s*(?:@!?%p\d+\s+)?([a-z]\w*(?:\.\w+)?)", x) for x in body)
            loops.append((labels[m.group(1)], i, collections.Counter(o.group(1) for o in ops if o)))
    return loops


if __name__ == "__main__":
    path = pathlib.Path(sys.argv[1])
    B, H, G, S, D = map(int, sys.argv[2:7]) if len(sys.argv) > 6 else (4, 32, 8, 4096, 128)
    shapes = {"views": {"Q": [B, H, S, D], "K": [B, G, S, D], "V": [B, G, S, D], "O": [B, H, S, D]},
              "scalars": {"scale": D ** -0.5}}
    ptx_path = path.with_suffix(".ptx")
    res = subprocess.run([sys.executable, str(ROOT / "python/tests/gluon_compile.py"), str(path), "gqa_attention",
                          json.dumps(shapes)], capture_output=True, text=True,
                         env={**__import__("os").environ, "GLUON_PTX": str(ptx_path)})
    print(res.stdout.strip() or res.stderr[-2000:])
    if ptx_path.exists():
        for lo, hi, c in loop_counts(ptx_path.read_text()):
            if c["wgmma.mma_async"]:
                print(f"loop lines {lo}-{hi}:", {k: v for k, v in sorted(c.items()) if k.split(".")[0] in KEEP})
