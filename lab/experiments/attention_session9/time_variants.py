"""GPU side (session 9): session 7's run.py (check against SDPA's math backend, then time with the peers in the
same process) over this folder's manifest."""
import pathlib, sys
import importlib.util as _u
_spec = _u.spec_from_file_location("run7", pathlib.Path(__file__).resolve().parents[1] / "attention_session7" / "run.py")
_run7 = _u.module_from_spec(_spec); _spec.loader.exec_module(_run7)

if __name__ == "__main__":
    _run7.HERE = pathlib.Path(__file__).resolve().parent
    _run7.main()
