"""Session 11 variants of tessel's generated attention kernels (CPU side), each a hand edit testing one
hypothesis before a pass is written for it (none of these edits is a compiler feature). Writes NAME.py
and manifest.json here; time_variants.py (the H200) checks and times them with the peers.
  sN      FOLD_SPLIT=N as generated (pgpu-split-folds on the causal fold: segments of [0, T), each then
          narrowed to the keys its query block sees).
  slow    the program id's lane-block (query block) coordinate decoded last (slowest) instead of after
          the segment: all heads' heavy query blocks start first (the walk is already last-block-first).
  nar     the segments cut the query block's visible key range [0, min(T, q_end)) instead of [0, T).
  pair    each program runs query blocks j and NQB-1-j of its (b, h) in turn (the grid halves), session 9's
          edit adapted to the segment-first program id (run 2).
  fma     bias kernel: the score stays in natural units (qk*scale + bias: one FMA), the running maximum
          too, and each exponential is exp2(s*log2e - m*log2e) (one FMA per score) instead of scaling
          the scale and the bias by log2(e) (a multiplication, an FMA and a subtraction per score).
"""
import json, re, sys, pathlib
sys.path[:0] = ["python", "bench"]
import attention_kernels as AK
import tessel.language as T
HERE = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent)
HERE.mkdir(parents=True, exist_ok=True)
L2E = "1.4426950216293335e+00"


def cfg(bs, bt, w, st, bd=128, split=1):
    return dict(BLOCK_S=bs, BLOCK_T=bt, WARPS=w, STAGES=st, BLOCK_D=bd, FOLD_SPLIT=split)


def kernel_body(src):
    lines = src.split("\n")
    k = next(i for i, l in enumerate(lines) if l.startswith("def _") and l.split("(")[0].endswith("_kernel"))
    return lines, k


def slow(src):
    """Decode the query-block coordinate last: pid = ((qb * B + b) * H + h) * SPLITS + seg."""
    lines, k = kernel_body(src)
    d = next(i for i in range(k, len(lines)) if re.match(r"^    _rest\d+ = v\d+$", lines[i]))
    block = lines[d + 1:d + 9]
    pat = [re.match(r"^    (v\d+) = (_rest\d+) % (v\d+)$", block[j]) for j in range(0, 8, 2)]
    assert all(pat), block
    seg, qb, head, batch = [(m.group(1), m.group(3)) for m in pat]
    rest = pat[0].group(2)
    new = []
    for var, ext in (seg, head, batch, qb):
        new += [f"    {var} = {rest} % {ext}", f"    {rest} = {rest} // {ext}"]
    lines[d + 1:d + 9] = new
    return "\n".join(lines)


def pair(src):
    """Program j of a (b, h) runs query blocks j and NQB - 1 - j (one if they coincide)."""
    lines, k = kernel_body(src)
    g = next(i for i, l in enumerate(lines) if l.startswith("    _grid = ("))
    m = re.search(r"\(-\(\(-\(max\(\(-\(\(-\(Q\.shape\[2\]\)\) // \(1\)\)\), 0\)\)\) // \((\d+)\)\)\)", lines[g])
    assert m, lines[g]
    lines[g] = lines[g].replace(m.group(0), f"((({m.group(0)}) + 1) // 2)")
    d = next(i for i in range(k, len(lines)) if re.match(r"^    _rest\d+ = v\d+$", lines[i]))
    qb, rest, n = re.match(r"^    (v\d+) = (_rest\d+) % (v\d+)$", lines[d + 3]).groups()
    assert lines[d + 4] == f"    {rest} = {rest} // {n}"
    lines[d + 3] = f"    _vh = ({n} + 1) // 2\n    _j = {rest} % _vh"
    lines[d + 4] = f"    {rest} = {rest} // _vh"
    start = d + 9
    end = next(i for i in range(start, len(lines)) if lines[i] and not lines[i].startswith(" "))
    while not lines[end - 1].strip():
        end -= 1
    body = ["        " + l if l.strip() else l for l in lines[start:end]]
    head = ["    for _k in range(0, 2):",
            f"        {qb} = _j + _k * ({n} - 1 - 2 * _j)",
            f"        if (_k == 0) | ({qb} != _j):"]
    return "\n".join(lines[:start] + head + body + lines[end:])


