"""CPU check of attn_edits.py (TRITON_INTERPRET=1; f16 sources, since bf16 is garbage in the interpreter;
the TMA spelling forced on): every edit, full and causal, against a float64 reference at small shapes.
Run from the repository root with main's tessel (the edits expect four descriptors with TMA = 1):
  PYTHONPATH=python:bench python3 lab/experiments/attention_session14/interp_check.py [EDIT ...]"""
import importlib.util
import math
import os
import sys
import tempfile

os.environ["TRITON_INTERPRET"] = "1"
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = ["python", "bench", HERE]
import torch  # noqa: E402

import attention_kernels as AK  # noqa: E402
import attn_edits  # noqa: E402
import tessel.language as T  # noqa: E402

SPECS = ["base", "kvonly", "ptro", "hostdesc", "hostkv", "nosel", "rcp", "scalemax", "hostdesc+nosel+rcp+scalemax",
         "kvonly+nosel+rcp+scalemax"]


def main():
    specs = sys.argv[1:] or SPECS
    torch.manual_seed(0)
    bad = 0
    with tempfile.TemporaryDirectory() as d:
        for causal in (False, True):
            src = AK.attention(T.f16).source(target="triton", constexprs={"CAUSAL": causal}, params=dict(TMA=1))
            forced = src.replace("not _interpreting() and Q.data_ptr() % 16 == 0", "Q.data_ptr() % 16 == 0")
            assert forced != src, "the TMA guard's spelling changed"
            for spec in specs:
                path = os.path.join(d, f"{'causal' if causal else 'full'}_{spec.replace('+', '_')}.py")
                with open(path, "w") as f:
                    f.write(attn_edits.apply(forced, spec))
                sp = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
                m = importlib.util.module_from_spec(sp)
                sp.loader.exec_module(m)
                for (B, H, S, Tn) in ((1, 2, 128, 128), (1, 1, 100, 100)):
                    q, k, v = (torch.randn(B, H, n, 128, dtype=torch.float16) for n in (S, Tn, Tn))
                    o = torch.full_like(q, float("nan"))
                    sc = 1 / math.sqrt(128)
                    m.attention(q, k, v, o, scale=sc)
                    s = (q.double() @ k.double().transpose(-1, -2)) * sc
                    if causal:
                        s = s.masked_fill(torch.ones(S, Tn, dtype=torch.bool).triu(1), float("-inf"))
                    err = (o.double() - torch.softmax(s, -1) @ v.double()).abs().max().item()
                    bad += err >= 5e-3
                    print(f"{'causal' if causal else 'full'} {spec:30s} B{B} H{H} S{S} T{Tn}: max err {err:.2e} "
                          f"{'OK' if err < 5e-3 else 'BAD'}", flush=True)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
