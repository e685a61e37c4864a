#!/usr/bin/env python3
"""Chooses the slow parametrized cases that move to the deep tier (python/tests/deep_cases.txt) from a
pytest `--durations=0` log, so that CI's default tier stays inside its budget (issue 46: under 20 minutes
on 2 cores) while every test function still runs:

  - a case moves when it took at least --min-s seconds and its test function has a cheaper case, which
    stays (so every test runs, at its cheapest parametrization and at every one under --min-s);
  - cases of a test parametrized over suite kernels (ids `kir/NAME`, `py/NAME`) are grouped per kernel,
    so each kernel keeps its cheapest spelling on that path;
  - the differential matrix (its own CI budget, matrix_lib.Budget) and the corpus (every corpus kernel on
    every path) never move.

  python3 -m pytest -q python/tests --durations=0 -p no:cacheprovider | tee /tmp/durations.log
  python3 scripts/deep_tier.py /tmp/durations.log --keep python/tests/deep_cases.txt > /tmp/deep_cases.txt
  mv /tmp/deep_cases.txt python/tests/deep_cases.txt

A default-tier log does not time the cases already listed (they are skipped there): --keep carries them over.

`TESSEL_DEEP=1` runs the listed cases too (conftest.py reads the file).
"""
import argparse
import collections
import re
import sys

NEVER = ("test_matrix.py::", "test_matrix_b.py::", "test_corpus.py::", "test_corpus_b.py::")
LINE = re.compile(r"^([0-9.]+)s (call|setup)\s+(\S+)")
KERNEL_ID = re.compile(r"^(kir|py)/([^\[\]]+)")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("log", help="a pytest log with --durations=0")
    ap.add_argument("--min-s", type=float, default=3.0, help="a case at least this slow may move (seconds)")
    ap.add_argument("--keep", help="an earlier deep_cases.txt whose cases stay listed")
    args = ap.parse_args()
    took = collections.Counter()
    for line in open(args.log):
        m = LINE.match(line)
        if m:
            took[m.group(3).split("tests/", 1)[-1]] += float(m.group(1))
    groups = collections.defaultdict(list)
    for node, seconds in took.items():
        if "[" not in node or node.startswith(NEVER):
            continue
        func, param = node.split("[", 1)
        kernel = KERNEL_ID.match(param)
        groups[(func, kernel.group(2) if kernel else None)].append((seconds, node))
    deep = []
    for cases in groups.values():
        cases.sort()
        deep += [(s, n) for s, n in cases[1:] if s >= args.min_s]
    listed = {n for _, n in deep}
    if args.keep:
        for line in open(args.keep):
            node, _, note = line.partition("#")
            node = node.strip()
            if node and node not in listed:
                m = re.match(r"\s*([0-9.]+)s", note)
                deep.append((float(m.group(1)) if m else 0.0, node))
                listed.add(node)
    out = sys.stdout
    out.write(f"# Deep-tier cases (run under TESSEL_DEEP=1): written by scripts/deep_tier.py --min-s {args.min_s:g}\n"
              "# from a --durations=0 log; each took at least that long, and a cheaper case of the same test\n"
              "# (of the same suite kernel, for tests over kernels) runs in the default tier. Seconds measured\n"
              "# with 2 workers on 2 cores.\n")
    for seconds, node in sorted(deep, key=lambda c: c[1]):
        out.write(f"{node}  # {seconds:.1f}s\n")
    print(f"{len(deep)} cases, {sum(s for s, _ in deep):.0f} test-seconds", file=sys.stderr)


if __name__ == "__main__":
    main()
