"""Session 9 variants of tessel's generated attention kernels (CPU side), each a hand edit testing one
hypothesis before a pass is written for it (none of these edits is a compiler feature). Writes NAME.py
and manifest.json here; time_variants.py (the H200) checks and times them with the peers.
  pair  each program runs query blocks j and NQB-1-j of its (b, h) in turn (the grid halves): causal
        programs then carry equal work, for launches too small for the hardware to balance them.
  rot   software-pipelines the score contraction of every key loop by one iteration: the q.k tile of
        key tile i+1 is issued at the top of iteration i (its key index clamped to the loop's last
        iteration, so the last iteration recomputes a tile it does not use) and carried, so that Hopper's
        asynchronous wgmma of the next scores can overlap the current tile's softmax.
"""
import json, re, sys, pathlib
sys.path[:0] = ["python", "bench"]
import attention_kernels as AK
import tessel.language as T
HERE = pathlib.Path(__file__).parent


def cfg(bs, bt, w, st, bd=128):
    return dict(BLOCK_S=bs, BLOCK_T=bt, WARPS=w, STAGES=st, BLOCK_D=bd)


def rot(src):
    lines = src.split("\n")
    out, i, n = [], 0, 0
    while i < len(lines):
        m = re.match(r"^(\s+)for (v\d+) in range\((v\d+), (v\d+), (v\d+)\):$", lines[i])
        if not m:
            out.append(lines[i]); i += 1; continue
        ind, iv, lo, hi, st = m.groups()
        body_ind = ind + "    "
        j = i + 1
        while j < len(lines) and (lines[j].startswith(body_ind) or not lines[j].strip()):
            j += 1
        body = lines[i + 1:j]
        k = next((t for t, l in enumerate(body) if "tl.dot(" in l), None)
        dm = re.match(r"^\s+(v\d+) = tl\.dot\((v\d+), (v\d+), (v\d+)\)$", body[k]) if k is not None else None
        defined_before = "\n".join(out)
        if not dm or not re.search(rf"^\s+{dm.group(2)} = ", defined_before, flags=re.M):
            out.append(lines[i]); out.extend(body); i = j; continue
        n += 1
        head = body[:k + 1]
        names = set(re.findall(r"^\s+(v\d+) = ", "\n".join(head), flags=re.M))

        def ren(l, idx):
            l = re.sub(rf"\b{iv}\b", idx, l)
            for v in names:
                l = re.sub(rf"\b{v}\b", v + "_n", l)
            return l
        cur = f"_scur{n}"
        first = f"_rfirst{n}"
        out.append(f"{ind}{first} = tl.maximum(tl.minimum({lo}, {hi} - {st}), 0)")
        out.extend(ren(l, first).replace(body_ind, ind, 1) for l in head if l.strip())
        out.append(f"{ind}{cur} = {dm.group(1)}_n")
        out.append(lines[i])
        nxt = f"_rnext{n}"
        out.append(f"{body_ind}{nxt} = tl.minimum({iv} + {st}, {lo} + ({hi} - {lo} - 1) // {st} * {st})")
        out.extend(ren(l, nxt) for l in head if l.strip())
        for t, l in enumerate(body):
            out.append(f"{body_ind}{dm.group(1)} = {cur}" if t == k else l)
        out.append(f"{body_ind}{cur} = {dm.group(1)}_n")
        i = j
    assert n, "no loop rotated"
    return "\n".join(out)


def pair(src):
    """Each program runs two query blocks of its (b, h): j and NQB - 1 - j (one if they coincide), so a
    causal launch's programs all do about the same work (a heavy block paired with a light one)."""
    lines = src.split("\n")
    g = next(i for i, l in enumerate(lines) if l.startswith("    _grid = ("))
    m = re.search(r"\(-\(\(-\(max\(\(-\(\(-\(Q\.shape\[2\]\)\) // \(1\)\)\), 0\)\)\) // \((\d+)\)\)\)", lines[g])
    assert m, lines[g]
    lines[g] = lines[g].replace(m.group(0), f"((({m.group(0)}) + 1) // 2)")
    k = next(i for i, l in enumerate(lines) if l.startswith("def _") and l.split("(")[0].endswith("_kernel"))
    d = next(i for i in range(k, len(lines)) if re.match(r"^    (v\d+) = _rest(\d+) % (v\d+)$", lines[i]))
    qb, rest, n = re.match(r"^    (v\d+) = (_rest\d+) % (v\d+)$", lines[d]).groups()
    lines[d] = f"    _vh = ({n} + 1) // 2\n    _j = {rest} % _vh"
    assert lines[d + 1] == f"    {rest} = {rest} // {n}"
    lines[d + 1] = f"    {rest} = {rest} // _vh"
    start = next(i for i in range(d + 2, len(lines)) if not lines[i].startswith(f"    {rest}") and not re.match(rf"^    v\d+ = {rest} % v\d+$", lines[i]))
    end = next(i for i in range(start, len(lines)) if lines[i] and not lines[i].startswith(" "))
    while not lines[end - 1].strip():
        end -= 1
    body = ["    " + l if l.strip() else l for l in lines[start:end]]
    head = ["    for _k in range(0, 2):",
            f"        {qb} = _j + _k * ({n} - 1 - 2 * _j)",
            f"        if (_k == 0) | ({qb} != _j):"]
    body = ["    " + l if l.strip() else l for l in body]
    return "\n".join(lines[:start] + head + body + lines[end:])


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
    variants.append(dict(name=name, fn=f"k_{name}", kind=kind, B=B, H=H, S=S, D=D, params=params))


if __name__ == "__main__":
    for tag, ce in (("causal", {"CAUSAL": True}), ("full", {"CAUSAL": False})):
        for c in (cfg(128, 64, 8, 3), cfg(64, 64, 4, 3)):
            nm = f"{tag}_{c['BLOCK_S']}"
            add(nm, AK.attention, tag, c, ce)
            add(nm + "_rot", AK.attention, tag, c, ce, rot)
    for c in (cfg(64, 64, 4, 3), cfg(128, 64, 8, 3), cfg(64, 32, 4, 3)):
        nm = f"d96_{c['BLOCK_S']}_{c['BLOCK_T']}"
        add(nm, AK.attention, "causal", c, {"CAUSAL": True}, shape=(1, 4, 4099, 96))
        add(nm + "_pair", AK.attention, "causal", c, {"CAUSAL": True}, pair, shape=(1, 4, 4099, 96))
    add("causal_64_pair", AK.attention, "causal", cfg(64, 64, 4, 3), {"CAUSAL": True}, pair)
    add("bias_128", AK.bias_attention, "bias", cfg(128, 64, 8, 3), {})
    add("bias_128_rot", AK.bias_attention, "bias", cfg(128, 64, 8, 3), {}, rot)
    (HERE / "manifest.json").write_text(json.dumps(variants, indent=1))
    print(len(variants), "variants")