def nar(src, bs, bt):
    """The segments' chunk from the query block's visible tiles instead of all of [0, T)."""
    lines, k = kernel_body(src)
    base = next(re.match(r"^\s+v\d+ = tl\.arange\(0, \d+\) \+ (v\d+)$", l).group(1) for l in lines[k:]
                if re.match(r"^\s+v\d+ = tl\.arange\(0, \d+\) \+ (v\d+)$", l))
    n = 0
    for i in range(k, len(lines)):
        m = re.match(r"^(\s+)(v\d+) = tl\.cdiv\((v\d+), v1\)$", lines[i])
        if m:
            ind, var, tiles = m.groups()
            ext_T = re.search(r"v\d+ = tl\.maximum\((v\d+), 0\)\n\s+v\d+ = tl\.cdiv\(v\d+, v\d+\)\n\s+v\d+ = \d+\n\s+v\d+ = tl\.minimum\(v\d+, " + tiles, src)
            lines[i] = f"{ind}{var} = tl.cdiv(tl.cdiv(tl.minimum(_extent_T, {base} + {bs}), {bt}), v1)"
            n += 1
    assert n, "no segment chunk"
    return "\n".join(lines)


def fma(src):
    """Natural-unit scores and maxima; log2(e) applied inside each exponential's argument."""
    lines, k = kernel_body(src)
    defs = {}
    for i in range(k, len(lines)):
        m = re.match(r"^\s+(v\d+) = (.*)$", lines[i])
        if m:
            defs[m.group(1)] = (i, m.group(2))
    n = 0
    for i in range(k, len(lines)):
        l = lines[i]
        l = l.replace(f"scale * tl.full([], {L2E}, tl.float32)", "scale")
        if re.search(rf"tl\.zeros\(\[\d+, \d+\], tl\.float32\) \+ tl\.full\(\[\], {re.escape(L2E)}, tl\.float32\)$", l):
            l = re.sub(rf"tl\.full\(\[\], {re.escape(L2E)}, tl\.float32\)$", "tl.full([], 1.0, tl.float32)", l)
        lines[i] = l
    for i in range(k, len(lines)):
        m = re.match(r"^(\s+)(v\d+) = tl\.exp2\((v\d+)\)$", lines[i])
        if not m:
            continue
        ind, out, arg = m.groups()
        j, rhs = defs[arg]
        sub = re.match(r"^(v\d+) - (v\d+)$", rhs)
        if not sub:
            continue
        a, b = sub.groups()
        bj, brhs = defs[b]
        bc = re.match(r"^tl\.broadcast_to\((v\d+)\[:, None\], (\[\d+, \d+\])\)$", brhs)
        if bc:
            lines[bj] = re.sub(r"^(\s+v\d+ = )tl\.broadcast_to\((v\d+)\[:, None\]",
                               rf"\1tl.broadcast_to(({bc.group(1)} * {L2E})[:, None]", lines[bj])
            lines[j] = re.sub(r"= (v\d+) - (v\d+)$", rf"= \1 * {L2E} - \2", lines[j])
        else:
            lines[j] = re.sub(r"= (v\d+) - (v\d+)$", rf"= (\1 - \2) * {L2E}", lines[j])
        n += 1
    assert n, "no exponential"
    # The split path stores the maximum back in natural units (m * ln 2) and reads it * log2(e): now
    # the maximum is natural already (FOLD_SPLIT=1 variants only compile the unsplit branch).
    return "\n".join(lines)


variants = []


def add(name, maker, kind, params, ce, edit=None, shape=(4, 32, 4096, 128)):
    k = maker(T.bf16, name=f"k_{name}")
    src = k.source("triton", ce, params)
    if edit:
        new = edit(src)
        assert new != src, name
        src = new
    (HERE / f"{name}.py").write_text(src)
    B, H, S, D = shape
    variants.append(dict(name=name, fn=f"k_{name}", kind=kind, B=B, H=H, S=S, D=D, params=params,
                         edit=edit.__name__ if edit and hasattr(edit, "__name__") else None))


