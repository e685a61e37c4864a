"""Causal linear attention (issue 16: "B=4 H=16 T=4096 D=E=64, f32 and bf16: >= 1.0x the chunked
Triton kernels of flash-linear-attention and >= 10x torch.compile of the cumsum formulation").

tessel: examples/linear_attention.py's region scan (f32) and the same scan written for bf16 inputs
(below: the user rounds the state and the masked scores to bf16 for the tensor-core products, as
flash-linear-attention does), constructed in the chunked form (state carried across BLOCK_T tiles).
Peers, in one process, correctness checked first against a float64 reference:
  * fla: `fla.ops.linear_attn.chunk_linear_attn(phi(q), phi(k), v, scale=1, normalize=True,
    output_final_state=True)` on its native [B, T, H, D] layout, the feature map applied beforehand
    (not timed): its chunked Triton kernels plus its normalization;
  * torch.compile of the cumsum formulation (S_t = cumsum(phi(k) v^T), z_t = cumsum(phi(k))).
Times: median of CUDA-event timings (run_bench.timed).

    TESSEL_BIN=build/bin/tessel PYTHONPATH=python:examples:bench python3 bench/linear_attention.py
    ... --dtypes f32,f32_tf32,f32_tf32x3 --peers-for f32   (the explicit operand precisions, beside f32's peers)
On a machine without the compiler: `--emit DIR` here writes the generated Triton modules (one per
binding), and `--sources DIR` there loads them instead of compiling. `--defaults` prints what an untuned
call binds at the shape (Kernel.call_defaults on meta tensors: no device needed); the `defaults` rows
time exactly that binding.
"""
import argparse
import datetime
import importlib.util
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]
SHAPE = dict(B=4, H=16, T=4096, D=64, E=64)
# Bindings timed besides the defaults: the realization (SCAN_CHAIN: 0 = one program walks the
# segments, 1 = one program per segment, pgpu-chain-scans), the tile length, warps and stages.
# (H200, 2026-12-01, ordered: BLOCK_T=16 with 4 warps fastest in f32. Hand-written chained forms,
# lab/experiments/linear_attention_session9: bf16 fastest at 64-row segments and 4 warps, f32
# with IEEE products at 32 rows and 8 warps.)
CONFIGS = [dict(SCAN_CHAIN=c, BLOCK_T=bt, WARPS=w, STAGES=st)
           for c, bt, w, st in ((1, 16, 4, 2), (2, 16, 4, 2), (2, 32, 4, 2), (2, 32, 8, 2), (2, 64, 4, 2), (2, 64, 8, 2))]


# f32 variants with an explicit operand precision (T.contract's precision=, KIR_ContractPrecision) on
# the scan's four [rows x cols] contractions: "tf32" rounds every operand to TF32 (to nearest, ties
# away; fla's f32 path feeds f32 to TF32 tensor cores too), "tf32x3" splits each into two TF32 parts
# (three TF32 products, about f32's accuracy). The matvec of the normalizer stays IEEE.
PRECISION_VARIANTS = {"f32_tf32": "tf32", "f32_tf32x3": "tf32x3"}


def kernel_for(dtype_name):
    """The region scan of examples/linear_attention.py for inputs of `dtype_name` (f32 or bf16), or the
    f32 scan with an explicit operand precision (PRECISION_VARIANTS: f32_tf32, f32_tf32x3)."""
    import tessel
    import tessel.language as T
    if dtype_name in PRECISION_VARIANTS:
        return _precision_kernel(PRECISION_VARIANTS[dtype_name])
    if dtype_name == "f32":  # the example itself (loaded by path: this file has its name)
        spec = importlib.util.spec_from_file_location("_example_linear_attention",
                                                      ROOT / "examples" / "linear_attention.py")
        example = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(example)
        return example.linear_attention
    dt = getattr(T, dtype_name)

    def phi(x):
        return T.relu(x) + 1.0

    @tessel.fn
    def summarize(pk, v, pq, t):
        return T.contract(pk, v, reduce=((0, 0),), acc_dtype=T.f32), T.sum(T.cast(pk, T.f32), axis=0)

    @tessel.fn
    def emit(pk, v, pq, t, s, z):
        scores = T.contract(pq, pk, reduce=((1, 1),), acc_dtype=T.f32)
        t_query = T.broadcast_to(t, scores, dims=[0])
        t_key = T.broadcast_to(t, scores, dims=[1])
        causal = T.where(t_key <= t_query, scores, 0.0)
        num = T.matmul(pq, T.cast(s, dt), acc_dtype=T.f32) + T.matmul(T.cast(causal, dt), v, acc_dtype=T.f32)
        den = T.matvec(T.cast(pq, T.f32), z, acc_dtype=T.f32) + T.sum(causal, axis=1)
        return num / den

    return _scan_kernel(f"linear_attention_{dtype_name}", dt, phi, summarize, emit)


