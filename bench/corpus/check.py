"""Checks corpus kernels on this machine: the KIR interpreter and the Triton provider under
TRITON_INTERPRET=1, at every test shape, against the file's NumPy reference.

    python3 bench/corpus/check.py [NAME ...]      (default: every file)
    python3 bench/corpus/check.py --variants [NAME ...] [variants.py's flags]
        every declared parameter candidate, one at a time, through Triton (bench/corpus/variants.py)
"""
import os
import sys
import traceback

os.environ.setdefault("TRITON_INTERPRET", "1")  # before triton is imported by a generated module

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _harness as H  # noqa: E402


def check(name: str) -> bool:
    mod = H.load(name)
    ok = True
    for i, shape in enumerate(mod.TEST_SHAPES):
        for path in ("interp", "triton"):
            if H.marked(mod, "SKIP", path):
                print(f"{name} {path} {shape}: skipped ({H.marked(mod, 'SKIP', path)})", flush=True)
                continue
            try:
                msg = H.check(mod, shape, i, path)
            except Exception as e:  # report and go on: one file's failure should not hide the others'
                msg = f"{type(e).__name__}: {e}"
                if os.environ.get("CORPUS_TRACEBACK"):
                    traceback.print_exc()
            expected = H.marked(mod, "XFAIL", path)
            if expected:  # the mark names a compiler gap: failing is expected, passing means the mark is stale
                verdict = f"xfail (expected: {expected}): {msg}" if msg is not None else \
                    "XPASS: passes, so its XFAIL mark is stale (test_corpus.py fails on it)"
                print(f"{name} {path} {shape}: {verdict}", flush=True)
                ok &= msg is not None
                continue
            print(f"{name} {path} {shape}: {'ok' if msg is None else 'FAIL ' + msg}", flush=True)
            ok &= msg is None
    return ok


if __name__ == "__main__":
    if "--variants" in sys.argv[1:]:
        import variants
        sys.exit(variants.main([a for a in sys.argv[1:] if a != "--variants"]))
    names = H.resolve(sys.argv[1:]) if sys.argv[1:] else H.names()
    results = [check(n) for n in names]
    sys.exit(0 if all(results) else 1)
