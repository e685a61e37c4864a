// RUN: tessel-opt %s -split-input-file -kir-to-pgpu -verify-diagnostics | FileCheck %s

// COM: A kernel-level first-write buffer (seed 000 §4.4) becomes an uninitialized invocation-workspace
// COM: argument sized from its domains (a constant and view extents); the parallel workset writes its
// COM: slices with pgpu.buffer_store. The top-level sum over the splits reads what every split wrote:
// COM: one launch has no barrier between worksets, so it runs whole in the last program instance
// COM: (a ticket, zero-filled), as one foreach over its M x N elements decoded row-major.
// CHECK-LABEL: pgpu.kernel @splitk(
// CHECK-SAME: %[[PART:[a-z0-9]+]]: !pgpu.buffer<f32, [2, M, N], workspace> {pgpu.private = "workspace"},
// CHECK-SAME: %[[TICKET:[a-z0-9]+]]: !pgpu.buffer<i32, [1], workspace> {pgpu.init = 0 : i32, pgpu.private = "workspace"})
// CHECK: pgpu.program_space
// CHECK: pgpu.execution_group
// CHECK: pgpu.foreach
// CHECK: pgpu.range_reduce
// CHECK: pgpu.buffer_store %{{.*}}, %[[PART]][
// CHECK: pgpu.last_program %[[TICKET]]
// CHECK: %[[MN:.*]] = pgpu.binary mul
// CHECK: pgpu.foreach %{{.*}} to %[[MN]] {
// CHECK: pgpu.delinearize
// CHECK: pgpu.range_reduce
// CHECK: pgpu.buffer_load %[[PART]][
// CHECK: pgpu.store %{{.*}}, %c[
module {
  kir.kernel @splitk(%a: !kir.view<f32, [M, K], in>, %b: !kir.view<f32, [K, N], in>, %c: !kir.view<f32, [M, N], out>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %zero = arith.constant 0.0 : f32
    %m = kir.extent "M"
    %k = kir.extent "K"
    %n = kir.extent "N"
    %dm = kir.domain %c0 to %m
    %dn = kir.domain %c0 to %n
    %dk = kir.domain %c0 to %k
    %ds = kir.domain %c0 to %c2
    %kp = kir.binary add %k, %c1 : index
    %chunk = kir.binary div %kp, %c2 : index
    %part = kir.buffer over(%ds, %dm, %dn) first_write : !kir.buffer<tensor<?x?x?xf32>>
    kir.parallel %ds {
    ^bb0(%s: index):
      %lo0 = kir.binary mul %s, %chunk : index
      %lo = kir.binary min %lo0, %k : index
      %s1 = kir.binary add %s, %c1 : index
      %hi0 = kir.binary mul %s1, %chunk : index
      %hi = kir.binary min %hi0, %k : index
      %mine = kir.subregion %dk[%lo : %hi]
      %x = kir.load %a[%dm, %mine] : !kir.view<f32, [M, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
      %y = kir.load %b[%mine, %dn] : !kir.view<f32, [K, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
      %p = kir.contract %x, %y reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
      kir.buffer_store %p, %part[%s, %dm, %dn] : tensor<?x?xf32>, !kir.buffer<tensor<?x?x?xf32>>[index, !kir.domain, !kir.domain]
      kir.yield
    }
    %all = kir.buffer_load %part[%ds, %dm, %dn] : !kir.buffer<tensor<?x?x?xf32>>[!kir.domain, !kir.domain, !kir.domain] -> tensor<?x?x?xf32>
    %sum = kir.reduce %all axes [0] identity(%zero : f32) : (tensor<?x?x?xf32>) -> (tensor<?x?xf32>) {
    ^bb0(%u: f32, %v: f32):
      %w = kir.binary add %u, %v : f32
      kir.yield %w : f32
    }
    kir.store %sum, %c[%dm, %dn] : tensor<?x?xf32>, !kir.view<f32, [M, N], out>[!kir.domain, !kir.domain]
    kir.return
  }
}

// -----

// COM: Must not add a barrier: the buffer is written and read by the same workset (each instance reads
// COM: its own writes), so no workset runs in the last program and no ticket is made. A constant fill
// COM: becomes the workspace's pgpu.init.
// CHECK-LABEL: pgpu.kernel @same_workset(
// CHECK-SAME: !pgpu.buffer<f32, [N], workspace> {pgpu.init = 1.000000e+00 : f32, pgpu.private = "workspace"})
// CHECK-NOT: pgpu.last_program
module {
  kir.kernel @same_workset(%x: !kir.view<f32, [N], in>, %y: !kir.view<f32, [N], out>) {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1.0 : f32
    %n = kir.extent "N"
    %dn = kir.domain %c0 to %n
    %buf = kir.buffer over(%dn) init %one : f32 : !kir.buffer<tensor<?xf32>>
    kir.parallel %dn {
    ^bb0(%i: index):
      %v = kir.load %x[%i] : !kir.view<f32, [N], in>[index] -> f32
      %w = kir.buffer_load %buf[%i] : !kir.buffer<tensor<?xf32>>[index] -> f32
      %s = kir.binary add %v, %w : f32
      kir.buffer_store %s, %buf[%i] : f32, !kir.buffer<tensor<?xf32>>[index]
      %r = kir.buffer_load %buf[%i] : !kir.buffer<tensor<?xf32>>[index] -> f32
      kir.store %r, %y[%i] : f32, !kir.view<f32, [N], out>[index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: A workset that needs the barrier (it reads what an earlier workset wrote) and writes a
// COM: kernel-level buffer too is phased: a segment waiting for every instance before it, and the
// COM: workset reading that buffer a third segment waiting in turn (chained phases, issue 41).
// CHECK-LABEL: pgpu.kernel @two_barriers
// CHECK: pgpu.execution_group {{.*}} segment 0
// CHECK: pgpu.buffer_store {{.*}}, %[[B1:arg[0-9]+]]
// CHECK: pgpu.while
// CHECK: pgpu.atomic_load
// CHECK: pgpu.execution_group {{.*}} segment 1
// CHECK: pgpu.buffer_load %[[B1]]
// CHECK: pgpu.buffer_store {{.*}}, %[[B2:arg[0-9]+]]
// CHECK: pgpu.while
// CHECK: pgpu.atomic_load
// CHECK: pgpu.execution_group {{.*}} segment 2
// CHECK: pgpu.buffer_load %[[B2]]
// CHECK: pgpu.last_program
module {
  kir.kernel @two_barriers(%x: !kir.view<f32, [N], in>, %y: !kir.view<f32, [N], out>) {
    %c0 = arith.constant 0 : index
    %n = kir.extent "N"
    %dn = kir.domain %c0 to %n
    %b1 = kir.buffer over(%dn) first_write : !kir.buffer<tensor<?xf32>>
    %b2 = kir.buffer over(%dn) first_write : !kir.buffer<tensor<?xf32>>
    kir.parallel %dn {
    ^bb0(%i: index):
      %v = kir.load %x[%i] : !kir.view<f32, [N], in>[index] -> f32
      kir.buffer_store %v, %b1[%i] : f32, !kir.buffer<tensor<?xf32>>[index]
      kir.yield
    }
    kir.parallel %dn {
    ^bb0(%i: index):
      %v = kir.buffer_load %b1[%i] : !kir.buffer<tensor<?xf32>>[index] -> f32
      kir.buffer_store %v, %b2[%i] : f32, !kir.buffer<tensor<?xf32>>[index]
      kir.yield
    }
    kir.parallel %dn {
    ^bb0(%i: index):
      %v = kir.buffer_load %b2[%i] : !kir.buffer<tensor<?xf32>>[index] -> f32
      kir.store %v, %y[%i] : f32, !kir.view<f32, [N], out>[index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Rejected at the op: in a kernel that computes a product, a finalization that computes none stays
// COM: in the last program (the product keeps its sole-group tiling); writing a kernel-level buffer a
// COM: later workset reads, it would need a second barrier there.
module {
  kir.kernel @two_barriers_product(%x: !kir.view<f32, [M, K], in>, %w: !kir.view<f32, [K, N], in>, %y: !kir.view<f32, [M, N], inout>, %z: !kir.view<f32, [M, N], out>) {
    %c0 = arith.constant 0 : index
    %m = kir.extent "M"
    %k = kir.extent "K"
    %n = kir.extent "N"
    %dm = kir.domain %c0 to %m
    %dk = kir.domain %c0 to %k
    %dn = kir.domain %c0 to %n
    %b = kir.buffer over(%dm, %dn) first_write : !kir.buffer<tensor<?x?xf32>>
    %a = kir.load %x[%dm, %dk] : !kir.view<f32, [M, K], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %bb = kir.load %w[%dk, %dn] : !kir.view<f32, [K, N], in>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %p = kir.contract %a, %bb reduce([1], [0]) batch([], []) : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
    kir.store %p, %y[%dm, %dn] : tensor<?x?xf32>, !kir.view<f32, [M, N], inout>[!kir.domain, !kir.domain]
    // expected-error@+1 {{writes a kernel-level buffer too: a second barrier is not constructed (not phased}}
    kir.parallel %dm {
    ^bb0(%i: index):
      %v = kir.load %y[%i, %dn] : !kir.view<f32, [M, N], inout>[index, !kir.domain] -> tensor<?xf32>
      kir.buffer_store %v, %b[%i, %dn] : tensor<?xf32>, !kir.buffer<tensor<?x?xf32>>[index, !kir.domain]
      kir.yield
    }
    kir.parallel %dm {
    ^bb0(%i: index):
      %v = kir.buffer_load %b[%i, %dn] : !kir.buffer<tensor<?x?xf32>>[index, !kir.domain] -> tensor<?xf32>
      kir.store %v, %z[%i, %dn] : tensor<?xf32>, !kir.view<f32, [M, N], out>[index, !kir.domain]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: Rejected at the op: a buffer axis that does not start at 0 has no workspace extent.
module {
  kir.kernel @offset_axis(%x: !kir.view<f32, [N], in>, %y: !kir.view<f32, [N], out>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = kir.extent "N"
    %dn = kir.domain %c0 to %n
    %d1 = kir.domain %c1 to %n
    // expected-error@+1 {{axis 0 of a kernel-level buffer must span [0, n) with step 1}}
    %buf = kir.buffer over(%d1) first_write : !kir.buffer<tensor<?xf32>>
    kir.parallel %dn {
    ^bb0(%i: index):
      %v = kir.load %x[%i] : !kir.view<f32, [N], in>[index] -> f32
      kir.store %v, %y[%i] : f32, !kir.view<f32, [N], out>[index]
      kir.yield
    }
    kir.return
  }
}

// -----

// COM: A store over a data-dependent subregion (rows[e:M] with e read from memory, the ragged grouped
// COM: GEMM's zero-filled tail): e and the subregion are replayed values, not launch-time facts; the
// COM: workset ranges over the launch-time domain it cuts (M rows) and each row inside [e, M) stores.
// COM: It writes the view the first workset writes, so it runs after it: a segment of its own
// COM: (PhasedSums.cpp, phaseFinalizations) whose instances wait until every earlier program instance
// COM: has arrived at the ticket, then store in parallel; the last program only returns the ticket.
// CHECK-LABEL: pgpu.kernel @tail
// CHECK: pgpu.execution_group %{{.*}} segment 0
// CHECK: pgpu.while {
// CHECK: pgpu.atomic_load %{{.*}} order acquire
// CHECK: pgpu.execution_group %{{.*}} segment 1
// CHECK: pgpu.range_reduce
// CHECK: %[[GE:.*]] = pgpu.cmp ge
// CHECK: %[[LT:.*]] = pgpu.cmp lt
// CHECK: pgpu.if
// CHECK: pgpu.store
// CHECK: pgpu.last_program
// CHECK-NEXT: pgpu.yield
module {
  kir.kernel @tail(%offs: !kir.view<i32, [G], in>, %c: !kir.view<f32, [M], out>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %low = arith.constant -2147483648 : i32
    %m = kir.extent "M"
    %g = kir.extent "G"
    %dm = kir.domain %c0 to %m
    %dg = kir.domain %c0 to %g
    kir.parallel %dm {
    ^bb0(%i: index):
      kir.store %one, %c[%i] : f32, !kir.view<f32, [M], out>[index]
      kir.yield
    }
    %o = kir.load %offs[%dg] : !kir.view<i32, [G], in>[!kir.domain] -> tensor<?xi32>
    %top = kir.reduce %o axes [0] identity(%low : i32) : (tensor<?xi32>) -> (i32) {
    ^bb0(%u: i32, %v: i32):
      %w = kir.binary max %u, %v : i32
      kir.yield %w : i32
    }
    %e = kir.cast %top : i32 to index
    %lo = kir.binary max %e, %c0 : index
    %rest = kir.subregion %dm[%lo : %m]
    %z = kir.broadcast %zero over(%rest) dims [] : f32 -> tensor<?xf32>
    kir.store %z, %c[%rest] : tensor<?xf32>, !kir.view<f32, [M], out>[!kir.domain]
    kir.return
  }
}

// -----

// COM: A buffer axis over [0, G), G an integer kernel scalar (bench/corpus/306_groupnorm_backward's group
// COM: axis, T.domain(0, T.cast(groups, T.index))): a launch-time fact that is no view extent. Before: refused
// COM: at the op. After: a pgpu.workspace_extent symbol bound to the domain's size before the program space
// COM: names the workspace axis (the runtime evaluates it as it does the grid). The sum over the buffer is
// COM: phased (PhasedSums.cpp: the parallel has two axes, which pgpu-member-partials does not spread): a
// COM: segment after a wait for every earlier instance, not the last program (splitk above keeps it).
// CHECK-LABEL: pgpu.kernel @scalar_axis(
// CHECK-SAME: %[[WS:[a-z0-9]+]]: !pgpu.buffer<f32, [N, BUFFER_EXTENT], workspace>
// CHECK: pgpu.workspace_extent "BUFFER_EXTENT" =
// CHECK: pgpu.program_space
// CHECK: pgpu.execution_group {{.*}} segment 0
// CHECK: pgpu.buffer_store %{{.*}}, %[[WS]][
// CHECK: pgpu.while
// CHECK: pgpu.execution_group {{.*}} segment 1
// CHECK: pgpu.buffer_load %[[WS]][
// CHECK: pgpu.last_program
module {
  kir.kernel @scalar_axis(%x: !kir.view<f32, [N], in>, %y: !kir.view<f32, [N], out>, %groups: i32) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %n = kir.extent "N"
    %g = kir.cast %groups : i32 to index
    %dn = kir.domain %c0 to %n
    %dg = kir.domain %c0 to %g
    %buf = kir.buffer over(%dn, %dg) first_write : !kir.buffer<tensor<?x?xf32>>
    kir.parallel %dn, %dg {
    ^bb0(%i: index, %j: index):
      %v = kir.load %x[%i] : !kir.view<f32, [N], in>[index] -> f32
      kir.buffer_store %v, %buf[%i, %j] : f32, !kir.buffer<tensor<?x?xf32>>[index, index]
      kir.yield
    }
    %all = kir.buffer_load %buf[%dn, %dg] : !kir.buffer<tensor<?x?xf32>>[!kir.domain, !kir.domain] -> tensor<?x?xf32>
    %sum = kir.reduce %all axes [1] identity(%zero : f32) : (tensor<?x?xf32>) -> (tensor<?xf32>) {
    ^bb0(%u: f32, %w: f32):
      %s = kir.binary add %u, %w : f32
      kir.yield %s : f32
    }
    kir.store %sum, %y[%dn] : tensor<?xf32>, !kir.view<f32, [N], out>[!kir.domain]
    kir.return
  }
}

// -----

// COM: Must not fire: a bound read from memory is no launch-time fact, so it sizes no workspace.
module {
  kir.kernel @read_axis(%x: !kir.view<f32, [N], in>, %k: !kir.view<i32, [1], in>, %y: !kir.view<f32, [N], out>) {
    %c0 = arith.constant 0 : index
    %n = kir.extent "N"
    %dn = kir.domain %c0 to %n
    %k0 = kir.load %k[%c0] : !kir.view<i32, [1], in>[index] -> i32
    %kk = kir.cast %k0 : i32 to index
    %dk = kir.domain %c0 to %kk
    // expected-error@+1 {{axis 0 of a kernel-level buffer must span [0, n) with step 1, n a launch-time fact}}
    %buf = kir.buffer over(%dk) first_write : !kir.buffer<tensor<?xf32>>
    kir.parallel %dn {
    ^bb0(%i: index):
      %v = kir.load %x[%i] : !kir.view<f32, [N], in>[index] -> f32
      kir.store %v, %y[%i] : f32, !kir.view<f32, [N], out>[index]
      kir.yield
    }
    kir.return
  }
}
