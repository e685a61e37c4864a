"""The corpus tests' cases (test_corpus.py, test_corpus_b.py: each file takes half of the kernels, so that
pytest-xdist's --dist loadfile puts the corpus on both workers), and which of them run in the default tier.

Every kernel runs on the KIR interpreter in the default tier. Through Triton (TRITON_INTERPRET=1, about six
times the interpreter's cost) a kernel runs there when

  - it is in the fixed Triton half: the first hex digit of sha256(file stem) is even (a property of the
    name alone: the same kernels on every run, every day, and a new file does not move the others) and
    not in SLOW_TRITON (the slowest of that half: tens of seconds each on CI's cores), or
  - its generated Triton source differs from the one scripts/provider_identity.json records (a change
    to the compiler or to the file that moves the kernel's source is checked through Triton on that
    branch's CI; the lead's `provider_identity.py --update` after the merge records the checked source).

The other half, whose source the manifest records unchanged, runs under TESSEL_DEEP=1 (or
TESSEL_CORPUS_ALL=1, which also runs every test shape): what it tests -- the runtime wrapper, Triton's
interpreter on a recorded source -- the default tier's Triton half covers with the same code paths."""
import hashlib
import json
import os
import pathlib
import sys

import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench" / "corpus"))
import _harness as H  # noqa: E402

sys.path.pop(0)

EVERY_SHAPE = os.environ.get("TESSEL_CORPUS_ALL") == "1"
EVERY_TRITON = EVERY_SHAPE or os.environ.get("TESSEL_DEEP") == "1"
MANIFEST = ROOT / "scripts" / "provider_identity.json"


# The fixed half's kernels whose Triton run at the default test shape took at least 25 s in a full run on
# a loaded 2-core machine (2026-12-06, seconds below, a few times CI's; 273 of 279 kernels measured):
# these 15 took 1003 of the half's 1560 s there.
SLOW_TRITON = {
    "92_layernorm_backward_full": 235, "94_knn_top8_b": 132, "115_chunked_local_attention": 121,
    "86_padded_bert_attention": 85, "94_knn_top8": 55, "182_paged_int8_kv_dequant": 52,
    "142_upsample_skip_add": 50, "79_alibi_causal_attention": 45, "209_channel_shuffle": 39,
    "78_selective_scan": 35, "102_depthwise_conv2d": 32, "15_topk": 32, "121_avg_pool3x3": 31,
    "221_varlen_causal_attention": 30, "120_int4_group_quant": 28,
    # Session 44 (issue 47): 96 s in a full run on a machine shared with other builds, 27 s on a quieter one.
    "247_dice_loss": 96,
}


def triton_half(name: str) -> bool:
    """Whether kernel `name` is in the fixed half that runs through Triton in every tier."""
    return int(hashlib.sha256(name.encode()).hexdigest()[0], 16) % 2 == 0


_RECORDED = None


def source_recorded(mod, name: str) -> bool:
    """Whether the kernel's Triton source (at its CONSTEXPRS) hashes as scripts/provider_identity.json records
    `tessel compile --target=triton --emit=source` of it (exit status 0, the source, no diagnostics)."""
    global _RECORDED
    if _RECORDED is None:
        _RECORDED = json.loads(MANIFEST.read_text()) if MANIFEST.exists() else {}
    want = _RECORDED.get(f"corpus/{name}:triton:source")
    if want is None:
        return False
    try:
        src = mod.KERNEL.source(constexprs=getattr(mod, "CONSTEXPRS", {}) or None)
    except Exception:  # noqa: BLE001: a kernel the provider rejects is checked the long way
        return False
    digest = hashlib.sha256(b"rc=0\n")
    digest.update(src.encode().replace(str(ROOT).encode(), b"<root>"))
    digest.update(b"\0\0")
    return digest.hexdigest() == want


def cases(part: int, parts: int = 2):
    """pytest params (name, test shape index, path) of every `parts`-th kernel from the `part`-th.

    By default each kernel runs at one test shape, its second (odd and small; the first when it has one);
    TESSEL_CORPUS_ALL=1 runs every test shape (bench/corpus/check.py does too)."""
    for name in H.names()[part::parts]:
        mod = H.load(name)
        shapes = list(mod.TEST_SHAPES)
        picked = range(len(shapes)) if EVERY_SHAPE else (min(1, len(shapes) - 1),)
        for i in picked:
            for path in ("interp", "triton"):
                marks = []
                if H.marked(mod, "XFAIL", path):
                    marks.append(pytest.mark.xfail(reason=H.marked(mod, "XFAIL", path), strict=True))
                if H.marked(mod, "SKIP", path):
                    marks.append(pytest.mark.skip(reason=H.marked(mod, "SKIP", path)))
                yield pytest.param(name, i, path, id=f"{name}-{path}-{i}", marks=marks)


def check(name: str, index: int, path: str):
    mod = H.load(name)
    if path == "triton" and not EVERY_TRITON and (not triton_half(name) or name in SLOW_TRITON) \
            and source_recorded(mod, name):
        pytest.skip("deep tier (TESSEL_DEEP=1): not in the fixed Triton half (or in SLOW_TRITON) and its Triton "
                    "source is the one scripts/provider_identity.json records (corpus_cases.py)")
    shape = mod.TEST_SHAPES[index]
    msg = H.check(mod, shape, index, path)
    assert msg is None, f"{name} at {shape} ({path}): {msg}"
