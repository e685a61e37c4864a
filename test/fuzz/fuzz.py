#!/usr/bin/env python3
"""Mutation fuzzer for the tessel driver (issue 14): no input may crash, abort or hang it.

Seeds are the lit corpus (every `// -----` case of every test/**/*.mlir) and the suite's KIR
(examples/kir/*.mlir). Each input is a seed under 1-4 random mutations (text splices, line
deletion/duplication/swaps, boundary numbers, type and keyword swaps, deep nesting, bytes) and runs

    tessel compile FILE --emit=pgpu           (parse -> verify -> construction -> pgpu passes)
    tessel compile FILE --emit=source         (when that succeeded: legalization + serializer)
    tessel run FILE:K --shape ... [--stage=pgpu] (when it verifies: both interpreters, small shapes)

each under a time limit and an address-space limit. An exit by signal (segfault, abort, a
sanitizer's report), an LLVM crash banner or a timeout is a finding: the input is saved under
--save (default build/fuzz-findings/) with a .txt beside it holding the command and its stderr.
An ordinary error exit (1, 2) is the expected answer to a malformed input.

    cp build/bin/tessel /tmp/tessel-fuzz    # a frozen copy: a rebuild during the run must not mix binaries
    python3 test/fuzz/fuzz.py --tessel /tmp/tessel-fuzz --count 20000 --jobs 2   # the documented deep run
    python3 test/fuzz/fuzz.py --seconds 40 --jobs 2            # what CI runs (python/tests/test_fuzz.py)

Exit status: 0 when nothing was found, 1 otherwise. The summary line reports the inputs run.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import pathlib
import random
import re
import resource
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = pathlib.Path(__file__).resolve().parents[2]

BOUNDARY = ["0", "1", "-1", "2", "7", "-7", "255", "256", "65535", "2147483647", "2147483648", "-2147483648",
            "4294967296", "9223372036854775807", "-9223372036854775808", "99999999999999999999", "1e39",
            "-0.0", "0x7FC00000", "1.0e308", "3"]
TYPES = ["f32", "f16", "bf16", "f64", "i1", "i8", "i32", "i64", "index", "ui32", "tensor<?xf32>",
         "tensor<4xf32>", "!kir.domain", "none"]
WORDS = ["in", "out", "inout", "add", "sub", "mul", "div", "max", "min", "exp", "log", "kir.yield",
         "kir.return", "step", "axis", "identity", "kir.parallel", "kir.for", "kir.if", "summarize",
         "combine", "sources", "operands", "%c0", "%c1", "%0", "%arg0", "[]", "[N]", "[M, N]", "0 to",
         "reverse", "exclusive", "inclusive"]


def seed_files() -> list[pathlib.Path]:
    return sorted(list((ROOT / "test").rglob("*.mlir")) + list((ROOT / "examples" / "kir").glob("*.mlir")))


def seeds(files: list[pathlib.Path] | None = None) -> list[str]:
    found = []
    for path in (seed_files() if files is None else files):
        text = path.read_text(errors="replace")
        for case in re.split(r"^// -----\s*$", text, flags=re.M):
            body = "\n".join(line for line in case.splitlines() if not line.lstrip().startswith("// RUN"))
            if "kir.kernel" in body or "pgpu.kernel" in body:
                found.append(body)
    return found


# ---------------------------------------------------------------------------------------------------
# The passes a commit range changed (issue 47 item 2: CI fuzzes what changed since the last deep run)
# ---------------------------------------------------------------------------------------------------
DEEP_RECORD = ROOT / "bench" / "results" / "fuzz_deep.json"
PASS_DIRS = ("lib/Dialect/KIR/Transforms/", "lib/Dialect/PGPU/Transforms/", "lib/Conversion/", "lib/Target/")


def pass_flags() -> dict[str, str]:
    """GEN_PASS_DEF name (KIRONLINEFOLDS) -> command-line flag (kir-online-folds), from every Passes.td."""
    flags = {}
    for td in sorted(ROOT.glob("include/tessel/**/Passes.td")):
        for name, flag in re.findall(r'^def (\w+) : Pass<"([\w-]+)"', td.read_text(), flags=re.M):
            flags[name.upper()] = flag
    return flags


def passes_of(changed: list[str]) -> tuple[set[str], bool]:
    """(the flags of the passes whose sources `changed` touches, whether a change reaches every input).
    A pass's own file names its pass (GEN_PASS_DEF_X); a shared helper (AxisDomains.cpp/.h) the passes
    whose files include its header, two includes deep. Any other compiler source (IR, construction
    helpers outside a pass, the pipeline, serializers, interpreters, the tools) runs on every input."""
    flags = pass_flags()
    lib = {str(p.relative_to(ROOT)): p.read_text(errors="replace") for p in sorted((ROOT / "lib").rglob("*.cpp"))}
    lib.update({str(p.relative_to(ROOT)): p.read_text(errors="replace") for p in sorted((ROOT / "lib").rglob("*.h"))})

    def defined(text):
        return {flags[d] for d in re.findall(r"GEN_PASS_DEF_(\w+)", text) if d in flags}

    found, everything = set(), False
    for path in changed:
        if not path.startswith(("lib/", "include/", "tools/")) or not path.endswith((".cpp", ".h", ".td", ".inc")):
            continue
        text = lib.get(path, "")
        own = defined(text)
        if own:
            found |= own
            continue
        headers, reached = {pathlib.Path(path).with_suffix(".h").name}, set()
        for _ in range(2):  # the files that include the helper's header, and the files that include theirs
            users = [p for p, t in lib.items() if any(f'/{h}"' in t or f'"{h}"' in t for h in headers)]
            reached |= {f for u in users for f in defined(lib[u])}
            headers = {pathlib.Path(u).with_suffix(".h").name for u in users} - headers
        if reached and path.startswith(PASS_DIRS):
            found |= reached
        else:
            everything = True
    return found, everything


def changed_since(rev: str) -> list[str] | None:
    """Files changed between `rev` and the working tree (None: not a git checkout, or `rev` unknown,
    as in a shallow clone). `rev` "last-deep" is the commit of the last deep run (DEEP_RECORD)."""
    import json
    if rev == "last-deep":
        if not DEEP_RECORD.exists():
            return None
        rev = json.loads(DEEP_RECORD.read_text())["commit"]
    r = subprocess.run(["git", "-C", str(ROOT), "diff", "--name-only", rev, "--"], capture_output=True, text=True)
    if r.returncode != 0:
        return None
    untracked = subprocess.run(["git", "-C", str(ROOT), "ls-files", "--others", "--exclude-standard"],
                               capture_output=True, text=True).stdout
    return sorted(set(r.stdout.split()) | set(untracked.split()))


def files_for_changes(changed: list[str]) -> tuple[list[pathlib.Path] | None, set[str]]:
    """(the seed files to mutate for `changed` (None: all of them), the changed passes' flags): the lit
    files whose RUN lines run a changed pass or whose name holds the pass's (zero-first-no-loop.mlir for
    pgpu-zero-first: the pipeline's tests of it), and every changed or new lit or suite file."""
    flags, everything = passes_of(changed)
    if everything:
        return None, flags
    stems = {re.sub(r"^(kir|pgpu|triton)-", "", f) for f in flags}
    files = []
    for path in seed_files():
        rel = str(path.relative_to(ROOT))
        runs = " ".join(line for line in path.read_text(errors="replace").splitlines() if "RUN:" in line)
        if rel in changed or any(re.search(rf"(?<![\w-])--?{re.escape(f)}(?![\w-])", runs) for f in flags) or \
                any(stem in path.stem for stem in stems):
            files.append(path)
    return files, flags


def _nest(rng: random.Random, text: str) -> str:
    depth = rng.choice([50, 300, 2000, 6000])
    kind = rng.randrange(3)
    if kind == 0:  # nested control inside the first kernel body
        i = text.find("{")
        if i < 0:
            return text
        return (text[:i + 1] + "\n%cN = arith.constant true\n" + "kir.if %cN {\n" * depth + "}\n" * depth
                + text[i + 1:])
    if kind == 1:  # nested types
        return text.replace("f32", "tuple<" * depth + "f32" + ">" * depth, 1)
    return text.replace("{", "{" + "[" * depth + "]" * depth, 1)


def mutate(rng: random.Random, text: str, corpus: list[str]) -> str:
    for _ in range(rng.randint(1, 4)):
        lines = text.split("\n")
        m = rng.randrange(14)
        if m == 0 and len(lines) > 1:  # delete a line
            del lines[rng.randrange(len(lines))]
        elif m == 1 and lines:  # duplicate a line
            i = rng.randrange(len(lines))
            lines.insert(rng.randrange(len(lines) + 1), lines[i])
        elif m == 2 and len(lines) > 1:  # swap two lines
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif m == 3:  # a number to a boundary value
            nums = list(re.finditer(r"-?\b\d+(\.\d+)?\b", text))
            if nums:
                n = rng.choice(nums)
                text = text[:n.start()] + rng.choice(BOUNDARY) + text[n.end():]
            continue
        elif m == 4:  # a type to another
            ts = list(re.finditer(r"\b(f32|f16|bf16|i1|i32|i64|index|f64)\b", text))
            if ts:
                t = rng.choice(ts)
                text = text[:t.start()] + rng.choice(TYPES) + text[t.end():]
            continue
        elif m == 5:  # a keyword or SSA name to another
            ws = list(re.finditer(r"%[\w#]+|\b\w+\b", text))
            if ws:
                w = rng.choice(ws)
                text = text[:w.start()] + rng.choice(WORDS + [x.group() for x in rng.sample(ws, min(3, len(ws)))]) \
                    + text[w.end():]
            continue
        elif m == 6:  # splice a line from another seed
            other = rng.choice(corpus).split("\n")
            lines.insert(rng.randrange(len(lines) + 1), rng.choice(other))
        elif m == 7 and text:  # delete a span of characters
            i = rng.randrange(len(text))
            text = text[:i] + text[i + rng.randint(1, 40):]
            continue
        elif m == 8 and text:  # truncate
            text = text[:rng.randrange(len(text))]
            continue
        elif m == 9 and text:  # a byte
            i = rng.randrange(len(text))
            text = text[:i] + rng.choice("{}()[]<>%:,=\"#!@^0x-.\\\0\xff") + text[i:]
            continue
        elif m == 10 and rng.random() < 0.15:
            text = _nest(rng, text)
            continue
        elif m == 11:  # step / axis values
            text = re.sub(r"step \d+", lambda _: "step " + rng.choice(["0", "-1", "-8", "3", "9223372036854775807"]),
                          text, count=1)
            continue
        elif m == 12:  # a view mode
            text = re.sub(r"\b(in|out|inout)>", lambda _: rng.choice(["in>", "out>", "inout>"]), text, count=1)
            continue
        elif m == 13 and len(lines) > 2:  # move a block of lines
            i = rng.randrange(len(lines))
            j = min(len(lines), i + rng.randint(1, 6))
            block, rest = lines[i:j], lines[:i] + lines[j:]
            k = rng.randrange(len(rest) + 1)
            lines = rest[:k] + block + rest[k:]
        text = "\n".join(lines)
    return text


def _limits(memory_mb: int, cpu_s: int):
    def apply():
        if memory_mb > 0:  # 0: no address-space limit (an ASan build reserves terabytes of shadow)
            resource.setrlimit(resource.RLIMIT_AS, (memory_mb << 20, memory_mb << 20))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return apply


CRASH_MARKERS = ("PLEASE submit a bug report", "Stack dump:", "LLVM ERROR", "AddressSanitizer",
                 "UndefinedBehaviorSanitizer", "runtime error:", "Assertion", "terminate called")


def run_one(tessel: str, args: list[str], timeout: float, memory_mb: int):
    """(finding or None, returncode, stderr)."""
    env = dict(os.environ, TESSEL_PYTHON_TRACE="0")
    try:
        r = subprocess.run([tessel, *args], capture_output=True, text=True, errors="replace", timeout=timeout,
                           preexec_fn=_limits(memory_mb, int(timeout) + 1), env=env)
    except subprocess.TimeoutExpired as e:
        return "timeout", None, (e.stderr or b"").decode(errors="replace") if isinstance(e.stderr, bytes) else ""
    except OSError as e:  # the binary is being rebuilt: not a finding; fuzz a frozen copy for long runs
        return None, 2, f"fuzz: could not start {tessel}: {e}"
    err = r.stderr
    if r.returncode < 0:
        return f"signal {-r.returncode}", r.returncode, err
    if any(m in err for m in CRASH_MARKERS):
        # Out of memory under the address-space limit is the limit working, not a defect.
        if "out of memory" in err.lower() or "std::bad_alloc" in err or "Allocation failed" in err:
            return None, r.returncode, err
        return "crash banner", r.returncode, err
    if r.returncode not in (0, 1, 2):
        return f"exit {r.returncode}", r.returncode, err
    return None, r.returncode, err


def kernel_names(text: str) -> list[str]:
    return re.findall(r"(?:kir|pgpu)\.kernel\s+@([\w$.]+)", text)


def shape_args(rng: random.Random, text: str) -> list[str]:
    symbols = sorted(set(re.findall(r"\b([A-Z][A-Z0-9_]*)\b", " ".join(re.findall(r"view<[^>]*>", text)))))
    if not symbols:
        return []
    # Small extents (0, 1, primes, one past a power of two) with a bounded product: the interpreters
    # are slow on big shapes, and a slow legitimate run must not read as a hang.
    sizes = {s: rng.choice([0, 1, 2, 3, 5, 7, 17]) for s in symbols}
    while 1 < len(sizes) and _product(sizes.values()) > 512:
        biggest = max(sizes, key=sizes.get)
        sizes[biggest] = max(1, sizes[biggest] // 2)
    return ["--shape", ",".join(f"{s}={v}" for s, v in sizes.items())]


def _product(values) -> int:
    n = 1
    for v in values:
        n *= v
    return n


def exercise(tessel: str, path: pathlib.Path, text: str, rng: random.Random, timeout: float, memory_mb: int):
    """Runs the stages on one input; returns (finding, args, stderr) or None."""
    steps = [["compile", str(path), "--emit=pgpu"]]
    finding, rc, err = run_one(tessel, steps[0], timeout, memory_mb)
    if finding:
        return finding, steps[0], err
    verified = rc == 0 or "error" not in err.split("\n", 1)[0]
    if rc == 0:
        args = ["compile", str(path), "--emit=source"]
        finding, _, err = run_one(tessel, args, timeout, memory_mb)
        if finding:
            return finding, args, err
    names = kernel_names(text)
    if names and (rc == 0 or verified):
        args = ["run", f"{path}:{rng.choice(names)}", "--seed", str(rng.randrange(100)), *shape_args(rng, text)]
        if rc == 0 and rng.random() < 0.5:
            args += ["--stage=pgpu"]
        for _ in range(4):  # fill in the scalars the driver asks for
            finding, rc2, err = run_one(tessel, args, timeout, memory_mb)
            if finding:
                return finding, args, err
            m = re.search(r"missing scalar '([^']+)' of type (\S+)", err)
            if not m:
                break
            value = rng.choice(["1", "0", "-3", "7"]) if not m.group(2).startswith(("f", "bf")) else \
                rng.choice(["0.5", "-2.0", "1e30", "inf", "nan"])
            args += ["--scalar", f"{m.group(1)}={value}"]
    return None


def save_finding(save: pathlib.Path, text: str, what: str, header: str, err: str) -> str:
    digest = hashlib.sha256(text.encode(errors="replace")).hexdigest()[:16]
    save.mkdir(parents=True, exist_ok=True)
    (save / f"{digest}.mlir").write_text(text, errors="replace")
    (save / f"{digest}.txt").write_text(f"{what}\n{header}\n\n{err[-6000:]}", errors="replace")
    print(f"fuzz: FOUND {what}: {save / (digest + '.mlir')}", file=sys.stderr, flush=True)
    return digest


def in_process(harness: str, count: int, seed: int, corpus: list[str], work: pathlib.Path, save: pathlib.Path,
               timeout: float, memory_mb: int, reach: dict, batch: int = 2000) -> tuple[int, list]:
    """Runs `count` mutants through tools/tessel-fuzz (the harness's replay driver: one process per
    batch, no process start per input). A process that dies names its input on stdout (`input PATH`);
    that input is saved and the batch resumes after it. Returns (inputs run, findings); `reach` sums
    how far the inputs of the batches that ended normally got (parsed, pgpu, serialized)."""
    findings, done = [], 0
    for start in range(0, count, batch):
        folder = work / f"batch{start // batch}"
        folder.mkdir(parents=True, exist_ok=True)
        texts = {}
        for i in range(start, min(count, start + batch)):
            rng = random.Random(seed * 1_000_003 + i)
            texts[f"{i:07d}.mlir"] = mutate(rng, rng.choice(corpus), corpus)
            (folder / f"{i:07d}.mlir").write_text(texts[f"{i:07d}.mlir"], errors="replace")
        pending = sorted(texts)
        while pending:
            try:
                r = subprocess.run([harness, f"--timeout={int(timeout)}", *(str(folder / n) for n in pending)],
                                   capture_output=True, text=True, errors="replace",
                                   timeout=timeout * len(pending) + 60, preexec_fn=_limits(memory_mb, 1 << 20))
                rc, out, err = r.returncode, r.stdout, r.stderr
            except subprocess.TimeoutExpired as e:
                rc, out, err = "timeout", e.stdout or "", e.stderr or ""
                out = out.decode(errors="replace") if isinstance(out, bytes) else out
                err = err.decode(errors="replace") if isinstance(err, bytes) else err
            ran = [line[6:] for line in out.splitlines() if line.startswith("input ")]
            if rc == 0:
                done += len(pending)
                m = re.search(r"(\d+) parsed and verified, (\d+) reached pgpu, (\d+) serialized", out)
                for k, v in zip(reach, m.groups() if m else ()):
                    reach[k] += int(v)
                break
            if not ran:
                raise RuntimeError(f"fuzz: {harness} ran nothing (exit {rc}): {err[-2000:]}")
            last = pathlib.Path(ran[-1]).name
            what = "timeout" if rc in ("timeout", -14) else f"signal {-rc}" if isinstance(rc, int) and rc < 0 \
                else f"exit {rc}"
            findings.append((what, save_finding(save, texts[last], what, f"input {last} seed {seed} (in process)",
                                                err)))
            done += len(ran)
            pending = pending[pending.index(last) + 1:]
        shutil.rmtree(folder)
    return done, findings


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tessel", default=os.environ.get("TESSEL_BIN",
                                                       str(pathlib.Path(os.environ.get(
                                                           "TESSEL_BUILD_DIR", ROOT / "build")) / "bin" / "tessel")))
    ap.add_argument("--count", type=int, default=0, help="inputs to run (0: until --seconds)")
    ap.add_argument("--seconds", type=float, default=0, help="time budget (0: until --count)")
    ap.add_argument("--seed", type=int, default=int(time.time()))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=10.0, help="seconds per tessel process")
    ap.add_argument("--memory-mb", type=int, default=4096,
                    help="address-space limit per tessel process (0: none, for an ASan build; its largest allocation "
                         "is then ASAN_OPTIONS=max_allocation_size_mb)")
    ap.add_argument("--save", default=str(ROOT / "build" / "fuzz-findings"))
    ap.add_argument("--work", default=None, help="scratch folder (default: a temporary one)")
    ap.add_argument("--since", default=None, metavar="REV",
                    help="mutate only the seeds of what changed since git revision REV ('last-deep': the commit of "
                         "bench/results/fuzz_deep.json): the lit files that run a changed pass, and changed lit "
                         "files; every seed when a change reaches every input or REV is unknown")
    ap.add_argument("--harness", default=None,
                    help="run --count inputs in process through this tessel-fuzz replay binary (build/bin/tessel-fuzz) "
                         "instead of tessel processes")
    a = ap.parse_args(argv)
    if not a.count and not a.seconds:
        a.count = 1000
    files = None
    if a.since:
        changed = changed_since(a.since)
        if changed is None:
            print(f"fuzz: cannot list the changes since {a.since} (not a git checkout, or an unknown revision): "
                  "every seed", flush=True)
        else:
            files, flags = files_for_changes(changed)
            what = "every seed (a change reaches every input)" if files is None else f"{len(files)} seed files"
            print(f"fuzz: {len(changed)} files changed since {a.since}; passes: {' '.join(sorted(flags)) or 'none'}; "
                  f"{what}", flush=True)
            if files == []:
                print("fuzz: nothing the fuzzer covers changed: 0 inputs, 0 findings")
                return 0
    corpus = seeds(files)
    if not corpus:
        print("fuzz: no seeds found", file=sys.stderr)
        return 2
    import tempfile
    work = pathlib.Path(a.work or tempfile.mkdtemp(prefix="tessel-fuzz-"))
    work.mkdir(parents=True, exist_ok=True)
    save = pathlib.Path(a.save)
    started = time.monotonic()
    if a.harness:
        reach = dict.fromkeys(["parsed", "pgpu", "serialized"], 0)
        done, findings = in_process(a.harness, a.count or 20000, a.seed, corpus, work, save, a.timeout, a.memory_mb,
                                    reach)
        print(f"fuzz: {done} inputs from {len(corpus)} seeds in {time.monotonic() - started:.1f} s (seed {a.seed}, "
              f"in process), {len(findings)} findings; {reach['parsed']} parsed and verified, {reach['pgpu']} reached "
              f"pgpu, {reach['serialized']} serialized to Triton")
        return 1 if findings else 0
    counter = [0]
    findings = []

    def next_index():
        if a.count and counter[0] >= a.count:
            return None
        if a.seconds and time.monotonic() - started > a.seconds:
            return None
        counter[0] += 1
        return counter[0] - 1

    def worker(w: int):
        while True:
            i = next_index()
            if i is None:
                return
            rng = random.Random(a.seed * 1_000_003 + i)
            text = mutate(rng, rng.choice(corpus), corpus)
            path = work / f"w{w}.mlir"
            path.write_text(text, errors="replace")
            found = exercise(a.tessel, path, text, rng, a.timeout, a.memory_mb)
            if found:
                what, args, err = found
                findings.append((what, save_finding(save, text, what, f"input {i} seed {a.seed}\ntessel "
                                                    f"{' '.join(args)}", err)))

    with ThreadPoolExecutor(a.jobs) as pool:
        list(pool.map(worker, range(a.jobs)))
    elapsed = time.monotonic() - started
    print(f"fuzz: {counter[0]} inputs from {len(corpus)} seeds in {elapsed:.1f} s (seed {a.seed}), "
          f"{len(findings)} findings")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
