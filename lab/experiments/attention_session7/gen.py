"""Generates the attention variants of experiment 1 (CPU side): tessel's Triton for each config, plus
hand-edited variants that test one change each (bias load issued first in the loop; warp-specialized
loops). Writes NAME.py and manifest.json here."""
import json, re, sys, pathlib
sys.path[:0] = ["python", "bench"]
import attention_kernels as AK
import tessel.language as T
HERE = pathlib.Path(__file__).parent

def cfg(bs, bt, w, st, bd=128):
    return dict(BLOCK_S=bs, BLOCK_T=bt, WARPS=w, STAGES=st, BLOCK_D=bd)

def hoist(src, pattern):
    """Moves each loop-body statement matching `pattern` (and what it needs from the body) to just
    after the last statement of the body it depends on."""
    lines = src.split("\n")
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r"^(\s*)for (v\d+) in range\(", line)
        if not m:
            out.append(line); i += 1; continue
        ind = m.group(1) + "    "
        j = i + 1
        body = []
        while j < len(lines) and (lines[j].startswith(ind) or not lines[j].strip()):
            body.append(lines[j]); j += 1
        stmts = [b for b in body if not b.strip().startswith("#")]
        if not any(re.search(pattern, b) for b in stmts) or any(
                b.strip() and not re.match(ind + r"\S", b) for b in stmts):
            out.append(line); out.extend(body); i = j; continue
        defs = {}
        for k, s in enumerate(stmts):
            mm = re.match(r"^\s*(v\d+) = ", s)
            if mm: defs[mm.group(1)] = k
        need = set()
        for k, s in enumerate(stmts):
            if re.search(pattern, s): need.add(k)
        changed = True
        while changed:
            changed = False
            for k in list(need):
                for u in re.findall(r"\bv\d+\b", stmts[k].split("=", 1)[1] if "=" in stmts[k] else stmts[k]):
                    if u in defs and defs[u] not in need and defs[u] < k:
                        need.add(defs[u]); changed = True
        moved = [stmts[k] for k in sorted(need)]
        rest = [s for k, s in enumerate(stmts) if k not in need]
        # place each moved statement after the last def it needs among `rest`/already placed
        res = rest[:]
        for s in moved:
            uses = set(re.findall(r"\bv\d+\b", s.split("=", 1)[1]))
            pos = 0
            for k, r in enumerate(res):
                mm = re.match(r"^\s*(v\d+) = ", r)
                if mm and mm.group(1) in uses: pos = k + 1
            res.insert(pos, s)
        out.append(line); out.extend(res); i = j
    return "\n".join(out)

def staged(src, n):
    """Loops whose bodies hold a tl.dot get an explicit num_stages (tl.range)."""
    lines = src.split("\n")
    for i, line in enumerate(lines):
        m = re.match(r"^(\s*)for (v\d+) in range\(([^)]*)\):$", line)
        if not m: continue
        ind = m.group(1) + "    "
        j = i + 1
        while j < len(lines) and (lines[j].startswith(ind) or not lines[j].strip()): j += 1
        if any("tl.dot" in l for l in lines[i + 1:j]):
            lines[i] = f"{m.group(1)}for {m.group(2)} in tl.range({m.group(3)}, num_stages={n}):"
    return "\n".join(lines)

def ws(src):
    return re.sub(r"for (v\d+) in range\(([^)]*)\):", r"for \1 in tl.range(\2, warp_specialize=True):", src)

variants = []
def add(name, maker, kind, params, ce, edit=None, shape=(4, 32, 4096, 128)):
    k = maker(T.bf16, name=f"k_{name}")
    src = k.source("triton", ce, params)
    if edit: src = edit(src)
    (HERE / f"{name}.py").write_text(src)
    B, H, S, D = shape
    variants.append(dict(name=name, fn=f"k_{name}", kind=kind, B=B, H=H, S=S, D=D, params=params))

def mixed_unstaged(src, n_mixed=1):
    """Loops with masks (tl.where on a [.., ..] compare of key positions) get num_stages=n_mixed;
    the others keep the kernel's."""
    lines = src.split("\n")
    for i, line in enumerate(lines):
        m = re.match(r"^(\s*)for (v\d+) in range\(([^)]*)\):$", line)
        if not m: continue
        ind = m.group(1) + "    "
        j = i + 1
        while j < len(lines) and (lines[j].startswith(ind) or not lines[j].strip()): j += 1
        body = lines[i + 1:j]
        if any("tl.dot" in l for l in body) and any(re.search(r"= v\d+ (<=|>) v\d+$", l.strip()) for l in body):
            lines[i] = f"{m.group(1)}for {m.group(2)} in tl.range({m.group(3)}, num_stages={n_mixed}):"
    return "\n".join(lines)

for bs, bt, w, st in [(64, 32, 4, 3), (64, 64, 4, 3)]:
    add(f"window_{bs}x{bt}", AK.window_attention, "window", cfg(bs, bt, w, st), {})
    add(f"window_{bs}x{bt}_m1", AK.window_attention, "window", cfg(bs, bt, w, st), {}, edit=lambda s: mixed_unstaged(s, 1))
    add(f"window_{bs}x{bt}_m2", AK.window_attention, "window", cfg(bs, bt, w, st), {}, edit=lambda s: mixed_unstaged(s, 2))
add("window_64x32w2", AK.window_attention, "window", cfg(64, 32, 2, 3), {})
add("window_32x32w2_m1", AK.window_attention, "window", cfg(32, 32, 2, 3), {}, edit=lambda s: mixed_unstaged(s, 1))
add("causal_64", AK.attention, "causal", cfg(64, 64, 4, 3), {"CAUSAL": True})
add("causal_64_m1", AK.attention, "causal", cfg(64, 64, 4, 3), {"CAUSAL": True}, edit=lambda s: mixed_unstaged(s, 1))
(HERE / "manifest.json").write_text(json.dumps(variants, indent=1))
print(len(variants), "variants")