def final():
    """Run 2, after the passes: the call's defaults and the best configurations as compiled, the
    pairing edit, and FOLD_SPLIT=2 beside 1 for a device-time (profiler) comparison."""
    D96 = (1, 4, 4099, 96)
    C = {"CAUSAL": True}
    import torch
    kb = AK.bias_attention(T.bf16, name="k_probe_bias")
    q = torch.empty(4, 32, 4096, 128, dtype=torch.bfloat16, device="meta")
    tensors, _, ce = kb._bind((q, q, q, torch.empty(32, 4096, 4096, dtype=torch.bfloat16, device="meta"), q),
                              {"scale": 1.0})
    bias_defaults = kb._call_defaults(ce, tensors)
    ka = AK.attention(T.bf16, name="k_probe_d96")
    q = torch.empty(*D96, dtype=torch.bfloat16, device="meta")
    tensors, _, ce = ka._bind((q, q, q, q), {"scale": 1.0, "CAUSAL": True})
    d96_defaults = ka._call_defaults(ce, tensors)
    add("d96_defaults", AK.attention, "causal", d96_defaults, C, shape=D96)
    add("d96_128_s1", AK.attention, "causal", cfg(128, 64, 8, 3), C, shape=D96)
    add("d96_64_pair", AK.attention, "causal", cfg(64, 64, 4, 3), C, pair, shape=D96)
    add("d96_128_pair", AK.attention, "causal", cfg(128, 64, 8, 3), C, pair, shape=D96)
    add("d96_64_s2", AK.attention, "causal", cfg(64, 64, 4, 3, split=2), C, shape=D96)
    add("d96_64_st2", AK.attention, "causal", cfg(64, 64, 4, 2), C, shape=D96)
    add("d96_128_st2", AK.attention, "causal", cfg(128, 64, 8, 2), C, shape=D96)
    add("bias_defaults", AK.bias_attention, "bias", bias_defaults, {})
    add("bias_64_64", AK.bias_attention, "bias", cfg(64, 64, 4, 3), {})
    add("bias_128_32", AK.bias_attention, "bias", cfg(128, 32, 8, 3), {})
    for v in variants:
        v["profile"] = v["name"] in ("d96_defaults", "d96_64_s2", "d96_64_pair", "bias_defaults")


if __name__ == "__main__" and len(sys.argv) > 2 and sys.argv[2] == "final":
    final()
    (HERE / "manifest.json").write_text(json.dumps(variants, indent=1))
    print(len(variants), "variants")
elif __name__ == "__main__":
    D96 = (1, 4, 4099, 96)
    C = {"CAUSAL": True}
    for bs, bt, w in ((64, 64, 4), (128, 64, 8)):
        for split in (1, 2, 4):
            add(f"d96_{bs}_s{split}", AK.attention, "causal", cfg(bs, bt, w, 3, split=split), C, shape=D96)
        add(f"d96_{bs}_s1_slow", AK.attention, "causal", cfg(bs, bt, w, 3), C, slow, shape=D96)
        add(f"d96_{bs}_s2_slow", AK.attention, "causal", cfg(bs, bt, w, 3, split=2), C, slow, shape=D96)
        add(f"d96_{bs}_s2_nar", AK.attention, "causal", cfg(bs, bt, w, 3, split=2), C,
            lambda s, bs=bs, bt=bt: nar(s, bs, bt), shape=D96)
    add("d96_64_s2_nar_slow", AK.attention, "causal", cfg(64, 64, 4, 3, split=2), C,
        lambda s: slow(nar(s, 64, 64)), shape=D96)
    for bs, bt, w in ((128, 64, 8), (64, 64, 4), (64, 32, 4)):
        add(f"bias_{bs}_{bt}", AK.bias_attention, "bias", cfg(bs, bt, w, 3), {})
        if bt == 64:
            add(f"bias_{bs}_{bt}_fma", AK.bias_attention, "bias", cfg(bs, bt, w, 3), {}, fma)
    (HERE / "manifest.json").write_text(json.dumps(variants, indent=1))
    print(len(variants), "variants")
