"""What triton_compile.py and gluon_compile.py share: call a generated module's binding on CPU tensors with
its launch intercepted, then compile the intercepted launch for sm_90 with Triton's own binder and compiler
(no GPU needed). Each script builds its views and reads its own facts off the compiled kernel."""
import importlib.util
import os

import torch


class _Launch(Exception):
    pass


def intercept(path, binding, suffix, views, scalars, patches):
    """Loads the module at `path`, replaces its `_<binding>_<suffix>` launcher with one that records the grid
    and arguments (and stops), applies `patches` (module attributes, e.g. the TMA switch as on an sm_90 GPU)
    and calls the binding on `views` (a dict, in argument order) and `scalars`. Returns (kernel, launch)
    where launch is {grid, args, kwargs}, or (kernel, None) when the binding returned without launching."""
    spec = importlib.util.spec_from_file_location(f"_{suffix}_compile_module", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    kernel = getattr(mod, f"_{binding}_{suffix}")
    seen = {}

    class Capture:
        def __getitem__(self, grid):
            def launch(*args, **kwargs):
                seen.update(grid=grid, args=args, kwargs=kwargs)
                raise _Launch()
            return launch

    setattr(mod, f"_{binding}_{suffix}", Capture())
    for name, value in patches.items():
        setattr(mod, name, value)
    os.environ["TRITON_INTERPRET"] = "1"  # the wrapper's view checks accept CPU tensors
    try:
        getattr(mod, binding)(*views.values(), **scalars)
    except _Launch:
        pass
    finally:
        del os.environ["TRITON_INTERPRET"]  # Triton's JIT is the compiling one again
    return kernel, (seen or None)


def compile_sm90(kernel, launch, source_class):
    """Binds, specializes (Triton's divisibility-by-16 facts of the integers and pointers) and compiles the
    intercepted launch for an sm_90 target down to PTX and ptxas; `source_class` is Triton's ASTSource or
    Gluon's GluonASTSource. Returns (compiled, launch keyword arguments)."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import make_backend
    from triton.runtime.jit import create_function_from_signature
    target = GPUTarget("cuda", 90, 32)
    backend = make_backend(target)
    kwargs = dict(launch["kwargs"])
    binder = create_function_from_signature(kernel.signature, kernel.params, backend)
    bound, specialization, options = binder(*launch["args"], **kwargs)
    options, signature, constexprs, attrs = kernel._pack_args(backend, kwargs, bound, specialization, options)
    compiled = triton.compile(source_class(kernel, signature, constexprs, attrs), target=target,
                              options=options.__dict__)
    return compiled, kwargs
