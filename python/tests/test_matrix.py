"""The differential matrix (issue 19): every suite kernel x shapes x parameter bindings x pass groups x
providers agrees with the KIR interpreter.

Kernels: every kernel of examples/kir and every DSL example with each of its constexpr variants
(test_dsl.ALL). Per kernel and seed, shapes are drawn from 0 (where the KIR interpreter accepts it),
1, 2, primes, block sizes +-1 and non-multiples of every tile; per shape, parameter bindings from the
domains the program declares (smallest, largest that fits the shape -- in CI within M.LARGEST_WORK lanes,
see M.capped_largest --, random; in CI the random ones at the final program only, and through Triton not at
the degenerate shapes, M.degenerate, which the pgpu interpreter runs at the final program only). The program after every pass group of the registered pipeline
(`tessel groups`, `tessel-opt --tessel-pipeline=stop-after=G`) runs on the pgpu interpreter in shuffled
program order (random segmentations for region folds and scans) and must compute what the KIR interpreter
computes; kernels the Triton provider accepts also run through Triton under TRITON_INTERPRET=1. A failure
is shrunk to the smallest failing kernel, shape, binding and group, printed with the commands that
reproduce it.

Fixed seeds always run, plus one drawn per session (TESSEL_MATRIX_SEED=N replays it);
TESSEL_MATRIX_DEEP=1 runs the deep budget (more seeds, shapes, bindings, larger extents);
TESSEL_MATRIX_TIMES=FILE appends one line per pgpu-interpreter run (seconds, case, verdict), so a long
deep run shows its progress and what agreed so far.
"""
import importlib.util
import os
import random
import re

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by a generated module

import matrix_lib as M  # noqa: E402

# Known wrong results the matrix found, (kernel id, provider) -> reason; strict, so a fix shows up.
KNOWN = {}


IDS = M.suite_ids()


def _params(provider, part=0):
    """The cases of kernels IDS[part::2]: this file runs the even positions, test_matrix_b.py the odd ones
    (two files, so that --dist loadfile spreads the matrix over CI's two workers)."""
    out = []
    for mode in ("ci", "deep"):
        for kid in IDS[part::2]:
            marks = []
            if mode == "deep" and not M.DEEP:
                marks.append(pytest.mark.skip(reason="deep mode: set TESSEL_MATRIX_DEEP=1"))
            if mode == "ci" and M.DEEP:
                marks.append(pytest.mark.skip(reason="TESSEL_MATRIX_DEEP=1 runs the deep budget instead"))
            if (kid, provider) in KNOWN:
                marks.append(pytest.mark.xfail(strict=True, reason=KNOWN[(kid, provider)]))
            out.append(pytest.param(mode, kid, marks=marks, id=f"{mode}-{kid}"))
    return out


@pytest.fixture(scope="session")
def suite(tessel_bin):
    kernels = M.suite_kernels(M.BUILD / "matrix" / "kir")
    return {k.id: k for k in kernels}


def _safe(kid):
    return re.sub(r"[^\w=,.-]", "_", kid)


def _shapes(kernel, refs, rng, budget, seed, triton=False):
    """The shapes seed `seed` draws (M.shape_count) that the KIR interpreter accepts: a fixed seed's begin
    with the edges (all ones; a 0 where that is legal; the innermost extent one block past a block, +-1),
    then free draws; each with the seed of its random inputs."""
    count, edges = M.shape_count(budget, seed, triton)
    work = budget.triton_work if triton else budget.work
    shapes, tries = [], 0
    while len(shapes) < count and tries < 4 * count:
        i, tries = len(shapes) if edges else 3, tries + 1
        cap = int(work * M.WORK_SHARE.get(kernel.example, 1))
        shape = M.draw_shape(rng, kernel.extents, cap, zero=(i == 1 and tries <= 2), ones=(i == 0),
                             past_block=kernel.innermost if i == 2 else ())
        seed = rng.randrange(1 << 16)
        if (shape, seed) in shapes:
            continue
        if refs.get(kernel, shape, seed) is not None:
            shapes.append((shape, seed))
    return shapes


