"""The hand edit behind pgpu-dynamic-walk (session 15): the generated grouped GEMM module's static segment
walk (program p runs tiles p, p + P, ... of the global order) rewritten so each program takes the next tile
from a counter when it finishes one; the kernel's last arrival returns the counter to 0.
Usage: python3 dyn_edit.py GENERATED_DEFAULTS.py OUT.py  (the module of bench/grouped_gemm.py gen, before
pgpu-dynamic-walk existed)."""
import sys


def main():
    src = open(sys.argv[1]).read().split("\n")
    k0 = next(j for j, l in enumerate(src) if l.startswith("def _grouped_gemm_bf16_kernel"))
    out, took = [], False
    for j, l in enumerate(src):
        ind = l[:len(l) - len(l.lstrip())]
        if j == k0:
            l = l.replace("arg4, USE_TMA", "arg4, ctr, USE_TMA")
        if j > k0 and l.strip() == "v20 = 0" and not took:
            out += [l, ind + "_T = tl.atomic_add(ctr, 1, sem='relaxed', scope='gpu')"]
            took = True
            continue
        if l.strip() == "for v119 in range(v118, v114, v13):":
            out += [ind + "while _T < v20 + v114:", ind + "    v119 = _T - v20"]
            continue
        if l.strip().startswith("tl.store(c + (v172)"):
            out += [l, ind + "_T = tl.atomic_add(ctr, 1, sem='relaxed', scope='gpu')"]
            continue
        if l.strip() == "tl.atomic_xchg(arg4, 0, sem='relaxed', scope='gpu')":
            out += [l, l.replace("arg4", "ctr")]
            continue
        out.append(l)
    text = "\n".join(out)
    assert text.count("_T = tl.atomic_add") == 2 and "while _T < v20 + v114" in text
    open(sys.argv[2], "w").write(text)


if __name__ == "__main__":
    main()
