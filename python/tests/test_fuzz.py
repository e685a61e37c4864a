"""CI budget of the mutation fuzzer (test/fuzz/fuzz.py, issue 14): mutated lit and suite inputs never
crash, abort or hang the driver (TESSEL_FUZZ_SECONDS of tessel processes, default 10; 40 under
TESSEL_DEEP=1) nor the libraries in process (TESSEL_FUZZ_INPUTS mutants through build/bin/tessel-fuzz,
default 5,000; 20,000 under TESSEL_DEEP=1), and the seeds of the passes changed since the last deep run
(TESSEL_FUZZ_CHANGED_INPUTS, default 2,000; 50,000 under TESSEL_DEEP=1).
TESSEL_FUZZ_SEED (default a fixed one, so a CI failure reproduces) picks the mutants; the deep
libFuzzer run is docs/fuzzing.md."""
import importlib.util
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _fuzz():
    spec = importlib.util.spec_from_file_location("tessel_fuzz", ROOT / "test" / "fuzz" / "fuzz.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_mutations_are_deterministic_and_change_the_input():
    import random
    fuzz = _fuzz()
    corpus = fuzz.seeds()
    assert len(corpus) > 50
    a = [fuzz.mutate(random.Random(i), corpus[i % len(corpus)], corpus) for i in range(50)]
    b = [fuzz.mutate(random.Random(i), corpus[i % len(corpus)], corpus) for i in range(50)]
    assert a == b
    assert sum(x != corpus[i % len(corpus)] for i, x in enumerate(a)) > 40


def test_the_finding_classifier_reports_signals_banners_and_timeouts(tmp_path):
    fuzz = _fuzz()
    sh = "/bin/sh"
    assert fuzz.run_one(sh, ["-c", "kill -SEGV $$"], 5, 512)[0] == "signal 11"
    assert fuzz.run_one(sh, ["-c", "echo 'PLEASE submit a bug report' >&2; exit 1"], 5, 512)[0] == "crash banner"
    assert fuzz.run_one(sh, ["-c", "sleep 5"], 0.5, 512)[0] == "timeout"
    assert fuzz.run_one(sh, ["-c", "echo 'error: bad' >&2; exit 2"], 5, 512)[0] is None


def test_in_process_mode_saves_the_input_that_killed_the_harness_and_resumes(tmp_path):
    """A stand-in harness that dies at the third input of each process: each death is saved as
    the input it named last, and the batch resumes after it until every input ran."""
    fuzz = _fuzz()
    harness = tmp_path / "harness.sh"
    harness.write_text('#!/bin/sh\nn=0\nfor f in "$@"; do case "$f" in --*) continue;; esac\n'
                       '  echo "input $f"; n=$((n+1)); [ $n -eq 3 ] && kill -SEGV $$\ndone\n'
                       'echo "tessel-fuzz: done; 0 parsed and verified, 0 reached pgpu, 0 serialized to Triton"\n')
    harness.chmod(0o755)
    reach = dict.fromkeys(["parsed", "pgpu", "serialized"], 0)
    done, findings = fuzz.in_process(str(harness), 10, 7, fuzz.seeds(), tmp_path / "work", tmp_path / "found",
                                     10, 0, reach, batch=10)
    assert done == 10
    assert [what for what, _ in findings] == ["signal 11"] * 3
    assert len(list((tmp_path / "found").glob("*.mlir"))) == 3


def test_fuzz_budget_finds_no_crash_abort_or_hang(tessel_bin, tmp_path, capsys):
    fuzz = _fuzz()
    seconds = os.environ.get("TESSEL_FUZZ_SECONDS", "40" if os.environ.get("TESSEL_DEEP") == "1" else "10")
    seed = os.environ.get("TESSEL_FUZZ_SEED", "14")
    rc = fuzz.main(["--tessel", str(tessel_bin), "--seconds", seconds, "--jobs", "2", "--seed", seed,
                    "--save", str(tmp_path / "findings"), "--work", str(tmp_path / "work")])
    out = capsys.readouterr()
    print(out.out, out.err)
    found = sorted((tmp_path / "findings").glob("*.txt")) if (tmp_path / "findings").exists() else []
    details = "\n\n".join(p.read_text()[:1500] for p in found[:3])
    assert rc == 0, f"the fuzzer found {len(found)} crashing inputs:\n{details}"
    assert "inputs from" in out.out


def test_in_process_budget_finds_no_crash_abort_or_hang(tessel_bin, tmp_path, capsys):
    harness = Path(tessel_bin).parent / "tessel-fuzz"
    if not harness.exists():
        pytest.fail(f"{harness} is missing; run scripts/setup.sh first")
    fuzz = _fuzz()
    count = os.environ.get("TESSEL_FUZZ_INPUTS", "20000" if os.environ.get("TESSEL_DEEP") == "1" else "5000")
    seed = os.environ.get("TESSEL_FUZZ_SEED", "14")
    rc = fuzz.main(["--harness", str(harness), "--count", count, "--seed", seed, "--timeout", "30",
                    "--save", str(tmp_path / "findings"), "--work", str(tmp_path / "work")])
    out = capsys.readouterr()
    print(out.out, out.err)
    found = sorted((tmp_path / "findings").glob("*.txt")) if (tmp_path / "findings").exists() else []
    details = "\n\n".join(p.read_text()[:1500] for p in found[:3])
    assert rc == 0, f"the in-process fuzzer found {len(found)} crashing inputs:\n{details}"
    assert f"fuzz: {count} inputs from" in out.out


def test_changed_sources_select_the_lit_files_of_their_passes():
    """--since: a pass's own source selects its lit files (RUN lines that run it, and the pipeline's tests
    named after it); a helper selects the passes that include its header; a source that every input
    reaches (IR) selects every seed; documentation selects nothing."""
    fuzz = _fuzz()
    rel = lambda files: {str(p.relative_to(ROOT)) for p in files}  # noqa: E731
    files, flags = fuzz.files_for_changes(["lib/Dialect/PGPU/Transforms/ZeroFirst.cpp", "docs/fuzzing.md"])
    assert flags == {"pgpu-zero-first"}
    assert rel(files) == {"test/Dialect/PGPU/Transforms/pgpu-zero-first.mlir", "test/Target/Triton/zero-first-no-loop.mlir"}
    files, flags = fuzz.files_for_changes(["lib/Dialect/KIR/Transforms/AxisDomains.cpp"])
    assert {"kir-online-folds", "kir-chained-folds"} <= flags and "pgpu-zero-first" not in flags
    assert "test/Dialect/KIR/kir-online-folds.mlir" in rel(files)
    assert all("PGPU" not in f for f in rel(files))
    new_case = "test/Dialect/PGPU/ops.mlir"
    assert rel(fuzz.files_for_changes([new_case])[0]) == {new_case}
    assert fuzz.files_for_changes(["lib/Dialect/KIR/IR/KIROps.cpp"])[0] is None
    assert fuzz.files_for_changes(["docs/fuzzing.md", "python/tessel/_kernel.py"]) == ([], set())


def test_changed_passes_budget_finds_no_crash_abort_or_hang(tessel_bin, tmp_path, capsys):
    """Issue 47 item 2: mutants of the seeds of the passes changed since the last deep run
    (bench/results/fuzz_deep.json; TESSEL_FUZZ_SINCE names another revision) through the in-process
    harness: TESSEL_FUZZ_CHANGED_INPUTS, 2,000 by default, 50,000 under TESSEL_DEEP=1."""
    harness = Path(tessel_bin).parent / "tessel-fuzz"
    if not harness.exists():
        pytest.fail(f"{harness} is missing; run scripts/setup.sh first")
    fuzz = _fuzz()
    count = os.environ.get("TESSEL_FUZZ_CHANGED_INPUTS", "50000" if os.environ.get("TESSEL_DEEP") == "1" else "2000")
    since = os.environ.get("TESSEL_FUZZ_SINCE", "last-deep")
    seed = str(int(os.environ.get("TESSEL_FUZZ_SEED", "14")) + 1)  # other mutants than the budget above
    rc = fuzz.main(["--harness", str(harness), "--since", since, "--count", count, "--seed", seed, "--timeout", "30",
                    "--save", str(tmp_path / "findings"), "--work", str(tmp_path / "work")])
    out = capsys.readouterr()
    print(out.out, out.err)
    found = sorted((tmp_path / "findings").glob("*.txt")) if (tmp_path / "findings").exists() else []
    details = "\n\n".join(p.read_text()[:1500] for p in found[:3])
    assert rc == 0, f"the changed-pass fuzzer found {len(found)} crashing inputs:\n{details}"
    assert f"fuzz: {count} inputs from" in out.out or "nothing the fuzzer covers changed" in out.out


def test_known_findings_replay_clean(tessel_bin):
    """The inputs of test/fuzz/known, replayed in one harness process, in order: a finding that only
    shows in a process that ran an earlier input (test/fuzz/known/README.md)."""
    harness = Path(tessel_bin).parent / "tessel-fuzz"
    known = sorted((Path(__file__).resolve().parents[2] / "test" / "fuzz" / "known").glob("*.input"))
    assert known
    r = subprocess.run([str(harness), "--timeout=30", *map(str, known)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