def _programs(kernel, mode):
    progs = M.programs(kernel, M.BUILD / "matrix" / "programs" / mode / _safe(kernel.id))
    rejected = next((p for p in progs if p.path is None), None)
    if rejected and rejected.group == M.groups()[-1] and kernel.example in M.TRITON_REJECTED:
        # Triton legalization rejects it: every group before legalization is still checked.
        M.STATS["rejected"][kernel.id] = f"at {rejected.group}: {M.TRITON_REJECTED[kernel.example]}"
        return [p for p in progs if p.path is not None]
    if kernel.example in M.REJECTED:
        if rejected:
            M.STATS["rejected"][kernel.id] = f"at {rejected.group}: {M.REJECTED[kernel.example]}"
            pytest.xfail(f"expected rejection at {rejected.group}: {M.REJECTED[kernel.example]}")
        print(f"note: {kernel.id} compiles now; remove '{kernel.example}' from matrix_lib.REJECTED")
    elif rejected:
        pytest.fail(f"{kernel.id} is rejected at group {rejected.group}:\n{rejected.error}")
    return progs


@pytest.mark.parametrize("mode,kid", _params("interp"))
def test_every_group_agrees_with_kir(mode, kid, suite, tmp_path):
    kernel = suite[kid]
    budget = M.DEEP_BUDGET if mode == "deep" else M.CI
    progs = _programs(kernel, mode)
    params = {}
    for p in progs:
        params.update(p.params)
    refs = M.Reference(tmp_path)
    final = progs[-1].same_as or progs[-1].group  # the group whose runs are the final program's
    cases, cells, shapes_seen, bindings_seen = {}, 0, 0, 1 << 30
    for seed in M.seeds(budget):
        rng = random.Random(f"{seed}/{kid}")
        shapes = _shapes(kernel, refs, rng, budget, seed)
        shapes_seen += len(shapes)
        for shape, input_seed in shapes:
            bindings = M.draw_bindings(rng, params, shape, deep=mode == "deep", cap=budget.largest_work)
            bindings_seen = min(bindings_seen, len(bindings)) if params else bindings_seen
            fixed = len(M.fixed_bindings(params, shape, budget.largest_work))
            edge = M.degenerate(shape)
            for p in progs:
                for i, b in enumerate(bindings):
                    cells += 1
                    if p.same_as:  # the group left the program as it was: the runs are those of p.same_as
                        continue
                    # CI: the random bindings at the final program only (whose runs check every group's
                    # rewrite at once); each group's own program at the smallest and the largest that fits.
                    if budget.random_final_only and i >= fixed and p.group != final:
                        continue
                    # CI: the degenerate shapes (all ones, an empty extent; M.degenerate) at the final program
                    # only, where a wrong result would reach a user; every group's in the deep tier.
                    if budget.edges_final_only and edge and p.group != final:
                        continue
                    bound = {k: v for k, v in b.items() if k in p.params}
                    # A later group may widen a parameter's domain (pgpu-pack-rows' narrow BLOCKs): a value
                    # outside this program's own domain is not a binding of it.
                    if any(v not in M.Param(*p.params[k]).candidates for k, v in bound.items()):
                        continue
                    case = M.Case(kernel, shape, input_seed, p.group, p.path, bound)
                    cases.setdefault(case.key(), case)
    results = M.parallel(lambda c: (c, M.check_case(c, refs)), list(cases.values()))
    with M.STATS_LOCK:
        M.STATS["kernels"].add(kid)
        M.STATS["seeds"].update(M.seeds(budget))
        M.STATS["shapes"] = max(M.STATS["shapes"], shapes_seen)
        if params:  # the fewest bindings any shape of any kernel with parameters got
            M.STATS["bindings"] = min(M.STATS["bindings"] or bindings_seen, bindings_seen)
        M.STATS["cells"] += cells
        M.STATS["runs"] += len(cases) + len(refs.cache)
    failures = [(c, why) for c, why in results if why]
    if failures:
        first = min(failures, key=lambda f: (np.prod(list(f[0].shape.values())), [p.group for p in progs].index(f[0].group)))
        if first[1].startswith(M.TIMED_OUT):  # not shrunk: every try could take as long
            small, why, spent = first[0], first[1], 0
        else:
            small, why, spent = M.shrink(first[0], progs, refs, budget.shrink_runs)
        groups = sorted({c.group for c, _ in failures}, key=[p.group for p in progs].index)
        pytest.fail(f"{kid}: {len(failures)} of {len(cases)} runs disagree with the KIR interpreter "
                    f"(groups: {', '.join(groups)}).\nsmallest failing case after {spent} shrinking runs: "
                    f"kernel {kid} (@{kernel.name}), shape {M.shape_text(small.shape)}, binding "
                    f"{small.binding or '{}'}, group {small.group}, input seed {small.seed}:\n  {why}\n"
                    f"reproduce:\n{M.reproducer(small)}", pytrace=False)


