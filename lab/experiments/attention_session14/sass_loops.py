"""The loops of a `cuobjdump -sass` listing (backward branches over 40-1500 instructions): their
instruction counts and opcode histograms, and the code before the first main loop (the prologue:
tensor-descriptor creation shows as ATOMG/DEPBAR/UTMACCTL, pipeline prologue loads as UTMALDG/LDGSTS).
Usage: sass_loops.py X.sass [--short]"""
import collections
import re
import sys

KEYS = ("HGMMA", "MUFU.EX2", "FMUL", "FFMA", "FSEL", "SEL", "LDGSTS", "UTMALDG", "R2UR", "STL", "LDL", "BAR.SYNC",
        "SYNCS.PHASECHK")
PROLOGUE = dict(BAR="BAR.SYNC", ATOMG="ATOMG", DEPBAR="DEPBAR", UTMACCTL="UTMACCTL", STS=r"\bSTS", UTMALDG="UTMALDG",
                LDGSTS="LDGSTS", LDG=r"\bLDG\.")


def parse(path):
    ins = []
    for line in open(path):
        m = re.match(r"\s+/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;", line)
        if m:
            ins.append((int(m.group(1), 16), m.group(2).strip()))
    return ins


def op(t):
    return re.sub(r"^@!?U?P\w+\s+", "", t).split()[0]


def loops(ins):
    addr = {a: i for i, (a, _) in enumerate(ins)}
    for i, (a, t) in enumerate(ins):
        m = re.search(r"BRA(?:\.\w+)*\s+(?:\S+\s+)?0x([0-9a-f]+)", t)
        if m and int(m.group(1), 16) < a:
            s = int(m.group(1), 16)
            body = ins[addr[s]:i + 1]
            if 40 <= len(body) <= 1500:
                yield s, a, body


def main():
    ins = parse(sys.argv[1])
    short = "--short" in sys.argv
    first = None
    for s, a, body in loops(ins):
        first = s if first is None else first
        h = collections.Counter(op(x) for _, x in body)
        if short:
            print(f"  loop {s:#x}-{a:#x}: {len(body)} instr; " +
                  " ".join(f"{k}:{sum(v for o, v in h.items() if o.startswith(k))}" for k in KEYS))
        else:
            print(f"loop {s:#x}-{a:#x}: {len(body)} instr; " + " ".join(f"{k}:{v}" for k, v in h.most_common()))
    if first is not None:
        pre = [t for a, t in ins if a < first]
        print(f"  prologue (before {first:#x}): {len(pre)} instr; " +
              " ".join(f"{k}:{sum(1 for t in pre if re.search(p, t))}" for k, p in PROLOGUE.items()))


if __name__ == "__main__":
    main()
