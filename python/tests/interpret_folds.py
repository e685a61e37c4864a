"""Triton's CPU interpreter (TRITON_INTERPRET=1), reductions and scans with a user combine function applied
a slice at a time instead of an element at a time.

Triton 3.6's interpreter folds `tl.reduce` / `tl.associative_scan` with a combine function of its own
(argmax's (value, index) pairs, a scan of records) by calling the combine once per element, in Python: a
1024-lane argmax row costs ~1000 combine calls per program, and the differential matrix's argmax cell
spent 70 of its 73 seconds there. Here the same left fold runs along the reduced axis with the combine
applied to whole slices: element (i, j) still sees acc = x[0]; acc = combine(acc, x[k]) for k = 1, 2, ...
in that order, the accumulator stored in the input's element type after every step, as the interpreter
does. Only the number of Python calls changes (one per position along the axis), so results are the
interpreter's own, bit for bit (test_interpret_folds.py checks it against the original on random
inputs). Installed by conftest.py for the test process; the built-in sum/min/max/argmin/argmax paths are
untouched.
"""
import importlib.abc
import importlib.machinery
import sys

import numpy as np


def _as(value, shape, dtype):
    """A combine result (a tensor of the slice's shape, of one element for a 0-d slice, or a Python
    scalar) as an array of the slice's shape and the input's element type."""
    data = np.asarray(value.handle.data if hasattr(value, "handle") else value)
    if data.shape != shape:
        data = data.reshape(()) if data.size == 1 else data
        data = np.broadcast_to(data, shape)
    return data.astype(dtype)


def _fold_steps(op, inputs, datas):
    """Yields the accumulator arrays after each position along axis 0 of `datas` (already moved there)."""
    dtypes = [d.dtype for d in datas]
    acc = [d[0].astype(t, copy=True) for d, t in zip(datas, dtypes)]
    yield acc
    for k in range(1, datas[0].shape[0]):
        left = tuple(op.to_tensor(a, x.dtype) for a, x in zip(acc, inputs))
        right = tuple(op.to_tensor(d[k], x.dtype) for d, x in zip(datas, inputs))
        ret = op.combine_fn.fn(*left, *right)
        ret = ret if isinstance(ret, tuple) else (ret,)
        acc = [_as(r, datas[0].shape[1:], t) for r, t in zip(ret, dtypes)]
        yield acc


def _reduce(self, input):
    original_axis = self.axis
    if self.axis is None:  # every input flattened (the interpreter's unravel flattens only the first)
        input = tuple(self.to_tensor(x.handle.data.flatten(), x.dtype) for x in input)
    axis = 0 if self.axis is None else self.axis
    shape = input[0].handle.data.shape
    datas = [np.moveaxis(x.handle.data, axis, 0) for x in input]  # Triton blocks: every extent >= 1
    for out in _fold_steps(self, input, datas):
        pass
    ret = []
    for x, data in zip(input, out):
        if self.keep_dims:
            if original_axis is not None:
                data = np.expand_dims(data, axis)
            else:
                for _ in range(len(shape)):
                    data = np.expand_dims(data, 0)
        elif original_axis is None:
            data = data.item()
        ret.append(self.to_tensor(data, x.dtype))
    return ret


def _scan(self, input):
    shape = input[0].handle.data.shape
    outs = [np.zeros(shape, dtype=x.handle.data.dtype) for x in input]
    datas = [np.moveaxis(x.handle.data, self.axis, 0) for x in input]
    views = [np.moveaxis(o, self.axis, 0) for o in outs]
    for k, acc in enumerate(_fold_steps(self, input, datas)):
        for v, a in zip(views, acc):
            v[k] = a
    return [self.to_tensor(o, x.dtype) for o, x in zip(outs, input)]


ORIGINAL = {}


def install():
    """Replaces the interpreter's element-at-a-time reduce and scan folds (idempotent)."""
    from triton.runtime import interpreter
    if ORIGINAL:
        return
    ORIGINAL["reduce"] = interpreter.ReduceOps.generic_reduce
    ORIGINAL["scan"] = interpreter.ScanOps.generic_scan
    interpreter.ReduceOps.generic_reduce = _reduce
    interpreter.ScanOps.generic_scan = _scan


class _AfterImport(importlib.abc.MetaPathFinder):
    """Installs the folds right after `triton.runtime.interpreter` is first imported (by a test or by a
    generated module, whenever TRITON_INTERPRET=1 is already set): importing triton earlier, from
    conftest, would make triton.language's functions compiled ones."""
    NAME = "triton.runtime.interpreter"

    def find_spec(self, name, path, target=None):
        if name != self.NAME:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _AfterImport)]
            install()
        spec.loader.exec_module = exec_module
        return spec


def install_on_import():
    if _AfterImport.NAME in sys.modules:
        install()
    elif not any(isinstance(f, _AfterImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport())