# --- Triton under TRITON_INTERPRET=1 -------------------------------------------------------------

def _triton_params(part=0):
    out = []
    for p in _params("triton", part):
        mode, kid = p.values
        name = re.match(r"\w+/(\w+)", kid).group(1)
        example = M.KIR_EXAMPLE.get(name, name)
        marks = list(p.marks)
        if example in M.TRITON_SKIPPED:
            marks.append(pytest.mark.skip(reason=f"not through Triton here: {M.TRITON_SKIPPED[example]}"))
        out.append(pytest.param(mode, kid, marks=marks, id=p.id))
    return out


def _load(kernel, source, tmp_path):
    """The generated module's launcher (one per binding: the source does not depend on the shape)."""
    path = tmp_path / f"{kernel.name}_{abs(hash(source)) % 10**8}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(f"_tessel_matrix_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, kernel.name)


def _launch(kernel, launcher, inputs, want):
    torch = pytest.importorskip("torch")
    args, outs = [], {}
    for v in kernel.views:
        bf16 = v.dtype == "bf16"
        if v.name in inputs:
            t = torch.from_numpy(np.array(inputs[v.name]))
        else:
            t = torch.from_numpy(np.empty(want[v.name].shape, want[v.name].dtype))
        t = t.to(torch.bfloat16) if bf16 else t
        args.append(t)
        if v.mode != "in":
            outs[v.name] = t
    scalars = {k: (float(v) if "." in v or "e" in v else int(v)) for k, v in kernel.scalars.items()}
    launcher(*args, **scalars)
    return {k: (t.float() if t.dtype == torch.bfloat16 else t).numpy() for k, t in outs.items()}


@pytest.mark.parametrize("mode,kid", _triton_params())
def test_triton_agrees_with_kir(mode, kid, suite, tmp_path, monkeypatch):
    kernel = suite[kid]
    monkeypatch.setenv("TESSEL_CACHE", str(tmp_path / "cache"))
    budget = M.DEEP_BUDGET if mode == "deep" else M.CI
    last = M.programs(kernel, tmp_path / "programs", only=M.groups()[-1])[-1]
    expected = M.REJECTED.get(kernel.example) or M.TRITON_REJECTED.get(kernel.example)
    if last.path is None and expected:
        pytest.xfail(f"expected rejection: {expected}")
    if last.path is None:
        pytest.fail(f"{kid} is rejected at {last.group}:\n{last.error}")
    if expected:
        print(f"note: {kid} reaches Triton now; remove '{kernel.example}' from its rejection list")
    refs = M.Reference(tmp_path)
    launches, launchers = 0, {}
    for seed in M.seeds(budget):
        rng = random.Random(f"triton/{seed}/{kid}")
        shapes = _shapes(kernel, refs, rng, budget, seed, triton=True)
        for shape, input_seed in shapes:
            want, inputs = refs.get(kernel, shape, input_seed)
            bindings = M.draw_bindings(rng, last.params, shape, deep=mode == "deep", cap=budget.largest_work)
            if not budget.random_at_edges and M.degenerate(shape):  # the draws kept, the random ones not run
                bindings = bindings[:len(M.fixed_bindings(last.params, shape, budget.largest_work))]
            for b in bindings:  # smallest, largest that fits, random
                cmd = [M.TESSEL, "compile", kernel.target, "--emit=source", "--target=triton",
                       *[f"--param={k}={v}" for k, v in b.items()]]
                key = tuple(sorted(b.items()))
                if key not in launchers:
                    res = M.run(cmd)
                    assert res.returncode == 0, f"{M.shell(cmd)}\n{res.stderr}"
                    launchers[key] = _load(kernel, res.stdout, tmp_path)
                got = _launch(kernel, launchers[key], inputs, want)
                launches += 1
                _agree(kernel, "Triton (TRITON_INTERPRET=1)", got, want, shape, b, input_seed, cmd)
    _count(budget, "triton", kid, launches)


