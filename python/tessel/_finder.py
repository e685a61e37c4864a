"""A folder searched for imports ahead of sys.path, without editing sys.path (issue 46): a finder on
sys.meta_path just before sys.path's own (importlib.machinery.PathFinder). `python -m tessel` uses it
while a kernel file runs (its imports find the modules beside it), and `_cutile.toolchain` for the
toolchain's site folder."""
from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import sys


class FolderFinder(importlib.abc.MetaPathFinder):
    """Finds top-level modules and packages in `folder` as a first sys.path entry would: a module or
    regular package there comes first; a namespace package there (a folder without __init__.py) gives
    way to a regular package of that name on sys.path and otherwise is merged ahead of sys.path's
    portions of it (Python's rules for sys.path). Submodules are found through their package's
    __path__, as always."""

    def __init__(self, folder: str | os.PathLike):
        self.folder = os.fspath(folder)

    def find_spec(self, fullname, path=None, target=None):
        if path is not None:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, [self.folder])
        if spec is None or spec.origin is not None:
            return spec
        other = importlib.machinery.PathFinder.find_spec(fullname)
        if other is not None and other.origin is not None:
            return None  # a regular package on sys.path: PathFinder finds it next
        # A plain list: a _NamespacePath would recompute itself from sys.path alone when sys.path changes.
        spec.submodule_search_locations = list(spec.submodule_search_locations) + \
            (list(other.submodule_search_locations) if other is not None else [])
        return spec


def install(finder: FolderFinder) -> FolderFinder:
    """Puts `finder` on sys.meta_path just before PathFinder (after the built-in and frozen modules)."""
    index = next((i for i, f in enumerate(sys.meta_path) if f is importlib.machinery.PathFinder),
                 len(sys.meta_path))
    sys.meta_path.insert(index, finder)
    return finder


def installed(folder: str | os.PathLike) -> bool:
    """Whether imports already search `folder`: on sys.path, or through a FolderFinder."""
    folder = os.path.abspath(folder)
    return any(isinstance(p, str) and p and os.path.abspath(p) == folder for p in sys.path) or \
        any(isinstance(f, FolderFinder) and os.path.abspath(f.folder) == folder for f in sys.meta_path)


def search_path() -> list[str]:
    """Where this process imports from, in order, as a PYTHONPATH for a child process: the FolderFinder
    folders, then sys.path ('' left out: a child's `python -m` puts its working directory first)."""
    folders = [f.folder for f in sys.meta_path if isinstance(f, FolderFinder)]
    entries = [os.fspath(p) for p in sys.path if isinstance(p, (str, os.PathLike)) and os.fspath(p)]
    return list(dict.fromkeys(folders + entries))
