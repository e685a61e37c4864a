"""Every parameter value a kernel declares computes the right result (issue 47): the variant sweep.

A compiled kernel declares its launch parameters with candidate domains (BLOCK_*, WARPS, STAGES, TMA,
FOLD_SPLIT, LOOP_STAGES, ...: `<kernel>_PARAMS` of the generated module), and the tuner may bind any of
them, so each candidate must compute what the default does. For each kernel and each of its cases this
runs the call's default binding (`Kernel.call_defaults`), then every parameter moved alone to each of its
other candidates, then every parameter at its smallest and every parameter at its largest candidate
together, and compares each launch with the case's expected outputs. A binding that the generated
resource model (`<kernel>_PRUNE`) refuses is reported with its reason and not run: the tuner never binds
it. On the CPU (TRITON_INTERPRET=1) a binding whose fragment sizes multiply past --lanes is skipped with a
note (the interpreter's cost grows with them, not its meaning).

    python3 bench/corpus/variants.py [NAME ...] [--examples] [--budget-s S] [--binding-s S] [--lanes N]
                                     [--shapes all|small] [--moves all|extremes] [--compile-only]
                                     [--jsonl FILE]
    python3 bench/corpus/check.py --variants [NAME ...]        (the same)

NAME is a corpus file stem or number (bench/corpus/), or `ex:NAME` for a suite kernel of examples/
(`--examples` adds every one). A corpus case is a TEST_SHAPE with the file's inputs and NumPy reference; a
suite kernel's case is the KIR interpreter's run on its random inputs at odd extents (the outputs it
gives are the expectation). Exit status 1 when some binding disagrees or crashes.

`bench/corpus.py --variants` runs the same bindings on a GPU at each file's bench shape against its peer.
"""
import argparse
import importlib.util
import json
import math
import re
import os
import signal
import sys
import time
import traceback

if __name__ == "__main__":  # the CPU sweep; bench/corpus.py --variants imports this module on a GPU
    os.environ.setdefault("TRITON_INTERPRET", "1")  # before triton is imported by a generated module

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _harness as H  # noqa: E402

# The CPU sweep's bound on a binding's largest two-dimensional fragment: the largest product of two of its
# fragment-sizing parameters (`<kernel>_SIZES`). The interpreter runs a block as NumPy arrays of that many
# elements per op; past it a binding is skipped with a note (what it computes does not depend on speed).
LANES = 1 << 17


# --- the bindings --------------------------------------------------------------------------------
def space_of(kernel, constexprs) -> dict:
    """{parameter: (sorted candidates, declared default)} of the kernel's Triton provider."""
    return {n: (sorted(c), d) for n, (c, d) in kernel._space(constexprs or {}).items()}


def moves(space: dict, base: dict) -> list:
    """[(label, binding)]: the default `base`; all parameters at their smallest and at their largest
    candidates together; each parameter moved alone to its smallest and largest candidates; then to each
    other candidate (breadth first, so a kernel's --budget-s reaches every parameter's extremes)."""
    out, seen = [], set()

    def add(label, b):
        key = tuple(sorted(b.items()))
        if key not in seen:
            seen.add(key)
            out.append((label, b))
    add("default", dict(base))
    for label, pick in (("all-min", min), ("all-max", max)):
        add(label, {**base, **{n: pick(c) for n, (c, _) in space.items()}})
    for name in sorted(space):
        for c in sorted({min(space[name][0]), max(space[name][0])}):
            add(f"{name}={c}", {**base, name: c})
    for name in sorted(space):
        for c in space[name][0]:
            add(f"{name}={c}", {**base, name: c})
    return out


def lanes_of(kernel, constexprs, binding: dict) -> int:
    """The largest product of two of the binding's fragment-sizing parameters (`<kernel>_SIZES`)."""
    sizes = kernel._cache.get(kernel._declared("sizes", constexprs or {}, "triton")) or ()
    values = sorted((int(binding[p]) for p in sizes if p in binding), reverse=True)
    return math.prod(values[:2]) if values else 1


def refused(kernel, constexprs, binding: dict):
    """The resource model's reason the tuner would never bind `binding`, or None."""
    prune = kernel._prune(constexprs or {})
    return prune(binding) if prune is not None else None