def _scan_kernel(name, dt, phi, summarize, emit):
    """The causal linear attention kernel of examples/linear_attention.py (one region scan per (b, h):
    the state S = sum phi(k) v^T and z = sum phi(k), combined and applied by addition) over inputs of
    `dt`, with its feature map, summarizer and per-tile output given (the variants below)."""
    import tessel
    import tessel.language as T

    @tessel.fn
    def add_pairs(s1, z1, s2, z2):
        return s1 + s2, z1 + z2

    @tessel.kernel(name=name)
    def kernel(Q: T.In[dt, ("B", "H", "T", "D")], K: T.In[dt, ("B", "H", "T", "D")],
               V: T.In[dt, ("B", "H", "T", "E")], O: T.Out[dt, ("B", "H", "T", "E")],
               S_OUT: T.Out[T.f32, ("B", "H", "D", "E")], Z_OUT: T.Out[T.f32, ("B", "H", "D")]):
        nb, nh, nt, nd = Q.shape
        time, dk, dv = T.domain(0, nt), T.domain(0, nd), T.domain(0, V.shape[3])
        s0, z0 = T.zeros((dk, dv)), T.zeros(dk)
        for b, h in T.parallel(T.domain(0, nb), T.domain(0, nh)):
            pq, pk = phi(Q[b, h, time, dk]), phi(K[b, h, time, dk])
            (o,), (s, z) = T.region_scan(
                sources=(pk, V[b, h, time, dv], pq, T.indices(time)), axis=0,
                identity=(s0, z0), init=(s0, z0),
                summarize=summarize, combine=add_pairs, apply=add_pairs, emit=emit)
            O[b, h, time, dv] = o if dt == T.f32 else T.cast(o, dt)
            S_OUT[b, h, dk, dv] = s
            Z_OUT[b, h, dk] = z
    return kernel


def _precision_kernel(precision, normalizer_precision="ieee"):
    """examples/linear_attention.py with `precision=` on its matrix contractions (and
    `normalizer_precision` on the matvec of the normalizer)."""
    import tessel
    import tessel.language as T

    def phi(x):
        return T.relu(x) + 1.0

    @tessel.fn
    def summarize(pk, v, pq, t):
        return T.contract(pk, v, reduce=((0, 0),), acc_dtype=T.f32, precision=precision), T.sum(pk, axis=0)

    @tessel.fn
    def emit(pk, v, pq, t, s, z):
        scores = T.contract(pq, pk, reduce=((1, 1),), acc_dtype=T.f32, precision=precision)
        t_query = T.broadcast_to(t, scores, dims=[0])
        t_key = T.broadcast_to(t, scores, dims=[1])
        causal = T.where(t_key <= t_query, scores, 0.0)
        num = (T.matmul(pq, s, acc_dtype=T.f32, precision=precision)
               + T.matmul(causal, v, acc_dtype=T.f32, precision=precision))
        den = T.matvec(pq, z, acc_dtype=T.f32, precision=normalizer_precision) + T.sum(causal, axis=1)
        return num / den

    suffix = "" if normalizer_precision == "ieee" else f"_{normalizer_precision}"

    return _scan_kernel(f"linear_attention_f32_{precision}{suffix}", T.f32, phi, summarize, emit)


def call_defaults(dt, tensors=None):
    """What an untuned call of `dt`'s kernel binds (Kernel.call_defaults) on `tensors` (q, k, v, o, S,
    Z), or at SHAPE on meta tensors (no device: the 132 multiprocessors of the H200)."""
    if tensors is None:
        import torch
        dtype = torch.bfloat16 if dt == "bf16" else torch.float32
        B, H, T, D, E = (SHAPE[k] for k in "BHTDE")
        q, v = (torch.empty(B, H, T, n, dtype=dtype, device="meta") for n in (D, E))
        tensors = (q, q, v, v, torch.empty(B, H, D, E, device="meta"), torch.empty(B, H, D, device="meta"))
    return kernel_for(dt).call_defaults(*tensors)


def bindings(defaults):
    """(tag, params): `defaults` (what an untuned call binds: `call_defaults`), then CONFIGS at
    D = E = 64 (BLOCK_D and BLOCK_E cover them)."""
    base = {"BLOCK_D": SHAPE["D"], "BLOCK_E": SHAPE["E"]}
    yield "defaults", defaults
    for c in CONFIGS:
        yield "C{SCAN_CHAIN}T{BLOCK_T}w{WARPS}s{STAGES}".format(**c), {**base, **c}


