"""The hand edit measured by ab_edit.py: in each all-true key loop of a generated attention kernel,
the row max of the scaled scores becomes max(s) * c and the exponent's argument s * c - m (one FFMA).
Valid for c >= 0 only (an experiment, not a rewrite tessel makes). Usage: edit_scale_max.py IN.py OUT.py"""
import re
import sys


def edit(src, out):
    s = open(src).read()
    n = 0
    for m in re.finditer(r"\n( *)(v\d+) = scale \* tl\.full\(\[\], 1\.4426950216293335e\+00, tl\.float32\)\n"
                         r" *(v\d+) = tl\.zeros\(\[\d+, \d+\], tl\.float32\) \+ \2\n *(v\d+) = (v\d+) \* \3\n", s):
        S, A, B = m.group(2), m.group(4), m.group(5)
        r = re.search(rf"\n( *)(v\d+) = tl\.reduce\({A}, 1, (\w+)\)\n", s)
        sub = re.search(rf"(v\d+) = {A} - (v\d+)\n", s)
        if not r or not sub:
            continue
        s = s.replace(r.group(0), f"\n{r.group(1)}{r.group(2)} = tl.reduce({B}, 1, {r.group(3)}) * {S}\n", 1)
        s = s.replace(sub.group(0), f"{sub.group(1)} = {B} * {S} - {sub.group(2)}\n", 1)
        n += 1
    open(out, "w").write(s)
    return n


if __name__ == "__main__":
    print(edit(sys.argv[1], sys.argv[2]), "loops edited")
