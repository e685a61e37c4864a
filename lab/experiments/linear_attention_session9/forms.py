"""Where linear attention's time goes (issue 16), and what a parallel region-scan realization buys.

Hand-written Triton forms of examples/linear_attention.py's region scan at B=4 H=16 T=4096 D=E=64,
each the realization a pass would produce from the same summarize/apply/emit regions:

  * `chained`: one launch, one program per (chunk, b*h) taken in start order from a ticket; each
    program summarizes its chunk, waits for the state before it (a flag its predecessor releases),
    applies its summary and publishes the state after it, then emits its chunk from the state
    before it. Only `apply` runs in order (no reassociation); the emit, the bulk of the work, runs
    in parallel over chunks.
  * `twopass`: two launches: the ordered state walk (per b*h and E block) writes the state before
    each chunk into workspace, then the emit runs in parallel over (chunk, b*h).
  * tessel's generated sequential form (one program per b*h carries the state over BLOCK_T tiles),
    loaded from sources written by bench/linear_attention.py --emit.

Peers in the same process: fla-core's chunk_linear_attn and torch.compile of the cumsum form.
Run: PYTHONPATH=bench python3 lab/experiments/linear_attention_session9/forms.py --sources DIR --out F.json
"""
import argparse
import importlib.util
import json
import pathlib
import sys

import torch
import triton
import triton.language as tl

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "bench"))
from run_bench import nonzero, timed  # noqa: E402

B, H, T, D, E = 4, 16, 4096, 64, 64


@triton.jit
def _chained(Q, K, V, O, S_OUT, Z_OUT, W, WZ, FLAG, TICKET, T, BH, NC,
             D: tl.constexpr, E: tl.constexpr, BT: tl.constexpr, PREC: tl.constexpr):
    ticket = tl.atomic_add(TICKET, 1)  # start order: a predecessor chunk has started before
    c = ticket // BH
    bh = ticket % BH
    rows = c * BT + tl.arange(0, BT)
    valid = rows < T
    d = tl.arange(0, D)
    e = tl.arange(0, E)
    k = tl.load(K + bh * T * D + rows[:, None] * D + d[None, :], mask=valid[:, None], other=0.0)
    one = tl.full([], 1.0, k.dtype)
    pk = tl.where(valid[:, None], tl.maximum(k, 0.0) + one, 0.0).to(k.dtype)
    v = tl.load(V + bh * T * E + rows[:, None] * E + e[None, :], mask=valid[:, None], other=0.0)
    q = tl.load(Q + bh * T * D + rows[:, None] * D + d[None, :], mask=valid[:, None], other=0.0)
    pq = (tl.maximum(q, 0.0) + one).to(q.dtype)
    # summarize: the chunk's transition
    local = tl.dot(tl.trans(pk), v, input_precision=PREC)
    lz = tl.sum(pk.to(tl.float32), 0)
    # the state before the chunk
    if c > 0:
        flag = FLAG + bh * NC + c - 1
        while tl.atomic_cas(flag, 1, 1, sem="acquire") != 1:
            pass
        at = (bh * NC + c - 1)
        prev = tl.load(W + at * D * E + d[:, None] * E + e[None, :], cache_modifier=".cg")
        prevz = tl.load(WZ + at * D + d, cache_modifier=".cg")
    else:
        prev = tl.zeros([D, E], tl.float32)
        prevz = tl.zeros([D], tl.float32)
    # apply, publish
    after = local + prev
    afterz = lz + prevz
    if c < NC - 1:
        at = bh * NC + c
        tl.store(W + at * D * E + d[:, None] * E + e[None, :], after, cache_modifier=".cg")
        tl.store(WZ + at * D + d, afterz, cache_modifier=".cg")
        tl.debug_barrier()
        tl.atomic_xchg(FLAG + at, 1, sem="release")
    else:
        tl.store(S_OUT + bh * D * E + d[:, None] * E + e[None, :], after)
        tl.store(Z_OUT + bh * D + d, afterz)
    # emit from the state before the chunk
    scores = tl.dot(pq, tl.trans(pk), input_precision=PREC)
    causal = tl.where(rows[None, :] <= rows[:, None], scores, 0.0)
    num = tl.dot(pq, prev.to(q.dtype), input_precision=PREC)
    num = tl.dot(causal.to(q.dtype), v, num, input_precision=PREC)
    den = tl.sum(pq.to(tl.float32) * prevz[None, :], 1) + tl.sum(causal, 1)
    o = num / den[:, None]
    tl.store(O + bh * T * E + rows[:, None] * E + e[None, :], o.to(O.dtype.element_ty), mask=valid[:, None])


