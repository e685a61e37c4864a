import re, sys
def variant(src, names, kind):
    s, mt, ok, m, l, acc, V, okN, mN_out, l_out, acc_out, first, last = names
    lines = src.split("\n")
    i0 = next(i for i, t in enumerate(lines) if t.strip().startswith(first + " ="))
    i1 = next(i for i, t in enumerate(lines) if t.strip().startswith(last + " ="))
    ind = lines[i0][:len(lines[i0]) - len(lines[i0].lstrip())]
    vload = next(t.strip() for t in lines[i0:i1] if t.strip().startswith(V + " = tl.load"))
    okline = next(t.strip() for t in lines[i0:i1] if t.strip().startswith(okN + " ="))
    L2E = "1.4426950408889634"
    if kind == "fa2":
        ex = lambda x: f"tl.exp({x})"
    else:
        ex = lambda x: f"tl.math.exp2(({x}) * {L2E})"
    body = [f"{mN_out} = tl.where({ok}, tl.maximum({m}, {mt}), {mt})",
            f"_p = {ex(f'{s} - {mN_out}[:, None]')}",
            f"_lt = tl.sum(_p, 1)", vload, okline,
            f"_al = tl.where({ok}, {ex(f'{m} - {mN_out}')}, 0.0)",
            f"{l_out} = {l} * _al + _lt",
            f"{acc_out} = tl.dot(_p.to(tl.bfloat16), {V.split('=')[0].strip()}, {acc} * _al[:, None])"]
    return "\n".join(lines[:i0] + [ind + b for b in body] + lines[i1 + 1:])
full = open("../attn_0_base.py").read()
causal = open("../attn_1_base.py").read()
# full: s=v72 mt=v77 ok=v54 m=v55 l=v56 acc=v57 V=v86 okN=v90 -> v93 v102 v107 ; replace v78..v107
nf = ("v72", "v77", "v54", "v55", "v56", "v57", "v86", "v90", "v93", "v102", "v107", "v78", "v107")
nc = ("v97", "v102", "v79", "v80", "v81", "v82", "v111", "v115", "v118", "v127", "v132", "v103", "v132")
for kind in ("fa2", "fa2exp2"):
    open(f"full_{kind}.py", "w").write(variant(full, nf, kind))
    open(f"causal_{kind}.py", "w").write(variant(causal, nc, kind))