def _agree(kernel, provider, got, want, shape, binding, input_seed, cmd):
    """A provider's outputs agree with the KIR interpreter's, else the failure with its reproducer."""
    why = M.compare(kernel, got, want)
    assert why is None, (f"{kernel.id} through {provider}, shape {M.shape_text(shape)}, binding {binding}, input "
                         f"seed {input_seed}: {why}\nreproduce:\n  {M.shell(cmd)}\n  "
                         f"{M.shell(M.kir_command(kernel, shape, input_seed, '/tmp/matrix-kir'))}")


def _count(budget, provider, kid, launches):
    with M.STATS_LOCK:
        M.STATS["seeds"].update(M.seeds(budget))
        M.STATS[f"{provider}_kernels"].add(kid)
        M.STATS[f"{provider}_runs"] += launches


def test_groups_come_from_the_compiler(tessel_bin):
    """The matrix's groups are the registered pipeline's, and every stop point yields a program."""
    groups = M.groups()
    assert groups[0] == "annotate-origins" and groups[-1] == "triton-legalize", groups
    assert len(groups) == len(set(groups))
    res = M.run([M.TESSEL_OPT, M.EXAMPLES / "kir" / "softmax.mlir", "--tessel-pipeline=stop-after=nonesuch"])
    assert res.returncode != 0 and "no pass group 'nonesuch'" in res.stderr, res.stderr


def test_draws_are_seeded_and_cover_the_edges():
    """Same seed, same draws; the draws include 1, 0, and extents past a 64-lane block."""
    a = [M.draw_shape(random.Random("7/x"), ["M", "N"], 4096) for _ in range(3)]
    b = [M.draw_shape(random.Random("7/x"), ["M", "N"], 4096) for _ in range(3)]
    assert a == b
    rng = random.Random(0)
    seen = [M.draw_shape(rng, ["M", "N"], 4096, zero=i % 5 == 1, ones=i % 5 == 0) for i in range(200)]
    assert {"M": 1, "N": 1} in seen and any(0 in s.values() for s in seen)
    assert any(s["N"] in (63, 65, 127, 129) for s in seen)
    assert all(np.prod(list(s.values())) <= 4096 for s in seen)
    pinned = [M.draw_shape(rng, ["M", "N"], 1024, past_block=["N"]) for _ in range(20)]
    assert all(s["N"] in M.PAST_A_BLOCK and s["M"] * s["N"] <= 1024 for s in pinned)
    params = {"BLOCK": ([64, 128, 256, 512], 512), "TILE_K": ([16, 32, 64], 32)}
    binds = M.draw_bindings(random.Random(1), params, {"M": 3, "N": 100})
    assert binds[0] == {"BLOCK": 64, "TILE_K": 16}
    assert binds[1] == {"BLOCK": 128, "TILE_K": 64}  # the largest that fits N = 100
    assert len(binds) >= 2


