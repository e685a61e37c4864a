"""Errors raised by the DSL and by the compiler it drives."""
from __future__ import annotations

import os
import re
import sys

_PKG_DIR = os.path.dirname(os.path.abspath(__file__))
_STDLIB_DIR = os.path.dirname(os.path.abspath(os.__file__))


class Loc:
    """A source position of the kernel author: file, line, column (1-based)."""

    __slots__ = ("file", "line", "col")

    def __init__(self, file: str, line: int, col: int = 1):
        self.file, self.line, self.col = file, line, col

    def mlir(self) -> str:
        name = self.file.replace("\\", "\\\\").replace('"', '\\"')
        return f'loc("{name}":{self.line}:{self.col})'

    def __repr__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


class CompileError(Exception):
    """A kernel that cannot be compiled: misuse of the DSL, or a compiler diagnostic.

    `file`, `line` and `col` locate the author's code (None when unknown); `message` is the
    diagnostic without the location; str() gives `file:line:col: error: message` (as the compiler's
    diagnostics), `file:line: error: message` when the column is unknown.
    """

    def __init__(self, message: str, file: str | None = None, line: int | None = None, col: int | None = None):
        self.message, self.file, self.line, self.col = message, file, line, col
        super().__init__(str(self))

    def __str__(self) -> str:
        if getattr(self, "text", None):
            return self.text
        if self.file is not None and self.line is not None:
            col = f"{self.col}:" if self.col is not None else ""
            return f"{self.file}:{self.line}:{col} error: {self.message}"
        return f"error: {self.message}"

    @classmethod
    def from_compiler(cls, stderr: str, fallback: str = "the compiler failed") -> "CompileError":
        """The first `file:line:col: error: ...` diagnostic of a compiler run (the whole text kept)."""
        for line in stderr.splitlines():
            m = re.match(r"^(.*?):(\d+):(\d+): error: (.*)$", line)
            if m:
                err = cls(m.group(4), m.group(1), int(m.group(2)), int(m.group(3)))
                err.summary, err.text = m.group(4), stderr.strip()
                return err
        err = cls(stderr.strip() or fallback)
        err.summary, err.text = err.message, None
        return err


def _is_internal(filename: str) -> bool:
    if filename.startswith(_PKG_DIR + os.sep):
        return True
    if filename.startswith("<frozen"):
        return True
    if filename.startswith(_STDLIB_DIR + os.sep) and "-packages" not in filename:
        return True
    return False


_POSITIONS: dict = {}


def _frame_loc(frame) -> Loc:
    code = frame.f_code
    line, col = frame.f_lineno, 1
    positions = _POSITIONS.get(code)
    if positions is None and hasattr(code, "co_positions"):
        positions = _POSITIONS[code] = list(code.co_positions())
    if positions:
        idx = frame.f_lasti // 2
        if 0 <= idx < len(positions):
            l, _, c, _ = positions[idx]
            if l is not None and l == line and c is not None:
                col = c + 1
    return Loc(code.co_filename, line or 0, col)


def user_loc() -> Loc:
    """The position in the author's code that called into the DSL."""
    frame = sys._getframe(1)
    while frame is not None and _is_internal(frame.f_code.co_filename):
        frame = frame.f_back
    if frame is None:
        return Loc("<unknown>", 0, 1)
    return _frame_loc(frame)


def user_text(limit: int = 60) -> str | None:
    """The source text of the author's expression that called into the DSL (`x1 * cos`, `cols[-1:]`),
    from the positions Python records per instruction; None when unknown, multi-line or long."""
    import linecache

    frame = sys._getframe(1)
    while frame is not None and _is_internal(frame.f_code.co_filename):
        frame = frame.f_back
    if frame is None or not hasattr(frame.f_code, "co_positions"):
        return None
    code = frame.f_code
    positions = _POSITIONS.get(code)
    if positions is None:
        positions = _POSITIONS[code] = list(code.co_positions())
    idx = frame.f_lasti // 2
    if not 0 <= idx < len(positions):
        return None
    line, end_line, col, end_col = positions[idx]
    if line is None or line != end_line or col is None or end_col is None:
        return None
    text = linecache.getline(code.co_filename, line)[col:end_col].strip()
    return text if text and len(text) <= limit else None


def error(message: str, loc: Loc | None = None) -> CompileError:
    """A CompileError located at `loc` (default: the author's current line)."""
    loc = loc or user_loc()
    return CompileError(message, loc.file, loc.line, loc.col)
