"""Providers behind one interface (include/tessel/Target/Provider.h) must not change what they generate:
scripts/provider_identity.py hashes every provider's output for the examples and the corpus and compares
with scripts/provider_identity.json. CI runs the examples' KIR, pgpu, Triton and cuTile outputs (LLVM's
backends take minutes for the PTX and AMDGPU ones); TESSEL_IDENTITY=1 runs the script's default set (the
corpus too, and the examples' PTX wrapper and AMDGPU ISA), TESSEL_IDENTITY=full its full set (needs a
manifest written with --update --full). A change meant to alter generated sources
rewrites the manifest (`python3 scripts/provider_identity.py --update`) and says so in its commit."""
import os
import subprocess
import sys

from conftest import ROOT


def test_generated_sources_match_the_manifest(tessel_bin):
    mode = os.environ.get("TESSEL_IDENTITY", "")
    args = {"": ["--only", "examples/", "--no-llvm"], "1": [], "full": ["--full"]}[mode]
    res = subprocess.run([sys.executable, str(ROOT / "scripts" / "provider_identity.py"), *args],
                         env={**os.environ, "TESSEL_BIN": str(tessel_bin)}, capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