# --- cases ---------------------------------------------------------------------------------------
class Suite:
    """A suite kernel of examples/ seen through the corpus contract: its cases are the KIR interpreter's
    runs on random inputs (views' declared ranges respected) at odd extents."""
    EXTENTS = (1, 13, 37)

    def __init__(self, name):
        path = H.ROOT / "examples" / f"{name}.py"
        spec = importlib.util.spec_from_file_location(f"_suite_{name}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        import tessel
        kernels = [v for v in vars(module).values() if isinstance(v, tessel._kernel.Kernel)]
        if not kernels:
            raise ValueError(f"examples/{name}.py defines no @tessel.kernel")
        self.__name__ = f"ex:{name}"
        self.KERNEL = kernels[0]
        self.CONSTEXPRS = {}
        dts = {p.spec.dtype.name for p in self.KERNEL.params() if p.kind == "view"}
        self.TOLERANCE = dict(rtol=2e-2, atol=2e-2) if dts & {"f16", "bf16"} else dict(rtol=1e-3, atol=1e-4)
        self.TEST_SHAPES = [{s: n for s in sorted(H.symbols(self))} for n in self.EXTENTS]

    def case(self, shape, seed):
        scalars = {p.name: (0.5 if p.spec.is_float else 3) for p in self.KERNEL.params() if p.kind == "scalar"}
        res = self.KERNEL.run_interp(shapes=shape, scalars=scalars, seed=seed)
        inputs = dict(scalars)
        for p in self.KERNEL.params():
            if p.kind == "view" and p.spec.mode != "out":
                inputs[p.name] = res[f"{p.name}.in"]
        want = {p.name: res[p.name] for p in self.KERNEL.params() if p.kind == "view" and p.spec.mode != "in"}
        return inputs, want


def suite_names() -> list:
    return [f"ex:{p.stem}" for p in sorted((H.ROOT / "examples").glob("*.py"))]


def load(name: str):
    return Suite(name[3:]) if name.startswith("ex:") else H.load(name)


def cases(mod, which: str):
    """[(shape, inputs, expected)] of a corpus file or suite kernel."""
    shapes = list(mod.TEST_SHAPES)
    if which == "small":  # the smallest and the middle shape: the edge and an odd several-block case
        shapes = sorted(shapes, key=lambda s: math.prod(s.values()) if s else 1)
        shapes = shapes[:1] + [shapes[len(shapes) // 2]] if len(shapes) > 1 else shapes
    out = []
    for i, shape in enumerate(shapes):
        if isinstance(mod, Suite):
            inputs, want = mod.case(shape, i)
        else:
            inputs = H.draw(mod, shape, i)
            want = H.expected(mod, inputs)
        out.append((shape, inputs, want))
    return out


# --- the sweep -----------------------------------------------------------------------------------
class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout()


_LAUNCH_OPTIONS = [
    (re.compile(r"^\w+_PARAMS = .*$", re.M), ""),                       # the bound values, recorded
    (re.compile(r",?\s*num_(warps|stages)=\d+"), ""),                    # launch options
    (re.compile(r"\btl\.range\(([^()]*?)(?:,\s*num_stages=\d+)?\)"), r"range(\1)"),  # a loop's pipeline depth
]


def interpreted(text: str) -> str:
    """A generated module with what Triton's interpreter ignores taken out (num_warps, num_stages, a loop's
    num_stages, the module's record of its binding): two bindings with equal texts run the same program on
    the CPU, and only the GPU sweep (bench/corpus.py --variants) tells them apart."""
    for pattern, repl in _LAUNCH_OPTIONS:
        text = pattern.sub(repl, text)
    return text


def _timed_out(e) -> bool:
    """Whether `e` is the per-binding alarm, raised directly or wrapped (Triton's InterpreterError)."""
    seen = set()
    while e is not None and id(e) not in seen:
        if isinstance(e, _Timeout) or "_Timeout()" in str(e):
            return True
        seen.add(id(e))
        e = e.__cause__ or e.__context__
    return False


def launch(mod, binding, views, kw):
    mod.KERNEL.launch(*views, target="triton", params=binding, **kw)


def sweep(mod, args) -> dict:
    """{"name", "results": [{"binding", "label", "verdict", "detail", "shape"}], ...} for one kernel."""
    name = mod.__name__.replace("_corpus_", "")
    rec = {"name": name, "results": []}
    why = H.marked(mod, "SKIP", "triton") or H.marked(mod, "XFAIL", "triton")
    if why:
        rec["skipped"] = f"marked for the triton path: {why}"
        return rec
    H.interpreter_bf16_dot()
    cx = getattr(mod, "CONSTEXPRS", {}) or {}
    kernel = mod.KERNEL
    start = time.time()
    space = space_of(kernel, cx)
    rec["space"] = {n: c for n, (c, _) in space.items()}
    verdicts = {}  # label -> (verdict, detail, shape)
    for shape, inputs, want in cases(mod, args.shapes):
        programs = {}  # interpreted(source) -> the label that ran it at this shape
        views, kw = H.torch_args(mod, shape, inputs, "cpu")
        base = {n: int(v) for n, v in kernel.call_defaults(*views, **kw).items()}
        for label, binding in moves(space, base):
            if args.moves == "extremes" and label not in ("default", "all-min", "all-max"):
                continue
            if verdicts.get(label, ("",))[0] in ("DIFFERS", "CRASH"):
                continue  # one failing shape per binding is enough
            if time.time() - start > args.budget_s:
                verdicts.setdefault(label, ("budget", "not run: the kernel's --budget-s was spent", shape))
                continue
            why = refused(kernel, cx, binding)
            if why:
                verdicts.setdefault(label, ("refused", f"resource model: {why}", shape))
                continue
            lanes = lanes_of(kernel, cx, binding)
            if lanes > args.lanes:
                verdicts.setdefault(label, ("skipped", f"fragment sizes multiply to {lanes} > --lanes {args.lanes}",
                                            shape))
                continue
            try:
                program = interpreted(kernel.source(constexprs=cx or None, params=binding))
            except Exception as e:  # noqa: BLE001: a binding the compiler rejects is a finding
                verdicts[label] = ("CRASH", f"{type(e).__name__}: {e}"[:600], shape, binding)
                continue
            if program in programs:
                verdicts.setdefault(label, ("same", f"the interpreter's program of {programs[program]} (only "
                                            "launch options differ: the GPU sweep checks it)", shape))
                continue
            programs[program] = label
            if args.compile_only:
                verdicts.setdefault(label, ("ok", "compiled (--compile-only: not run)", shape))
                continue
            views, kw = H.torch_args(mod, shape, inputs, "cpu")
            signal.signal(signal.SIGALRM, _alarm)
            signal.alarm(int(args.binding_s))
            try:
                launch(mod, binding, views, kw)
                got = {k: v.detach().float().numpy() if v.is_floating_point() else v.numpy()
                       for k, v in H.outputs_of(mod, views).items()}
                msg = H.mismatch(mod, got, want)
                verdict = ("ok", "", shape) if msg is None else ("DIFFERS", msg, shape)
            except Exception as e:  # noqa: BLE001: every failure is a finding, reported with its message
                if _timed_out(e):  # Triton's interpreter wraps what its kernel raised in InterpreterError
                    verdict = ("skipped", f"over --binding-s {args.binding_s} s in the interpreter", shape)
                else:
                    text = f"{type(e).__name__}: {e}".strip().splitlines()
                    verdict = ("CRASH", " | ".join(text[:3])[:600], shape)
                    if os.environ.get("CORPUS_TRACEBACK"):
                        traceback.print_exc()
            finally:
                signal.alarm(0)
            if verdict[0] in ("DIFFERS", "CRASH"):
                verdicts[label] = verdict + (binding,)
            elif verdict[0] != "ok" or label not in verdicts:
                verdicts[label] = verdict
    for label, v in verdicts.items():
        rec["results"].append({"label": label, "verdict": v[0], "detail": v[1], "shape": v[2],
                               **({"binding": v[3]} if len(v) > 3 else {})})
    rec["wall_s"] = round(time.time() - start, 1)
    return rec


def report(rec) -> bool:
    """Prints one kernel's findings; True when no binding disagrees or crashes."""
    if "skipped" in rec:
        print(f"{rec['name']}: skipped ({rec['skipped']})", flush=True)
        return True
    if "error" in rec:
        print(f"{rec['name']}: ERROR {rec['error']}", flush=True)
        return False
    counts = {}
    for r in rec["results"]:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    print(f"{rec['name']}: {len(rec['results'])} bindings, "
          + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) + f" ({rec.get('wall_s', 0)} s)", flush=True)
    bad = False
    for r in rec["results"]:
        if r["verdict"] in ("ok", "same"):
            continue
        bad |= r["verdict"] in ("DIFFERS", "CRASH")
        extra = f" binding {r['binding']}" if "binding" in r else ""
        print(f"  {r['label']}: {r['verdict']} at {r['shape']}: {r['detail']}{extra}", flush=True)
    return not bad


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*")
    ap.add_argument("--examples", action="store_true", help="add every suite kernel of examples/")
    ap.add_argument("--budget-s", type=float, default=300.0, help="seconds per kernel (the rest: 'budget')")
    ap.add_argument("--binding-s", type=float, default=60.0, help="seconds per binding and shape")
    ap.add_argument("--lanes", type=int, default=LANES, help="bound on the product of fragment sizes")
    ap.add_argument("--shapes", choices=("all", "small"), default="all",
                    help="all TEST_SHAPES, or the smallest and the middle one")
    ap.add_argument("--moves", choices=("all", "extremes"), default="all",
                    help="every one-at-a-time move, or only the default, all-min and all-max")
    ap.add_argument("--compile-only", action="store_true",
                    help="compile each binding's source without running it (a wide, cheap net)")
    ap.add_argument("--jsonl", default=None, help="append one JSON line per kernel")
    args = ap.parse_args(argv)
    names = [n for n in args.names if n.startswith("ex:")]
    rest = [n for n in args.names if not n.startswith("ex:")]
    names = (H.resolve(rest) if rest else ([] if names or args.examples else H.names())) + names
    if args.examples:
        names += [n for n in suite_names() if n not in names]
    ok = True
    for name in names:
        try:
            rec = sweep(load(name), args)
        except Exception as e:  # noqa: BLE001: a kernel that does not load or trace is reported, not fatal
            rec = {"name": name, "error": f"{type(e).__name__}: {e}"[:600]}
        ok &= report(rec)
        if args.jsonl:
            with open(args.jsonl, "a") as f:
                f.write(json.dumps(rec, default=str) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
