"""Call 2 of session 11: modules for bench/splitk_gemm.py. Compiler-generated bindings, then hand
edits of them: 'cptr' spells the C store (in the ticketed sum) with pointers instead of a tensor
descriptor, so its tile takes no shared memory beside the operand stages."""
import re, subprocess, sys, pathlib
ROOT = pathlib.Path(__file__).resolve().parents[3]
OUT = pathlib.Path(sys.argv[1])
(OUT / 'mods').mkdir(parents=True, exist_ok=True)
(OUT / 'hand').mkdir(parents=True, exist_ok=True)
env = {"PYTHONPATH": str(ROOT / "python") + ":" + str(ROOT / "bench")}

def compile_(kernel, splits, params, path):
    kir = subprocess.run([sys.executable, "-m", "tessel", "emit", f"bench/gemm_kernels.py:{kernel}", "--constexpr",
                          f"SPLITS={splits}"], cwd=ROOT, env=env, check=True, capture_output=True, text=True).stdout
    k = OUT / 'tmp.kir.mlir'
    k.write_text(kir)
    subprocess.run([str(ROOT / 'build/bin/tessel'), 'compile', str(k), '--target=triton', '--emit=source',
                    *[f'--param={a}={b}' for a, b in params.items()], '-o', str(path)], check=True)

def cptr(src):
    desc = re.search(r"(_desc\d+) = tl\.make_tensor_descriptor\(c, .*\n", src)
    src = src.replace(desc.group(0), "")
    pat = re.compile(r"( *)if USE_TMA:\n *" + desc.group(1) + r"\.store\(.*\)\n *else:\n *(tl\.store\(c .*\))\n")
    src, n = pat.subn(lambda m: m.group(1) + m.group(2) + "  # hand edit: pointer store of C\n", src)
    assert n == 1, n
    return src

HAND = [  # (splits, params, name)
    (8, {"STAGES": 4}, "128x128x64_st4_cptr"),
    (8, {"TILE_K": 128, "STAGES": 3}, "128x128x128_st3_cptr"),
    (16, {"TILE_2": 256, "STAGES": 3}, "128x256x64_st3_cptr"),
    (16, {"TILE_2": 256, "STAGES": 4}, "128x256x64_st4_cptr"),
    (16, {"TILE_2": 256, "STAGES": 3, "FLATTEN": 0}, "128x256x64_st3_fl0_cptr"),
    (16, {"TILE_1": 256, "WARPS": 8, "STAGES": 3}, "256x128x64_w8_st3_cptr"),
    (16, {"TILE_1": 256, "WARPS": 8, "STAGES": 4}, "256x128x64_w8_st4_cptr"),
    (8, {"TILE_2": 256, "STAGES": 3}, "128x256x64_st3_cptr"),
]
for splits, params, name in HAND:
    p = OUT / 'tmp.py'
    compile_("splitk_gemm_bf16", splits, params, p)
    (OUT / 'hand' / f"splitk_gemm_bf16_s{splits}_{name}.py").write_text(cptr(p.read_text()))
# gemm.py (the suite's f16 GEMM with bias, f32 C) at its defaults and at STAGES 3 / 4
for st in (3, 4):
    subprocess.run([str(ROOT / 'build/bin/tessel'), 'compile', str(ROOT / 'examples/gemm.py') + ':gemm', '--target=triton',
                    '--emit=source', f'--param=STAGES={st}', '-o', str(OUT / 'mods' / f'gemm_st{st}.py')], check=True)
(OUT / 'tmp.py').unlink(); (OUT / 'tmp.kir.mlir').unlink()
print("ok")