@triton.jit
def _walk(K, V, S_OUT, Z_OUT, W, WZ, T, NC, D: tl.constexpr, E: tl.constexpr, BE: tl.constexpr,
          BT: tl.constexpr, PREC: tl.constexpr):
    bh = tl.program_id(0)
    eb = tl.program_id(1)
    d = tl.arange(0, D)
    e = eb * BE + tl.arange(0, BE)
    s = tl.zeros([D, BE], tl.float32)
    z = tl.zeros([D], tl.float32)
    for c in range(0, NC):
        at = bh * NC + c
        tl.store(W + at * D * E + d[:, None] * E + e[None, :], s)
        tl.store(WZ + at * D + d, z, mask=(d < D) & (eb == 0))
        rows = c * BT + tl.arange(0, BT)
        valid = rows < T
        k = tl.load(K + bh * T * D + rows[:, None] * D + d[None, :], mask=valid[:, None], other=0.0)
        one = tl.full([], 1.0, k.dtype)
        pk = tl.where(valid[:, None], tl.maximum(k, 0.0) + one, 0.0).to(k.dtype)
        v = tl.load(V + bh * T * E + rows[:, None] * E + e[None, :], mask=valid[:, None], other=0.0)
        s = tl.dot(tl.trans(pk), v, s, input_precision=PREC)
        z += tl.sum(pk.to(tl.float32), 0)
    tl.store(S_OUT + bh * D * E + d[:, None] * E + e[None, :], s)
    tl.store(Z_OUT + bh * D + d, z, mask=(d < D) & (eb == 0))


@triton.jit
def _emit(Q, K, V, O, W, WZ, T, BH, NC, D: tl.constexpr, E: tl.constexpr, BT: tl.constexpr, PREC: tl.constexpr):
    pid = tl.program_id(0)
    c = pid // BH
    bh = pid % BH
    rows = c * BT + tl.arange(0, BT)
    valid = rows < T
    d = tl.arange(0, D)
    e = tl.arange(0, E)
    k = tl.load(K + bh * T * D + rows[:, None] * D + d[None, :], mask=valid[:, None], other=0.0)
    one = tl.full([], 1.0, k.dtype)
    pk = tl.where(valid[:, None], tl.maximum(k, 0.0) + one, 0.0).to(k.dtype)
    v = tl.load(V + bh * T * E + rows[:, None] * E + e[None, :], mask=valid[:, None], other=0.0)
    q = tl.load(Q + bh * T * D + rows[:, None] * D + d[None, :], mask=valid[:, None], other=0.0)
    pq = (tl.maximum(q, 0.0) + one).to(q.dtype)
    at = bh * NC + c
    prev = tl.load(W + at * D * E + d[:, None] * E + e[None, :])
    prevz = tl.load(WZ + at * D + d)
    scores = tl.dot(pq, tl.trans(pk), input_precision=PREC)
    causal = tl.where(rows[None, :] <= rows[:, None], scores, 0.0)
    num = tl.dot(pq, prev.to(q.dtype), input_precision=PREC)
    num = tl.dot(causal.to(q.dtype), v, num, input_precision=PREC)
    den = tl.sum(pq.to(tl.float32) * prevz[None, :], 1) + tl.sum(causal, 1)
    o = num / den[:, None]
    tl.store(O + bh * T * E + rows[:, None] * E + e[None, :], o.to(O.dtype.element_ty), mask=valid[:, None])


def chained(q, k, v, o, S, Z, bt=64, warps=4, prec="ieee"):
    nc = triton.cdiv(T, bt)
    w = torch.empty(B * H * nc, D, E, device=q.device)
    wz = torch.empty(B * H * nc, D, device=q.device)
    flags = torch.zeros(B * H * nc + 1, dtype=torch.int32, device=q.device)  # the last: the ticket
    _chained[(B * H * nc,)](q, k, v, o, S, Z, w, wz, flags, flags[B * H * nc:], T, B * H, nc, D, E, bt, prec,
                            num_warps=warps)


