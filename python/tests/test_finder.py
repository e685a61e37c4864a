"""tessel._finder: a folder searched for imports ahead of sys.path without editing it, with a first
sys.path entry's rules (python -m tessel's kernel files import what lies beside them; the cuTile
toolchain's site folder). Each case runs in a fresh interpreter, so no finder outlives it."""
import os
import pathlib
import subprocess
import sys
import textwrap

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _run(code, cwd):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(ROOT / "python")
    res = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                         env=env, cwd=cwd)
    assert res.returncode == 0, res.stderr
    return res.stdout.split()


def _write(path, text=""):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_a_kernel_file_imports_modules_beside_it_and_sys_path_stays(tmp_path):
    folder = tmp_path / "kernels"
    _write(folder / "helper_consts_x.py", "SCALE = 3\n")
    _write(folder / "unused_beside_x.py", "")
    _write(folder / "k.py", textwrap.dedent("""\
        import tessel
        import tessel.language as T
        from helper_consts_x import SCALE


        @tessel.kernel
        def k(x: T.In[T.f32, ("N",)], y: T.Out[T.f32, ("N",)]):
            for i in T.parallel(T.domain(0, x.shape[0])):
                y[i] = x[i] * SCALE
        """))
    out = _run(f"""
        import sys
        before = list(sys.path), list(sys.meta_path)
        from tessel.__main__ import load_kernel
        k = load_kernel({str(folder / "k.py")!r} + ":k")
        print(k.name, (list(sys.path), list(sys.meta_path)) == before)
        try:
            import unused_beside_x  # beside the kernel file only while it ran
        except ImportError:
            print("gone")
        """, cwd=tmp_path)
    assert out == ["k", "True", "gone"]


def test_folder_comes_first_and_namespace_packages_merge(tmp_path):
    first, other = tmp_path / "first", tmp_path / "other"
    _write(first / "shadow_mod_x.py", "WHERE = 'first'\n")
    _write(other / "shadow_mod_x.py", "WHERE = 'other'\n")
    _write(first / "ns_pkg_x" / "a.py", "A = 1\n")          # namespace portions in both
    _write(other / "ns_pkg_x" / "b.py", "B = 2\n")
    _write(first / "reg_pkg_x" / "c.py", "C = 3\n")         # a namespace portion here ...
    _write(other / "reg_pkg_x" / "__init__.py", "REGULAR = True\n")  # ... gives way to a regular package
    out = _run(f"""
        import sys
        sys.path.append({str(other)!r})
        from tessel import _finder
        _finder.install(_finder.FolderFinder({str(first)!r}))
        import shadow_mod_x, ns_pkg_x.a, ns_pkg_x.b, reg_pkg_x
        print(shadow_mod_x.WHERE, ns_pkg_x.a.A + ns_pkg_x.b.B, reg_pkg_x.REGULAR)
        print(_finder.installed({str(first)!r}), _finder.installed({str(tmp_path)!r}))
        print(_finder.search_path()[0] == {str(first)!r})
        """, cwd=tmp_path)
    assert out == ["first", "3", "True", "True", "False", "True"]
