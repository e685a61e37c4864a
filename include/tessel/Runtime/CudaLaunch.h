/*===- CudaLaunch.h - the PTX provider's launch, as a C ABI -------*- C -*-===*\
|*                                                                            *|
|* libtessel_cuda.so: what a generated PTX wrapper (tessel._ptx, through      *|
|* ctypes) calls to launch on tensors the caller owns. Only the driver part  *|
|* of tessel's runtime is in it (no MLIR): libcuda.so.1 by dlopen, the       *|
|* module cache, one process-wide mutex (seed 004).                          *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TESSEL_RUNTIME_CUDALAUNCH_H
#define TESSEL_RUNTIME_CUDALAUNCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Launches kernel `name` of the PTX module `ptx` (loaded once per device with cuModuleLoadData)
   on device `device`, on a 1-d grid of `grid` CTAs of `threads` threads, asynchronously on
   `stream` (a CUstream; null: the legacy default stream). `words` holds one 8-byte word per
   kernel parameter in the order of the PTX ABI (Target/PTX/PTX.h): pointers and i64 as is,
   narrower scalars in the low bytes. Returns 0, or nonzero with a message in `error`. */
int tessel_ptx_launch(const char *ptx, const char *name, int device, uint64_t grid, uint32_t threads,
                      void *stream, const uint64_t *words, size_t count, char *error, size_t errorBytes);

#ifdef __cplusplus
}
#endif

#endif /* TESSEL_RUNTIME_CUDALAUNCH_H */