def twopass(q, k, v, o, S, Z, bt=64, be=32, warps=4, prec="ieee"):
    nc = triton.cdiv(T, bt)
    w = torch.empty(B * H * nc, D, E, device=q.device)
    wz = torch.empty(B * H * nc, D, device=q.device)
    _walk[(B * H, E // be)](k, v, S, Z, w, wz, T, nc, D, E, be, bt, prec, num_warps=4)
    _emit[(B * H * nc,)](q, k, v, o, w, wz, T, B * H, nc, D, E, bt, prec, num_warps=warps)


def reference(q, k, v):
    pq, pk, vv = (torch.relu(q.double()) + 1), (torch.relu(k.double()) + 1), v.double()
    causal = torch.ones(T, T, dtype=torch.bool, device=q.device).tril()
    o = torch.empty(vv.shape, dtype=torch.float64, device=q.device)
    for b in range(B):
        scores = (pq[b] @ pk[b].transpose(-1, -2)).masked_fill(~causal, 0.0)
        o[b] = (scores @ vv[b]) / scores.sum(-1, keepdim=True)
    return o, torch.einsum("bhtd,bhte->bhde", pk, vv), pk.sum(2)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--sources", help="tessel's generated modules (bench/linear_attention.py --emit)")
    p.add_argument("--out", required=True)
    p.add_argument("--no-compile", action="store_true")
    args = p.parse_args()
    rows = []
    for dt in ("f32", "bf16"):
        dtype = {"f32": torch.float32, "bf16": torch.bfloat16}[dt]
        torch.manual_seed(0)
        q, k, v = nonzero(B, H, T, D, dtype=dtype), nonzero(B, H, T, D, dtype=dtype), nonzero(B, H, T, E, dtype=dtype)
        o_ref, s_ref, z_ref = reference(q, k, v)
        row = {"dtype": dt, "B": B, "H": H, "T": T, "D": D, "E": E}

        def err(o, s, z):
            return max(((o.double() - o_ref).abs().max() / o_ref.abs().max()).item(),
                       ((s.double() - s_ref).abs().max() / s_ref.abs().max()).item(),
                       ((z.double() - z_ref).abs().max() / z_ref.abs().max()).item())

        o = torch.empty(B, H, T, E, dtype=dtype, device=q.device)
        S = torch.empty(B, H, D, E, device=q.device)
        Z = torch.empty(B, H, D, device=q.device)
        cases = []
        for bt in (64, 32):
            for warps in (4, 8):
                cases.append((f"chained_T{bt}w{warps}", lambda bt=bt, warps=warps: chained(q, k, v, o, S, Z, bt, warps)))
        cases.append(("twopass_T64", lambda: twopass(q, k, v, o, S, Z, 64)))
        cases.append(("twopass_T64_be16", lambda: twopass(q, k, v, o, S, Z, 64, be=16)))
        if dt == "f32":
            cases.append(("chained_T64w4_tf32", lambda: chained(q, k, v, o, S, Z, 64, 4, "tf32")))
        if args.sources:
            path = pathlib.Path(args.sources) / f"{dt}-T16w4s2.py"
            if path.exists():
                spec = importlib.util.spec_from_file_location(f"_la_{dt}", path)
                mod = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(mod)
                fn = getattr(mod, (pathlib.Path(args.sources) / f"{dt}-T16w4s2.name").read_text())
                cases.append(("tessel_sequential_T16w4s2", lambda fn=fn: fn(q, k, v, o, S, Z)))
        for name, fn in cases:
            try:
                o.fill_(float("nan"))
                fn()
                torch.cuda.synchronize()
                row[name + "_err"] = err(o, S, Z)
                if row[name + "_err"] < {"f32": 5e-3, "bf16": 3e-2}[dt]:
                    row[name + "_ms"] = timed(fn)
            except Exception as ex:
                row[name + "_error"] = f"{type(ex).__name__}: {ex}"[:300]
            print(json.dumps({kk: vv for kk, vv in row.items() if kk.startswith(name)}), flush=True)
        try:
            from fla.ops.linear_attn import chunk_linear_attn
            pq_t = (torch.relu(q) + 1).transpose(1, 2).contiguous()
            pk_t = (torch.relu(k) + 1).transpose(1, 2).contiguous()
            v_t = v.transpose(1, 2).contiguous()

            def fla():
                return chunk_linear_attn(pq_t, pk_t, v_t, scale=1.0, normalize=True, output_final_state=True)

            def fla_plain():
                return chunk_linear_attn(pq_t, pk_t, v_t, scale=1.0, normalize=False, output_final_state=True)
            got, (kv, zs) = fla()
            row["fla_err"] = err(got.transpose(1, 2), kv, zs.reshape(B, H, D))
            row["fla_ms"] = timed(fla)
            fla_plain()
            row["fla_unnormalized_ms"] = timed(fla_plain)
        except Exception as ex:
            row["fla_error"] = f"{type(ex).__name__}: {ex}"[:300]
        if not args.no_compile:
            def cumsum_form(q, k, v):
                pq, pk = torch.relu(q.float()) + 1, torch.relu(k.float()) + 1
                S = torch.cumsum(pk[..., :, None] * v.float()[..., None, :], dim=2)
                z = torch.cumsum(pk, dim=2)
                return ((pq[..., :, None] * S).sum(-2) / (pq * z).sum(-1, keepdim=True)).to(q.dtype), S[:, :, -1], z[:, :, -1]
            try:
                compiled = torch.compile(cumsum_form)
                got = compiled(q, k, v)
                row["torch_compile_err"] = err(*got)
                row["torch_compile_ms"] = timed(lambda: compiled(q, k, v), reps=5, warmup=1)
            except Exception as ex:
                row["torch_compile_error"] = f"{type(ex).__name__}: {ex}"[:300]
        print(json.dumps(row), flush=True)
        rows.append(row)
        pathlib.Path(args.out).write_text(json.dumps({"device": torch.cuda.get_device_name(), "torch": torch.__version__,
                                                      "triton": triton.__version__, "results": rows}, indent=2))


if __name__ == "__main__":
    main()
