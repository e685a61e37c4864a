"""Every parameter value a kernel declares computes the right result (issue 47): the variant sweep of
bench/corpus/variants.py on a few fast kernels (under TRITON_INTERPRET=1 against the NumPy reference or the
KIR interpreter). The whole corpus sweep is `python3 bench/corpus/check.py --variants` (hours on two
cores); on a GPU at the bench shapes, `python3 bench/corpus.py --variants`."""
import argparse
import os
import pathlib
import sys

import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench" / "corpus"))
import variants as V  # noqa: E402

sys.path.pop(0)


def test_moves_one_at_a_time_then_extremes():
    space = {"A": ([1, 2, 4, 8], 2), "B": ([0, 1], 0)}
    got = V.moves(space, {"A": 2, "B": 0})
    assert got == [("default", {"A": 2, "B": 0}), ("all-min", {"A": 1, "B": 0}), ("all-max", {"A": 8, "B": 1}),
                   ("A=8", {"A": 8, "B": 0}), ("B=1", {"A": 2, "B": 1}), ("A=4", {"A": 4, "B": 0})]
    # every candidate of every parameter is reached, each binding once
    assert {(n, b[n]) for _, b in got for n in b} >= {("A", a) for a in (1, 2, 4, 8)} | {("B", 0), ("B", 1)}


def test_interpreted_drops_only_launch_options():
    base = ("k_PARAMS = {'WARPS': ([1, 2], 2)}\n"
            "    for i in tl.range(a, b, c, num_stages=3):\n"
            "        x = tl.arange(0, 64)\n"
            "    _k[(g, 1, 1)](x, y, num_warps=2, num_stages=3)\n")
    launch = base.replace("num_warps=2", "num_warps=8").replace("num_stages=3)\n", "num_stages=1)\n")
    assert V.interpreted(launch) == V.interpreted(base)
    assert "range(a, b, c)" in V.interpreted(base)
    assert V.interpreted(base.replace("tl.arange(0, 64)", "tl.arange(0, 128)")) != V.interpreted(base)


def _args(**kw):
    return argparse.Namespace(**{"budget_s": 20.0, "binding_s": 30.0, "lanes": V.LANES, "shapes": "small", "moves": "all",
                                 "compile_only": False, **kw})


# Fast kernels (a corpus file whose space has BLOCK_P, BLOCK, WARPS, STAGES, LOOP_STAGES; a suite kernel
# against the KIR interpreter), each bounded by its 20 s budget (a binding not reached reports 'budget').
@pytest.mark.parametrize("name", ["97_mse_loss_grad", "ex:softmax"])
def test_every_candidate_agrees(name, tessel_bin):
    rec = V.sweep(V.load(name), _args())
    bad = [r for r in rec["results"] if r["verdict"] in ("DIFFERS", "CRASH")]
    assert not bad, bad
    ran = [r for r in rec["results"] if r["verdict"] == "ok"]
    assert len(ran) > 1 and any(r["label"] == "default" for r in ran), rec


def test_a_wrong_binding_is_reported(monkeypatch, tessel_bin):
    """A launch that writes wrong values at one binding (here: zeros wherever BLOCK is 64, all-min's) is
    reported as DIFFERS for that binding, with the binding; the default still agrees."""
    launch = V.launch

    def corrupted(mod, binding, views, kw):
        launch(mod, binding, views, kw)
        if binding.get("BLOCK") == 64:
            for t in H_outputs(mod, views):
                t.zero_()
    H_outputs = lambda mod, views: V.H.outputs_of(mod, views).values()  # noqa: E731
    monkeypatch.setattr(V, "launch", corrupted)
    rec = V.sweep(V.load("97_mse_loss_grad"), _args(moves="extremes"))
    verdicts = {r["label"]: r for r in rec["results"]}
    assert verdicts["default"]["verdict"] == "ok"
    assert verdicts["all-min"]["verdict"] == "DIFFERS" and verdicts["all-min"]["binding"]["BLOCK"] == 64
