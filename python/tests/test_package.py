"""The Python package's structure: its modules import each other without a cycle (imports inside
functions count too: a lazy import is how a cycle hides), and the public surface stays."""
import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "python" / "tessel"


def _imports() -> dict:
    graph = {}
    for path in PACKAGE.glob("*.py"):
        deps = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                deps.update([node.module] if node.module else [a.name for a in node.names])
        graph[path.stem] = deps
    return graph


def test_modules_import_each_other_without_a_cycle():
    graph, done, path = _imports(), set(), []

    def visit(module):
        assert module not in path, f"import cycle: {' -> '.join(path[path.index(module):] + [module])}"
        if module in done:
            return
        path.append(module)
        for dep in sorted(graph.get(module, ())):
            visit(dep)
        path.pop()
        done.add(module)

    for module in sorted(graph):
        visit(module)
    # The tracer's layers, each above the ones it imports.
    assert graph["_ir"] <= {"_errors"} and "_semantic" not in graph["_core"] and "_jit" not in graph["_pycontrol"]


def test_public_surface():
    import tessel
    import tessel.language as T
    assert {"CompileError", "Fn", "Kernel", "Loc", "fn", "kernel", "language"} <= set(tessel.__all__)
    for name in ("In", "Out", "InOut", "Constexpr", "f32", "domain", "parallel", "sum", "max", "matmul",
                 "region_fold", "region_scan", "for_", "if_", "while_", "where", "load", "store", "exp"):
        assert name in T.__all__, name


def test_no_sys_path_edits():
    """The package never edits sys.path (issue 46): folders it imports from go through tessel._finder,
    and a worker process gets its parent's search path as PYTHONPATH."""
    edits = []
    for path in sorted(PACKAGE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            target = None
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                target = node.func.value  # sys.path.insert(...), .append, .pop, ...
            elif isinstance(node, (ast.Assign, ast.AugAssign, ast.Delete)):
                for t in getattr(node, "targets", None) or [node.target]:
                    target = t.value if isinstance(t, ast.Subscript) else t
                    if ast.unparse(target) == "sys.path":
                        break
            if target is not None and ast.unparse(target) == "sys.path":
                edits.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    assert not edits, "\n".join(edits)
