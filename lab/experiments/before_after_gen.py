"""Before/after sources for lab/experiments/before_after_time.py: `python3 before_after_gen.py old|new TESSEL_BIN`
writes the Triton that compiler generates for softmax, layernorm, rmsnorm_bf16 and matmul at the README's tuned
parameters into scratch/ab/ (run from the repository root)."""
import os, sys, pathlib
sys.path[:0] = ["python", "examples", "bench"]
def main():
    which = sys.argv[1]
    os.environ["TESSEL_BIN"] = sys.argv[2]
    os.environ["TESSEL_CACHE"] = f"/tmp/abcache-{which}"
    import importlib  # after TESSEL_BIN is set
    cases = [("softmax", "softmax", {"BLOCK": 8192, "STAGES": 4, "WARPS": 8}),
             ("layernorm", "layernorm", {"BLOCK": 8192, "STAGES": 2, "WARPS": 16}),
             ("row_kernels", "rmsnorm_bf16", {"BLOCK": 1024, "STAGES": 4, "WARPS": 4}),
             ("matmul", "matmul", {"FLATTEN": 1, "GROUP_0": 8, "PERSIST": 1, "STAGES": 3, "TILE_0": 128, "TILE_1": 256,
                                   "TILE_K": 64, "TMA": 1, "WARPS": 8})]
    out = pathlib.Path(os.environ.get("AB_OUT", "scratch/ab")); out.mkdir(exist_ok=True)
    for mod, name, params in cases:
        k = getattr(importlib.import_module(mod), name)
        (out / f"{name}_{which}.py").write_text(k.source("triton", {}, params))
        print(which, name, "ok")


if __name__ == "__main__":
    main()
