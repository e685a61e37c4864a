"""bench/corpus.py, the corpus on a GPU, checked on the CPU where its GPU rows failed for reasons of the script
or the wrapper rather than of a kernel (bench/corpus/RESULTS.md):

  - 171_kmeans_assign: an index output may name another candidate than the peer's at a near-tie of the
    scores (ARG_SCORES, bench/corpus/README.md); a candidate that is not near the best still fails;
  - 38_adamw_b: an InOut kernel and its in-place peer start from the same inputs at the bench check (the
    kernel's first call updates its views; the check makes fresh ones, so the step is applied once);
  - 166_conv3x3_implicit_gemm: the Gluon wrapper's descriptors (`_gdesc`) take every dtype of the views the
    wrapper makes them for (its f32 output raised KeyError: torch.float32 at the first call on the H100).

Cheap: the script runs under --cpu-smoke's switch (TRITON_INTERPRET=1, the smallest test shapes)."""
import importlib.util
import os
import pathlib
import re
import sys

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench():
    """bench/corpus.py loaded with its CPU switch on (read at import)."""
    before = os.environ.get("TESSEL_CORPUS_SMOKE")
    os.environ["TESSEL_CORPUS_SMOKE"] = "1"
    try:
        spec = importlib.util.spec_from_file_location("_bench_corpus_script", ROOT / "bench" / "corpus.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        if before is None:
            os.environ.pop("TESSEL_CORPUS_SMOKE")
        else:
            os.environ["TESSEL_CORPUS_SMOKE"] = before
    assert module.DEVICE == "cpu"
    return module


def _kmeans_near_tie():
    """x [1, 2] and 16 centroids where centroids 1 and 15 lie at squared distances 0.25 and 0.25 + 2e-7
    (a near-tie), centroid 3 far away."""
    x = np.array([[0.5, 0.0]], np.float32)
    c = np.full((16, 2), 9.0, np.float32)
    c[1] = [0.0, 0.0]
    c[15] = [1.0 + 4e-7, 0.0]
    c[3] = [2.0, 0.0]
    return x, c


def test_index_output_near_tie_passes_and_counts(bench, tessel_bin):
    import torch
    mod = bench.H.load("171_kmeans_assign")
    x, c = _kmeans_near_tie()
    tol = mod.BENCH_TOLERANCE
    scores = bench._arg_scores(mod, "assign", dict(x=x, c=c))
    assert scores is not None
    ours, peer_near, peer_far = torch.tensor([1], dtype=torch.int32), torch.tensor([15], dtype=torch.int32), \
        torch.tensor([3], dtype=torch.int32)
    assert bench._close(ours, peer_near, tol, None, scores=scores) == (None, 1)
    msg, flips = bench._close(ours, peer_far, tol, None, scores=scores)  # must not pass: 3 is far from the best
    assert flips == 0 and msg.startswith("1 of 1 differ from the peer")
    msg, _ = bench._close(ours, peer_near, tol)  # an output without ARG_SCORES stays exact
    assert msg is not None
    assert bench._arg_scores(mod, "dist", dict(x=x, c=c)) is None


def test_kmeans_scores_match_the_reference_choice(bench, tessel_bin):
    mod = bench.H.load("171_kmeans_assign")
    rng = np.random.default_rng(5)
    x, c = rng.standard_normal((37, 3)).astype(np.float32), rng.standard_normal((16, 3)).astype(np.float32)
    s = mod.ARG_SCORES["assign"](x, c)
    assert s.shape == (37, 16)
    np.testing.assert_array_equal(s.argmin(-1), mod.reference(x, c)["assign"])


def test_inout_kernel_against_in_place_peer(bench, tessel_bin):
    """38_adamw_b's whole bench record on the CPU: its first call updates param and the moments in place,
    the peer check starts both sides from the drawn inputs again (once applied, the step agrees)."""
    rec = bench.bench_one("38_adamw_b", compile_peer=False)
    assert "error" not in rec, rec.get("error")
    assert rec["reference_check"] == "ok" and rec["peer_check"] == "ok"


def test_gluon_descriptors_take_the_views_dtypes(bench, tessel_bin):
    import torch
    pytest.importorskip("triton.experimental.gluon.nvidia.hopper")
    mod = bench.H.load("166_conv3x3_implicit_gemm")
    src = mod.KERNEL.source()
    calls = set(re.findall(r"_gdesc\((\w+), (\[[0-9, ]+\])\)", src))
    assert {name for name, _ in calls} >= {"w", "out"}, "166's Gluon spelling makes w's and out's descriptors"
    body = re.search(r"^def _gdesc\(.*?(?=^\S)", src, re.S | re.M).group(0)
    from triton.experimental.gluon import language as gl
    scope = {"torch": torch, "gl": gl}
    exec(body, scope)
    dtypes = {p.name: p.spec.dtype.name for p in mod.KERNEL.params() if p.kind == "view"}
    torch_dtype = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}
    for name, box in sorted(calls):
        box = eval(box)
        t = torch.zeros(box, dtype=torch_dtype[dtypes[name]])
        desc = scope["_gdesc"](t, box)
        assert list(desc.block_shape) == box, name


def test_a_run_writes_outside_the_tree_unless_told(bench, monkeypatch, tmp_path):
    # --cpu-smoke once rewrote bench/results/corpus.json (the GPU table) and left corpus.jsonl in the
    # working folder: unnamed outputs go to $OUT, else to a new temporary folder
    monkeypatch.delenv("OUT", raising=False)
    monkeypatch.setattr(bench.tempfile, "tempdir", str(tmp_path))
    out, lines = bench.output_paths(None, None, False)
    assert pathlib.Path(out).parent == pathlib.Path(lines).parent
    assert pathlib.Path(out).parent.parent == tmp_path and pathlib.Path(out).name == "corpus.json"
    assert pathlib.Path(bench.output_paths(None, str(tmp_path / "l.jsonl"), True)[0]).name == "corpus-variants.json"
    monkeypatch.setenv("OUT", str(tmp_path / "device"))
    assert bench.output_paths(None, None, False) == (str(tmp_path / "device" / "corpus.json"),
                                                     str(tmp_path / "device" / "corpus.jsonl"))
    assert bench.output_paths("a.json", "b.jsonl", False) == ("a.json", "b.jsonl")
    with pytest.raises(SystemExit, match="does not write"):  # the smoke switch is on in `bench`
        bench.output_paths(str(ROOT / "bench" / "results" / "corpus.json"), None, False)
