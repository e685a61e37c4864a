#!/usr/bin/env python3
"""Seed corpus and dictionary for tessel-fuzz (docs/fuzzing.md), written from the tree as it is.

    python3 tools/tessel-fuzz/make_corpus.py OUT_DIR

writes OUT_DIR/seeds/NNNN.mlir, one per `// -----` case of test/**/*.mlir and examples/kir/*.mlir
that holds a kernel (the mutation fuzzer's seeds, test/fuzz/fuzz.py), and OUT_DIR/tessel.dict: the
kir/pgpu op, type and attribute names, enum spellings and assembly keywords of the ODS files, so
the dictionary follows the dialects without a second list to keep.
"""
from __future__ import annotations

import importlib.util
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
TD = sorted((ROOT / "include" / "tessel" / "Dialect").glob("*/IR/*.td"))
# Tokens of the generic MLIR syntax the kernels use; the ODS files do not spell them.
SYNTAX = ["arith.constant", "arith.addi", "arith.muli", "arith.cmpi", "arith.select", "arith.index_cast",
          "module", "attributes", "->", "=", ":", "::", "{", "}", "(", ")", "[", "]", "<", ">", "%", "^bb0",
          "#", "!", "@", "dense<", "true", "false", "index", "f32", "f16", "bf16", "f64", "i1", "i8", "i32",
          "i64", "?", "x", "0", "1", "-1", "2147483648", "9223372036854775807", "0x7FC00000", "1.0e308",
          "loc(", "unknown", "// -----"]


def dictionary_tokens() -> list[str]:
    tokens: set[str] = set(SYNTAX)
    for path in TD:
        text = path.read_text()
        dialect = "pgpu" if "PGPU" in path.parent.parent.name else "kir"
        tokens.update(f"{dialect}.{name}" for name in re.findall(r'_Op<"([\w.]+)"', text))
        tokens.update(f"!{dialect}.{name}<" for name in re.findall(r'_Type<"\w+",\s*"(\w+)"', text))
        tokens.update(f"#{dialect}.{name}<" for name in re.findall(r'_Attr<"\w+",\s*"(\w+)"', text))
        tokens.update(re.findall(r'EnumAttrCase<"\w+",\s*\d+,\s*"(\w+)"', text))
        tokens.update(re.findall(r"`([a-z_]+)`", text))
    return sorted(t for t in tokens if t)


def escape(token: str) -> str:
    return "".join(c if c.isprintable() and c not in '"\\' else f"\\x{ord(c):02x}" for c in token)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = pathlib.Path(argv[1])
    spec = importlib.util.spec_from_file_location("tessel_fuzz", ROOT / "test" / "fuzz" / "fuzz.py")
    fuzz = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fuzz)
    seeds = out / "seeds"
    seeds.mkdir(parents=True, exist_ok=True)
    for old in seeds.glob("*.mlir"):
        old.unlink()
    corpus = fuzz.seeds()
    for i, text in enumerate(corpus):
        (seeds / f"{i:04d}.mlir").write_text(text.strip() + "\n")
    tokens = dictionary_tokens()
    (out / "tessel.dict").write_text(
        "# kir/pgpu names and keywords (tools/tessel-fuzz/make_corpus.py, from the ODS files)\n"
        + "".join(f'"{escape(t)}"\n' for t in tokens))
    print(f"make_corpus: {len(corpus)} seeds, {len(tokens)} dictionary tokens in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