def test_largest_that_fits_covers_each_parameters_own_extent():
    """A parameter whose declaration `covers` a shape symbol fits that extent, not the shape's largest:
    linear attention at H = 257 drew BLOCK_D = BLOCK_E = 256 for D = 3, E = 20 (a 256^3 binding past the
    run limit). A tile whose axis the declaration does not name still fits the largest extent."""
    header = ('pgpu.kernel @la(%q: !pgpu.view<f32, [B, H, T, D], in>) attributes {params = ['
              '#pgpu.param<"BLOCK", [64, 128, 256, 512], 512>, '
              '#pgpu.param<"BLOCK_D", [16, 32, 64, 128, 256], 128, covers = "D">, '
              '#pgpu.param<"BLOCK_E", [16, 32, 64, 128, 256], 128, covers = "E">, '
              '#pgpu.param<"BLOCK_T", [16, 32, 64, 128, 256], 64>, '
              '#pgpu.param<"num_warps", [1, 2, 4, 8], 4, provider = "triton">]} {')
    params = M.declared_params(header, "la")
    assert params["BLOCK_D"] == M.Param([16, 32, 64, 128, 256], 128, "D")
    assert params["BLOCK_T"].covers is None and params["num_warps"] == M.Param([1, 2, 4, 8], 4, None)
    shape = {"B": 1, "H": 257, "T": 2, "D": 3, "E": 20}
    binds = M.draw_bindings(random.Random(0), params, shape)
    assert binds[1] == {"BLOCK": 512, "BLOCK_D": 16, "BLOCK_E": 32, "BLOCK_T": 256, "num_warps": 8}
    assert M.fits(params["BLOCK_E"], shape) == [16, 32]
    # A covered symbol of size 0 still takes the smallest candidate; one the shape lacks, the largest extent.
    assert M.fits(params["BLOCK_D"], {**shape, "D": 0}) == [16]
    assert M.fits(M.Param([16, 32, 64], 16, "K"), {"N": 40}) == [16, 32, 64]


def test_ci_caps_the_largest_binding():
    """In CI the largest binding that fits stays within LARGEST_WORK lanes (16 times the smallest's where that
    is more): the parameters that cover no extent step down first, one that covers its extent keeps its one
    block over it. linear attention at T = 1, D = 193 drew BLOCK_T = BLOCK = 256 (20 s a pgpu run). The deep
    tier draws it uncapped; a largest binding within the cap, and the random draws, are unchanged."""
    tiles = [16, 32, 64, 128, 256]
    params = {"BLOCK": ([64, 128, 256, 512], 64), "BLOCK_D": (tiles, 64, "D"), "BLOCK_E": (tiles, 64, "E"),
              "BLOCK_T": (tiles, 64), "num_warps": ([1, 2, 4, 8], 4)}
    shape = {"B": 1, "H": 2, "T": 1, "D": 193, "E": 1}
    capped = M.draw_bindings(random.Random(5), params, shape, cap=M.LARGEST_WORK)
    full = M.draw_bindings(random.Random(5), params, shape)
    assert full[1] == {"BLOCK": 256, "BLOCK_D": 256, "BLOCK_E": 16, "BLOCK_T": 256, "num_warps": 8}
    assert capped[1]["BLOCK_D"] == 256 and capped[1]["BLOCK_E"] == 16
    assert M._work(capped[1]) <= max(M.LARGEST_WORK, 16 * M._work(capped[0])) < M._work(full[1])
    assert capped[0] == full[0] and capped[2:] == full[2:]
    small = {"B": 1, "H": 2, "T": 2, "D": 3, "E": 5}  # within the cap: as drawn
    assert M.draw_bindings(random.Random(5), params, small, cap=M.LARGEST_WORK) == \
        M.draw_bindings(random.Random(5), params, small)


def test_degenerate_shapes_are_all_ones_or_empty():
    """CI's Triton runs launch only the fixed bindings at these (M.degenerate); a shape with one extent past
    1 is not one."""
    assert M.degenerate({"M": 1, "N": 1}) and M.degenerate({"M": 37, "N": 0}) and M.degenerate({})
    assert not M.degenerate({"M": 1, "N": 2}) and not M.degenerate({"M": 129})


def test_random_bindings_keep_the_interpreter_quick():
    """Random draws stay under RANDOM_WORK lanes over their three largest parameters; the smallest and
    the largest that fits are drawn whatever they cost."""
    tiles = [16, 32, 64, 128, 256]
    params = {"BLOCK_T": (tiles, 64), "BLOCK_D": (tiles, 64), "BLOCK_E": (tiles, 64), "BLOCK": ([64, 256], 64)}
    rng = random.Random(3)
    for _ in range(50):
        binds = M.draw_bindings(rng, params, {"T": 2, "D": 193}, deep=True)
        assert binds[1] == {"BLOCK_T": 256, "BLOCK_D": 256, "BLOCK_E": 256, "BLOCK": 256}  # largest that fits
        assert all(np.prod(sorted(b.values())[-3:]) <= M.RANDOM_WORK for b in binds[2:])
        assert len(binds) >= 3
    # Past the cap at its smallest (histogram's 1024 x 64 x 32): up to 16 times that.
    params = {"BLOCK_P": ([1024, 4096], 1024), "BLOCK": (tiles, 64), "HBINS": ([32, 64, 128, 256], 32)}
    for _ in range(50):
        binds = M.draw_bindings(rng, params, {"N": 1, "B": 1})
        assert len(binds) >= 3 and all(np.prod(list(b.values())) <= 16 * 1024 * 16 * 32 for b in binds)


