"""Helpers for misuse tests: the error must name the author's file and the marked line."""
import inspect

import pytest

import tessel


def marked_line(fn, marker="# <- error"):
    fn = getattr(fn, "fn", fn)
    lines, start = inspect.getsourcelines(fn)
    hits = [start + i for i, line in enumerate(lines) if marker in line]
    assert len(hits) == 1, f"{fn.__name__}: mark exactly one line with {marker!r}"
    return hits[0]


def expect_error(k, text, line=None, constexprs=None):
    """Tracing `k` raises a CompileError containing `text`, located in the file that defines `k` at
    `line` (by default the line marked `# <- error` in `k`)."""
    file = inspect.getsourcefile(getattr(k, "fn", k))
    with pytest.raises(tessel.CompileError) as info:
        k.kir(constexprs)
    err = info.value
    assert text in err.message, f"expected {text!r} in: {err.message}"
    assert err.file == file, err.file
    want = line if line is not None else marked_line(k)
    assert err.line == want, f"{err} (expected line {want})"
    assert err.col is not None and err.col >= 1, err
    assert str(err).startswith(f"{file}:{err.line}:{err.col}: error: ")
    return err
