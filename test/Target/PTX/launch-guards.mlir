// Launch guards as variants (LaunchGuards.h; PTXTarget: one guard): a `pgpu.if` whose condition is
// a LaunchExpr (softmax's `0 < N <= BLOCK`: one pass over the row, else the multi-pass loops)
// becomes two kernels, each with only its branch, so ptxas sizes registers for the branch a launch
// runs. The wrapper and `tessel run` evaluate the condition on the host and launch the variant.
// RUN: tessel compile %tessel_src/examples/kir/softmax.mlir --target=ptx --emit=device | FileCheck %s
// CHECK-LABEL: gpu.func @softmax$g0(
// CHECK: scf.for
// CHECK: gpu.return
// CHECK-LABEL: gpu.func @softmax$g1(
// CHECK-NOT: scf.for {{.*}} step %c512
// CHECK: gpu.shuffle xor
// CHECK: gpu.return

// RUN: tessel compile %tessel_src/examples/kir/softmax.mlir --target=ptx --emit=wrapper | FileCheck %s --check-prefix=WRAP
// WRAP: _ptx.launch(_PTX, 'softmax$g' + ('1' if ((0 < {{.*}}x.shape[1]{{.*}}) <= 512)) else '0'), _grid, 128,

// COM: Both are PTX entries (ptxas.mlir assembles them).
// RUN: tessel compile %tessel_src/examples/kir/softmax.mlir --target=ptx | FileCheck %s --check-prefix=PTX
// PTX: .visible .entry softmax$g0(
// PTX: .visible .entry softmax$g1(

// COM: Must not fire: a kernel without a launch guard keeps its name (vector_add's conditions read
// COM: the program id), and the AMDGPU target, which has no launcher to choose, keeps one kernel.
// RUN: tessel compile %tessel_src/examples/kir/vector_add.mlir --target=ptx --emit=device | FileCheck %s --check-prefix=NONE
// NONE: gpu.func @vector_add(
// NONE-NOT: $g
// RUN: tessel compile %tessel_src/examples/kir/softmax.mlir --target=amdgpu --emit=device | FileCheck %s --check-prefix=AMD
// AMD: gpu.func @softmax(
// AMD-NOT: $g