def test_a_run_past_its_time_limit_fails_as_timed_out(suite, tmp_path, monkeypatch):
    """A run the interpreter does not finish in time is a failing case that says so (not an exception
    that ends the kernel's test without its report)."""
    kernel = suite["kir/vector_add"]
    last = M.programs(kernel, tmp_path / "programs", only=M.groups()[-1])[-1]
    refs = M.Reference(tmp_path)
    monkeypatch.setattr(M, "RUN_TIMEOUT", 0.001)
    why = M.check_case(M.Case(kernel, {"N": 5}, 3, last.group, last.path, {}), refs)
    assert why.startswith(M.TIMED_OUT), why


# --- PTX through tessel's own CUDA runtime, where a GPU is present ------------------------------

CUDA = os.environ.get("TESSEL_MATRIX_CUDA", "0") == "1"


def _ptx_params(part=0):
    return [pytest.param(*p.values, marks=[*p.marks] + ([] if CUDA else [pytest.mark.skip(
        reason="needs a CUDA device: TESSEL_MATRIX_CUDA=1 (run on the GPU machine)")]), id=p.id)
        for p in _params("ptx", part)]


@pytest.mark.parametrize("mode,kid", _ptx_params())
def test_ptx_agrees_with_kir(mode, kid, suite, tmp_path):
    """Every kernel the PTX provider accepts, at the same shape and binding draws as the interpreter
    (8 shapes x >= 3 bindings of the shared program's declared parameters, THREADS at its default),
    through `tessel run --device=cuda --target=ptx`."""
    kernel = suite[kid]
    if kernel.example in M.REJECTED:
        pytest.xfail(f"expected rejection: {M.REJECTED[kernel.example]}")
    res = M.run([M.TESSEL, "compile", kernel.target, "--target=ptx", "--emit=source"])
    if res.returncode != 0:  # rejected at the op by PTX legalization (docs/ptx.md lists what it lacks)
        pytest.skip(f"the PTX provider rejects it: {res.stderr.strip().splitlines()[0][:200]}")
    pgpu = M.run([M.TESSEL, "compile", kernel.target, "--emit=pgpu"], check=True).stdout
    params = M.declared_params(pgpu, kernel.name)
    budget = M.DEEP_BUDGET if mode == "deep" else M.CI
    refs = M.Reference(tmp_path)
    cases = []  # (command, shape, binding, input seed, out)
    for seed in M.seeds(budget):
        rng = random.Random(f"ptx/{seed}/{kid}")
        for shape, input_seed in _shapes(kernel, refs, rng, budget, seed):
            for b in M.draw_bindings(rng, params, shape, deep=mode == "deep", cap=budget.largest_work):
                out = tmp_path / f"ptx-{len(cases)}"
                cases.append(([M.TESSEL, "run", kernel.target, "--device=cuda", "--target=ptx", "--seed", input_seed,
                               "--shape", M.shape_text(shape), "--out", out,
                               *[f"--param={k}={v}" for k, v in b.items()],
                               *[f"--scalar={k}={v}" for k, v in kernel.scalars.items()]], shape, b, input_seed, out))
    results = M.parallel(lambda c: M.run(c[0]), cases)  # processes share the GPU (TESSEL_MATRIX_JOBS)
    launches = 0
    for (cmd, shape, b, input_seed, out), r in zip(cases, results):
        if r.returncode != 0 and "shared memory" in r.stderr:
            continue  # a binding past the selector's staging budget is refused before launch
        assert r.returncode == 0, f"{M.shell(cmd)}\n{r.stderr}"
        launches += 1
        _agree(kernel, "PTX", M.load_outputs(out), refs.get(kernel, shape, input_seed)[0], shape, b, input_seed, cmd)
    _count(budget, "ptx", kid, launches)
