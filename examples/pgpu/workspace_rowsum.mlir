// Invocation workspace, written by hand: each program m stages x[m, n] + 1 in a workspace buffer
// (initialized to 1.0 by the runtime: pgpu.init) and then sums the staged row into y[m], so
// y[m] = sum_n x[m, n] + 2 N. The workspace is a compiler-private kernel argument: the Triton
// wrapper allocates it per call from the view extents, the interpreter before the launch.
module attributes {pgpu.target = #pgpu.target<arch = "sm_90", shared_memory_bytes = 232448>} {
  pgpu.kernel @workspace_rowsum(%x: !pgpu.view<f32, [M, N], in>, %y: !pgpu.view<f32, [M], out>,
                                %ws: !pgpu.buffer<f32, [M, N], workspace> {pgpu.private = "workspace", pgpu.init = 1.0 : f32}) {
    %M = pgpu.extent %x[0] : !pgpu.view<f32, [M, N], in>
    %N = pgpu.extent %x[1] : !pgpu.view<f32, [M, N], in>
    pgpu.program_space (%M) {
    ^bb0(%m: index):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %t = arith.constant true
      %z = arith.constant 0.0 : f32
      pgpu.for %c0 to %N step %c1 {
      ^bb0(%n: index):
        %v = pgpu.load %x[%m, %n] valid %t : i1 fill %z : f32 : !pgpu.view<f32, [M, N], in>[index, index] -> f32
        %w = pgpu.buffer_load %ws[%m, %n] valid %t : i1 fill %z : f32 : !pgpu.buffer<f32, [M, N], workspace>[index, index] -> f32
        %s = pgpu.binary add %v, %w : f32
        pgpu.buffer_store %s, %ws[%m, %n] valid %t : i1 : f32, !pgpu.buffer<f32, [M, N], workspace>[index, index]
        pgpu.yield
      }
      %sum = pgpu.for %c0 to %N step %c1 iter_args(%z : f32) -> f32 {
      ^bb0(%n: index, %acc: f32):
        %w = pgpu.buffer_load %ws[%m, %n] valid %t : i1 fill %z : f32 : !pgpu.buffer<f32, [M, N], workspace>[index, index] -> f32
        %a = pgpu.binary add %acc, %w : f32
        pgpu.yield %a : f32
      }
      %one = arith.constant 1.0 : f32
      %nf = pgpu.cast %N : index to f32
      %extra = pgpu.binary mul %nf, %one : f32
      %total = pgpu.binary add %sum, %extra : f32
      pgpu.store %total, %y[%m] valid %t : i1 : f32, !pgpu.view<f32, [M], out>[index]
      pgpu.yield
    }
    pgpu.return
  }
}
