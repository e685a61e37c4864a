"""Hand-written Triton peers for the benchmark: what an expert writes by hand for each kernel.

Each is the straightforward expert form (one program per row with the whole row in one block for
row kernels; a 1-d block per program for element-wise), launched with the block size an author
would pick from the shape. They are measured in the same process as tessel's kernels.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _vector_add(x, y, z, n, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    a = tl.load(x + offs, mask=m)
    b = tl.load(y + offs, mask=m)
    tl.store(z + offs, tl.maximum(a + b, 0.0) * scale, mask=m)


def vector_add(x, y, z, scale):
    n = x.numel()
    _vector_add[(triton.cdiv(n, 1024),)](x, y, z, n, scale, BLOCK=1024)


@triton.jit
def _softmax(x, y, n, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < n
    v = tl.load(x + row * stride + cols, mask=m, other=-float("inf"))
    e = tl.exp(v - tl.max(v, 0))
    tl.store(y + row * stride + cols, e / tl.sum(e, 0), mask=m)


def softmax(x, y):
    M, N = x.shape
    block = triton.next_power_of_2(N)
    _softmax[(M,)](x, y, N, x.stride(0), BLOCK=block, num_warps=8 if block >= 2048 else 4)


@triton.jit
def _layernorm(x, w, b, y, n, stride, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < n
    v = tl.load(x + row * stride + cols, mask=m, other=0.0)
    mean = tl.sum(v, 0) / n
    d = tl.where(m, v - mean, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(d * d, 0) / n + eps)
    out = d * rstd * tl.load(w + cols, mask=m) + tl.load(b + cols, mask=m)
    tl.store(y + row * stride + cols, out, mask=m)


def layernorm(x, w, b, y, eps):
    M, N = x.shape
    _layernorm[(M,)](x, w, b, y, N, x.stride(0), eps, BLOCK=triton.next_power_of_2(N))


@triton.jit
def _rmsnorm(x, w, y, n, stride, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < n
    v = tl.load(x + row * stride + cols, mask=m, other=0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(v * v, 0) / n + eps)
    tl.store(y + row * stride + cols, v * rstd * tl.load(w + cols, mask=m), mask=m)


def rmsnorm(x, w, y, eps):
    M, N = x.shape
    _rmsnorm[(M,)](x, w, y, N, x.stride(0), eps, BLOCK=triton.next_power_of_2(N))


@triton.jit
def _cumsum(x, y, n, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < n
    v = tl.load(x + row * stride + cols, mask=m, other=0.0)
    tl.store(y + row * stride + cols, tl.cumsum(v, 0), mask=m)


def cumsum(x, y):
    M, N = x.shape
    _cumsum[(M,)](x, y, N, x.stride(0), BLOCK=triton.next_power_of_2(N))


@triton.jit
def _argmax(x, out, n, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    v = tl.load(x + row * stride + cols, mask=cols < n, other=-float("inf"))
    tl.store(out + row, tl.argmax(v, 0))


def argmax(x, mx, idx):
    M, N = x.shape
    _argmax[(M,)](x, idx, N, x.stride(0), BLOCK=triton.next_power_of_2(N))


@triton.jit
def _transpose(x, y, M, N, sxm, sym, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    m = (rm[:, None] < M) & (rn[None, :] < N)
    t = tl.load(x + rm[:, None] * sxm + rn[None, :], mask=m)
    tl.store(y + rn[None, :] * sym + rm[:, None], t, mask=m)


def transpose(x, y):
    M, N = x.shape
    _transpose[(triton.cdiv(M, 64), triton.cdiv(N, 64))](x, y, M, N, x.stride(0), y.stride(0), BM=64, BN=64)


@triton.jit
def _gemm(a, b, bias, c, M, N, K, sam, sbk, scm, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        ta = tl.load(a + rm[:, None] * sam + (k + rk)[None, :], mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        tb = tl.load(b + (k + rk)[:, None] * sbk + rn[None, :], mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(ta, tb)
    tl.store(c + rm[:, None] * scm + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def gemm(a, b, bias, c):
    M, K = a.shape
    N = b.shape[1]
    _gemm[(triton.cdiv(M, 64), triton.cdiv(N, 64))](a, b, bias, c, M, N, K, a.stride(0), b.stride(0), c.stride(0),
                                                    BM=64, BN=64, BK=32)


@triton.jit
def _matmul(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn,
            BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr):
    # Programs walk GROUP_M row tiles down one column of tiles before moving right, so the B tiles
    # of a group stay in L2 while its A rows are reused.
    pid = tl.program_id(0)
    tiles_m, tiles_n = tl.cdiv(M, BM), tl.cdiv(N, BN)
    per_group = GROUP_M * tiles_n
    first_m = (pid // per_group) * GROUP_M
    rows = min(tiles_m - first_m, GROUP_M)
    pm = first_m + (pid % per_group) % rows
    pn = (pid % per_group) // rows
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        ta = tl.load(a + rm[:, None] * sam + (k + rk)[None, :] * sak,
                     mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        tb = tl.load(b + (k + rk)[:, None] * sbk + rn[None, :] * sbn,
                     mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(ta, tb, acc)
    tl.store(c + rm[:, None] * scm + rn[None, :] * scn, acc.to(c.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def matmul(a, b, c):
    """A fixed, commonly used Hopper configuration: 128x256x64 tiles, 8 warps, 3 stages, GROUP_M 8."""
    M, K = a.shape
    N = b.shape[1]
    grid = (triton.cdiv(M, 128) * triton.cdiv(N, 256),)
    _matmul[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                  BM=128, BN=256, BK=64, GROUP_M=8, num_warps=8, num_stages=3)
