#!/usr/bin/env python3
"""Byte-identity of everything the providers generate, for a refactor that must not change it.

Every example kernel (examples/*.py, examples/kir/*.mlir, examples/pgpu/*.mlir) and every corpus kernel
(bench/corpus, at its CONSTEXPRS) is traced once; `tessel compile` then prints it at the stages each
provider has (the neutral KIR and pgpu, Triton and cuTile source; for the examples the PTX provider's
wrapper module with its PTX inside and the AMDGPU provider's ISA; with --full those for the corpus too, and
each provider's pgpu, device IR and LLVM IR, the PTX alone and the AMDGPU code object), and `tessel groups`
lists the pass groups. Each output (exit status, stdout and stderr, with the repository's path replaced by
<root>) is hashed. A change meant to alter what a provider generates rewrites the manifest (--update) and
says so in its commit.

  python3 scripts/provider_identity.py                   compare with scripts/provider_identity.json
  python3 scripts/provider_identity.py --update          rewrite that manifest from this build
  python3 scripts/provider_identity.py --reference BIN   compare with another tessel binary's output
  python3 scripts/provider_identity.py --only examples/  only the kernels whose case name starts so

The binary is $TESSEL_BIN or <root>/build/bin/tessel. The default set is CI's; the manifest holds it and,
after `--update --full`, the full set as well. A rejected program is an output too: its diagnostic must stay
the same. Exit status 1 lists the outputs that differ.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import hashlib
import importlib.util
import json
import os
import pathlib
import resource
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
MANIFEST = ROOT / "scripts" / "provider_identity.json"

# (target, emit) pairs; None is the default target. The default set prints every kernel's neutral KIR
# and pgpu and its Triton and cuTile source, and the examples' PTX wrapper and AMDGPU ISA (LLVM's
# backends take seconds a kernel, half a minute for the corpus's largest); --full adds the corpus's
# PTX and AMDGPU and every further stage of every provider.
DEFAULT_STAGES = [(None, "kir"), (None, "pgpu"), ("triton", "source"), ("cutile", "source")]
LLVM_STAGES = [("ptx", "wrapper"), ("amdgpu", "source")]
FULL_STAGES = [("triton", "pgpu"), ("cutile", "pgpu"), ("ptx", "pgpu"), ("amdgpu", "pgpu"), ("ptx", "source"),
               ("ptx", "device"), ("ptx", "llvm"), ("amdgpu", "device"), ("amdgpu", "llvm"), ("amdgpu", "binary")]


def _load(path: pathlib.Path, key: str):
    spec = importlib.util.spec_from_file_location(key, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[key] = module
    spec.loader.exec_module(module)
    return module


def kernels() -> list:
    """(case name, KIR or pgpu text) for every example and corpus kernel, in a fixed order."""
    sys.path[:0] = [str(ROOT / "python"), str(ROOT / "bench" / "corpus")]
    import tessel  # noqa: F401  (the worktree's package)
    from tessel._kernel import Kernel
    import _harness as H

    cases = []
    for path in sorted((ROOT / "examples").glob("*.py")):
        module = _load(path, f"_identity_example_{path.stem}")
        for attr in sorted(vars(module)):
            value = getattr(module, attr)
            if isinstance(value, Kernel) and value.name == attr:
                cases.append((f"examples/{path.stem}:{attr}", value.kir()))
    for folder in ("kir", "pgpu"):
        for path in sorted((ROOT / "examples" / folder).glob("*.mlir")):
            cases.append((f"examples/{folder}/{path.name}", path.read_text()))
    for name in H.names():
        module = H.load(name)
        if H.marked(module, "SKIP", "identity"):  # the compiler does not finish it (a known defect, named there)
            continue
        cases.append((f"corpus/{name}", module.KERNEL.kir(getattr(module, "CONSTEXPRS", None))))
    return cases


def run(binary: str, args: list, text: str | None = None) -> str:
    """The sha256 of one invocation's exit status, stdout and stderr (the repository path as <root>)."""
    res = subprocess.run([binary, *args], input=(text or "").encode(), capture_output=True, timeout=600)
    digest = hashlib.sha256()
    digest.update(f"rc={res.returncode}\n".encode())
    for stream in (res.stdout, res.stderr):
        digest.update(stream.replace(str(ROOT).encode(), b"<root>"))
        digest.update(b"\0")
    return digest.hexdigest()


def hashes(binary: str, full: bool, jobs: int, only: str = "", llvm: bool = True) -> dict:
    work = {"cli:groups": ["groups"]}
    inputs = {}
    for case, text in kernels():
        if not case.startswith(only):
            continue
        stages = DEFAULT_STAGES + (LLVM_STAGES if full or (llvm and case.startswith("examples/")) else [])
        for target, emit in stages + (FULL_STAGES if full else []):
            key = f"{case}:{target or 'default'}:{emit}"
            work[key] = ["compile", "-", f"--emit={emit}"] + ([f"--target={target}"] if target else [])
            inputs[key] = text
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        futures = {key: pool.submit(run, binary, args, inputs.get(key)) for key, args in work.items()}
        return {key: futures[key].result() for key in sorted(work)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--update", action="store_true", help="rewrite the manifest from this build")
    ap.add_argument("--full", action="store_true", help="every stage of every provider (slower)")
    ap.add_argument("--reference", metavar="BIN", help="compare with this tessel binary instead of the manifest")
    ap.add_argument("--manifest", default=str(MANIFEST), help="the manifest of hashes (default: %(default)s)")
    ap.add_argument("--only", default="", metavar="PREFIX",
                    help="only the kernels whose case name starts so (examples/, corpus/, corpus/13_)")
    ap.add_argument("--no-llvm", action="store_true", help="leave out the PTX and AMDGPU stages (CI's quick check)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    if args.update and (args.only or args.no_llvm):
        ap.error("--update rewrites the whole manifest; drop --only and --no-llvm")
    binary = os.environ.get("TESSEL_BIN") or str(ROOT / "build" / "bin" / "tessel")
    got = hashes(binary, args.full, args.jobs, args.only, not args.no_llvm)
    manifest = pathlib.Path(args.manifest)
    if args.update:
        old = json.loads(manifest.read_text()) if manifest.exists() else {}
        # Without --full, the hashes only an earlier `--update --full` computed stay.
        old = {} if args.full else {k: v for k, v in old.items() if k not in got and k.startswith("corpus/") and
                                    any(k.endswith(f":{t}:{e}") for t, e in LLVM_STAGES + FULL_STAGES)}
        manifest.write_text(json.dumps({**old, **got}, indent=0, sort_keys=True) + "\n")
        print(f"wrote {len(got)} hashes to {manifest}")
        return 0
    want = (hashes(args.reference, args.full, args.jobs, args.only, not args.no_llvm) if args.reference
            else json.loads(manifest.read_text()))
    differ = [k for k in got if want.get(k) != got[k]]
    for key in differ:
        print(f"DIFFERS: {key}" + ("" if key in want else " (not in the reference)"))
    print(f"{len(got) - len(differ)} of {len(got)} outputs identical "
          f"({resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime:.0f} s of CPU in the compiler)")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