def emit_sources(out):
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for dt in ("f32", "bf16", *PRECISION_VARIANTS):
        k = kernel_for(dt)
        for tag, params in bindings(call_defaults(dt)):
            (out / f"{dt}-{tag}.py").write_text(k.source("triton", {}, params))
            (out / f"{dt}-{tag}.name").write_text(k.name)
    print(f"wrote {len(list(out.glob('*.py')))} modules to {out}")


def launcher(dt, tag, params, sources):
    if sources is None:
        return kernel_for(dt)._launcher({}, params)
    path = pathlib.Path(sources) / f"{dt}-{tag}.py"
    spec = importlib.util.spec_from_file_location(f"_la_{dt}_{tag}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, (pathlib.Path(sources) / f"{dt}-{tag}.name").read_text())


def reference(q, k, v):
    """float64 O, S_T, z_T, one (b, h) block of heads at a time (the [T, T] scores in float64)."""
    import torch
    pq, pk, vv = (torch.relu(q.double()) + 1), (torch.relu(k.double()) + 1), v.double()
    T = q.shape[2]
    causal = torch.ones(T, T, dtype=torch.bool, device=q.device).tril()
    o = torch.empty(vv.shape, dtype=torch.float64, device=q.device)
    for b in range(q.shape[0]):
        scores = (pq[b] @ pk[b].transpose(-1, -2)).masked_fill(~causal, 0.0)
        o[b] = (scores @ vv[b]) / scores.sum(-1, keepdim=True)
    S = torch.einsum("bhtd,bhte->bhde", pk, vv)
    z = pk.sum(2)
    return o, S, z


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(ROOT / "lab" / "results"))
    parser.add_argument("--emit", help="write the generated Triton modules to this folder and stop")
    parser.add_argument("--sources", help="load the generated modules from this folder (written by --emit)")
    parser.add_argument("--dtypes", default="f32,bf16",
                        help="f32, bf16, f32_tf32, f32_tf32x3 (f32 inputs with that operand precision)")
    parser.add_argument("--no-fla", action="store_true")
    parser.add_argument("--tag", default="linear-attention", help="the results file's name after the date")
    parser.add_argument("--peers-for", default="f32,bf16", help="dtypes whose peers are timed too")
    parser.add_argument("--defaults", action="store_true",
                        help="print what an untuned call of each of --dtypes binds at the shape (no device) and stop")
    args = parser.parse_args()
    if args.defaults:
        for dt in args.dtypes.split(","):
            print(json.dumps({"dtype": dt, **SHAPE, "call_defaults": call_defaults(dt)}))
        return
    if args.emit:
        emit_sources(args.emit)
        return
    import torch
    from run_bench import nonzero, timed
    rows = []
    B, H, T, D, E = (SHAPE[k] for k in "BHTDE")
    for dt in args.dtypes.split(","):
        base = "f32" if dt in PRECISION_VARIANTS else dt
        dtype = {"f32": torch.float32, "bf16": torch.bfloat16}[base]
        torch.manual_seed(0)
        q, k, v = nonzero(B, H, T, D, dtype=dtype), nonzero(B, H, T, D, dtype=dtype), nonzero(B, H, T, E, dtype=dtype)
        o_ref, s_ref, z_ref = reference(q, k, v)
        # Error relative to the largest |O| (and |S|, |z|). tessel f32: reassociated f32 sums; bf16: the
        # state and masked scores rounded to bf16 by the kernel's author. Peers: fla's f32 products are
        # TF32 (about 1e-3) and its bf16 key sums bf16.
        # f32_tf32: TF32 operands (11 significant bits, rounded to nearest), fla's class of error;
        # f32_tf32x3: about f32's.
        tol = {"f32": 2e-4, "bf16": 2e-2, "f32_tf32": 5e-3, "f32_tf32x3": 2e-4}[dt]
        # (bf16: phi(k) = relu(k) + 1 is rounded to bf16 before it is summed into the state.)
        state_tol = {"f32": 1e-4, "bf16": 1e-2, "f32_tf32": 5e-3, "f32_tf32x3": 1e-4}[dt]
        peer_tol = {"f32": 5e-3, "bf16": 2e-2}[base]
        row = {"dtype": dt, **({"precision": PRECISION_VARIANTS[dt]} if dt in PRECISION_VARIANTS else {}), **SHAPE}

        def check(name, o, s=None, z=None, peer=False):
            err = ((o.double() - o_ref).abs().max() / o_ref.abs().max()).item()
            row[name + "_rel_err"] = err
            ok = err < (peer_tol if peer else tol)
            if s is not None:
                serr = max(((s.double() - s_ref).abs().max() / s_ref.abs().max()).item(),
                           ((z.double() - z_ref).abs().max() / z_ref.abs().max()).item())
                row[name + "_state_rel_err"] = serr
                ok &= serr < (peer_tol if peer else state_tol)
            return ok

        o = torch.empty(B, H, T, E, dtype=dtype, device="cuda")
        S = torch.empty(B, H, D, E, device="cuda")
        Z = torch.empty(B, H, D, device="cuda")
        best = None
        # (--sources: the modules emitted with the defaults at SHAPE on meta tensors, no compiler here)
        defaults = call_defaults(dt, (q, k, v, o, S, Z)) if args.sources is None else None
        if defaults is not None:
            row["tessel_defaults_params"] = defaults
        for tag, params in bindings(defaults):
            name = f"tessel_{tag}"
            try:
                fn = launcher(dt, tag, params, args.sources)
                o.fill_(float("nan"))
                fn(q, k, v, o, S, Z)
                torch.cuda.synchronize()
                if check(name, o, S, Z):
                    row[name + "_ms"] = timed(lambda: fn(q, k, v, o, S, Z))
                    if best is None or row[name + "_ms"] < row[best + "_ms"]:
                        best = name
            except Exception as e:  # a binding past a resource limit
                row[name + "_error"] = f"{type(e).__name__}: {e}"[:300]
            print(json.dumps({k2: v2 for k2, v2 in row.items() if k2.startswith(name)}), flush=True)
        row["tessel_best"] = best

        def cumsum_form(q, k, v):
            pq, pk = torch.relu(q.float()) + 1, torch.relu(k.float()) + 1
            S = torch.cumsum(pk[..., :, None] * v.float()[..., None, :], dim=2)
            z = torch.cumsum(pk, dim=2)
            num = (pq[..., :, None] * S).sum(-2)
            den = (pq * z).sum(-1, keepdim=True)
            return (num / den).to(q.dtype), S[:, :, -1], z[:, :, -1]

        compiled = torch.compile(cumsum_form)
        if dt not in args.peers_for.split(","):
            compiled, args_no_fla = None, True
        else:
            args_no_fla = args.no_fla
        try:
            got = compiled(q, k, v) if compiled else None
            if got is not None and check("torch_compile", got[0], got[1], got[2], peer=True):
                row["torch_compile_ms"] = timed(lambda: compiled(q, k, v), reps=5, warmup=1)
        except Exception as e:
            row["torch_compile_error"] = f"{type(e).__name__}: {e}"[:300]
        if not args_no_fla:
            try:
                from fla.ops.linear_attn import chunk_linear_attn
                pq_t = (torch.relu(q) + 1).transpose(1, 2).contiguous()
                pk_t = (torch.relu(k) + 1).transpose(1, 2).contiguous()
                v_t = v.transpose(1, 2).contiguous()

                def fla():
                    return chunk_linear_attn(pq_t, pk_t, v_t, scale=1.0, normalize=True, output_final_state=True)
                got, (kv, zs) = fla()
                if check("fla", got.transpose(1, 2), kv, zs.reshape(B, H, D), peer=True):
                    row["fla_ms"] = timed(fla)

                def fla_plain():  # the unnormalized chunked kernels alone (a lower bound of its cost)
                    return chunk_linear_attn(pq_t, pk_t, v_t, scale=1.0, normalize=False, output_final_state=True)
                fla_plain()
                row["fla_unnormalized_ms"] = timed(fla_plain)
            except Exception as e:
                row["fla_error"] = f"{type(e).__name__}: {e}"[:300]
        # A precision variant's inputs are the f32 row's (same seed): its peers are those, measured
        # once; their times and errors are copied beside its own (same inputs, same float64 reference).
        earlier = next((r for r in rows if r["dtype"] == base), None)
        if dt != base and earlier is not None:
            for key in ("fla_ms", "fla_rel_err", "fla_state_rel_err", "fla_unnormalized_ms", "torch_compile_ms",
                        "torch_compile_rel_err", "torch_compile_state_rel_err"):
                if key in earlier and key not in row:
                    row[key] = earlier[key]
        if best:
            t = row[best + "_ms"]
            for peer in ("fla", "fla_unnormalized", "torch_compile"):
                if peer + "_ms" in row:
                    row[f"vs_{peer}"] = row[peer + "_ms"] / t
        print(json.dumps(row), flush=True)
        rows.append(row)
        write(args.out, args.tag, rows)  # after each dtype: a run cut short keeps what it measured


def write(out, tag, rows):
    import torch
    doc = {"date": datetime.date.today().isoformat(), "device": torch.cuda.get_device_name(),
           "torch": torch.__version__, "shape": SHAPE, "results": rows,
           "timing": "median of 20 CUDA-event timings after 3 warm-up calls (torch.compile: 5 after 1); "
                     "correctness checked first against float64; ratio = peer time / best tessel time"}
    from run_bench import write_results
    write_results(doc, out, tag, quiet=True)


if __name__ == "__main__":
    main()
