"""Shared by this folder's probes: bench/ on the path (run_bench's timing, grouped_gemm's module loader)
and the bench's ragged group sizes (torch.randint cuts, seed 0)."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "bench"))
import grouped_gemm  # noqa: E402
from run_bench import timed  # noqa: E402,F401  (re-exported for the probes)


def load(path):
    """A generated module, by file path."""
    return grouped_gemm.load(pathlib.Path(path))


def ragged_sizes(M, G, seed=0):
    """G random group sizes summing to M (the layout bench/grouped_gemm.py starts from)."""
    import torch
    g = torch.Generator().manual_seed(seed)
    cuts = torch.sort(torch.randint(0, M + 1, (G - 1,), generator=g)).values
    return torch.diff(torch.cat([torch.tensor([0]), cuts, torch.tensor([M])]))
