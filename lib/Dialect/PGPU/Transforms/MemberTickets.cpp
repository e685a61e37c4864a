//===- MemberTickets.cpp - a finalization split by the instances it waits for ===//
//
// seed 000 §3 (execution groups), §4.4 (invocation workspace, a full initial
// value set once), §9 (no barrier across instances; acq_rel tickets);
// seed 002 §3.2 (rewrite the ownership of program instances). Construction
// runs a workset that reads what an earlier workset wrote whole in the last
// program instance (`pgpu.last_program`): one instance then does all of it
// (split-K's sum of the partials runs in one program after every product).
//
// When each member of that finalization reads only what the instances with
// the same coordinates along some group axes wrote, it need not wait for all
// of them: the member runs in the last of *those* instances. The finalization
// `foreach i { (m, n) = delinearize i by (E_m, E_n); body(m, n) }` whose
// extents are the group's axes (s, m, n) becomes, at the end of the group
// body, `pgpu.last_program %tickets[m, n] arrivals E_s { body(m, n) }` with
// a new runtime-zeroed i32 workspace of one ticket per (m, n). Form-tiles then
// tiles it with the group (one ticket per tile).
//
// Legality (all from the current IR): the finalization is pure code and one
// such foreach; every resource the group writes is written unconditionally
// at the group's top level by plain stores with the member axes as plain
// coordinates at fixed positions; the finalization reads those resources
// only with the member's coordinates at those positions (so it reads only
// what the instances sharing its ticket wrote) and writes only resources the
// group does not touch, at coordinates that name the member (members write
// disjoint elements); no atomics, scatters or nested finalizations; the
// arrival axes have provably at least one member (someone arrives).
//
// Must not fire: a finalization over other extents (the grouped GEMM's
// tail), one that reads a written resource elsewhere, conditional or
// scattered writes, several groups.
//
//===----------------------------------------------------------------------===//

#include "TileBodies.h"
#include "tessel/Dialect/PGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tessel::pgpu {
#define GEN_PASS_DEF_PGPUMEMBERTICKETS
#include "tessel/Dialect/PGPU/Transforms/Passes.h.inc"
} // namespace tessel::pgpu

using namespace mlir;
using namespace tessel;
using namespace tessel::pgpu;

namespace {
/// Whether `v` is provably >= 1: a positive constant, or max/mul/ceil_div of such.
bool positive(Value v) {
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return c.sgt(0);
  if (auto cd = v.getDefiningOp<CeilDivOp>())
    return positive(cd.getLhs()) && positive(cd.getRhs());
  auto bin = v.getDefiningOp<BinaryOp>();
  if (!bin)
    return false;
  if (bin.getKind() == kir::BinaryKind::Max)
    return positive(bin.getLhs()) || positive(bin.getRhs());
  if (bin.getKind() == kir::BinaryKind::Mul)
    return positive(bin.getLhs()) && positive(bin.getRhs());
  return false;
}

/// The resource and coordinates of a memory access, or null for an op that is not one.
std::pair<Value, ValueRange> accessOf(Operation *op) {
  if (auto a = dyn_cast<LoadOp>(op))
    return {a.getView(), a.getCoords()};
  if (auto a = dyn_cast<StoreOp>(op))
    return {a.getView(), a.getCoords()};
  if (auto a = dyn_cast<BufferLoadOp>(op))
    return {a.getBuffer(), a.getCoords()};
  if (auto a = dyn_cast<BufferStoreOp>(op))
    return {a.getBuffer(), a.getCoords()};
  return {Value(), ValueRange()};
}

class Distributor {
public:
  Distributor(KernelOp kernel, ProgramSpaceOp space, ExecutionGroupOp group, LastProgramOp last)
      : kernel(kernel), space(space), group(group), last(last) {}
  LogicalResult analyze();
  void rewrite();
  std::string whyNot;

private:
  LogicalResult reject(const Twine &why) {
    whyNot = why.str();
    return failure();
  }
  KernelOp kernel;
  ProgramSpaceOp space;
  ExecutionGroupOp group;
  LastProgramOp last;
  ForeachOp each;
  SmallVector<Value> members;            // the member's coordinates in the finalization
  SmallVector<unsigned> ticketAxes;      // the group axis of each member coordinate
  SmallVector<Attribute> ticketExtents;  // the ticket buffer's extents
  DenseMap<Value, SmallVector<unsigned>> written; // resource -> positions of the ticket axes
};

LogicalResult Distributor::analyze() {
  // The finalization: pure code, then one foreach over the linearized members.
  for (Operation &op : last.getBody().front().without_terminator()) {
    if (auto f = dyn_cast<ForeachOp>(op)) {
      if (each)
        return reject("the finalization runs several worksets");
      each = f;
      continue;
    }
    if (op.getNumRegions() || !isMemoryEffectFree(&op))
      return reject("the finalization does more than one workset");
  }
  if (!each || !isZeroConstant(each.getLower()))
    return reject("the finalization is not one workset from 0");
  Block &body = each.getBody().front();
  Value linear = body.getArgument(0);
  SmallVector<Value> extents;
  if (auto decode = dyn_cast<DelinearizeOp>(body.front()); decode && decode.getLinear() == linear) {
    extents.assign(decode.getExtents().begin(), decode.getExtents().end());
    members.assign(decode.getResults().begin(), decode.getResults().end());
    if (!isProductOf(each.getUpper(), extents))
      return reject("the finalization's trip count is not the product of its members' extents");
  } else {
    extents.push_back(each.getUpper());
    members.push_back(linear);
  }
  // Each member extent is a distinct group axis.
  ValueRange groupExtents = group.getExtents();
  for (Value e : extents) {
    auto it = llvm::find(groupExtents, e);
    unsigned axis = it - groupExtents.begin();
    if (it == groupExtents.end() || llvm::is_contained(ticketAxes, axis))
      return reject("the finalization's members are not the group's members along some of its axes");
    ticketAxes.push_back(axis);
  }
  if (ticketAxes.size() == groupExtents.size())
    return reject("every group axis is a member axis (no instances to wait for share a member)");
  for (unsigned a = 0; a < groupExtents.size(); ++a)
    if (!llvm::is_contained(ticketAxes, a) && !positive(groupExtents[a]))
      return reject("an axis the tickets wait along may be empty (no instance would arrive)");
  // The group's writes: unconditional plain stores at its top level, member axes as coordinates.
  Block &groupBody = group.getBody().front();
  WalkResult walked = group.getBody().walk([&](Operation *op) {
    if (isMemoryEffectFree(op) || isa<LoadOp, BufferLoadOp>(op) || op->getNumRegions())
      return WalkResult::advance();
    auto [resource, coords] = accessOf(op);
    Value valid = resource ? op->getOperand(op->getNumOperands() - 1) : Value();
    if (!resource || op->getBlock() != &groupBody || !matchPattern(valid, m_One())) {
      whyNot = "the group writes conditionally, atomically or by scatter";
      return WalkResult::interrupt();
    }
    SmallVector<unsigned> positions;
    for (unsigned axis : ticketAxes) {
      auto at = llvm::find(coords, groupBody.getArgument(axis));
      if (at == coords.end()) {
        whyNot = "a group write does not name a member axis as a coordinate";
        return WalkResult::interrupt();
      }
      positions.push_back(at - coords.begin());
    }
    auto [it, inserted] = written.try_emplace(resource, positions);
    if (!inserted && it->second != positions) {
      whyNot = "the group writes one resource with the member axes at different positions";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (walked.wasInterrupted())
    return failure();
  if (written.empty())
    return reject("the group writes nothing the finalization could wait for");
  // The finalization's accesses: reads of written resources at the member's coordinates only;
  // writes to untouched resources, naming the member.
  bool readsWritten = false;
  walked = each.getBody().walk([&](Operation *op) {
    auto [resource, coords] = accessOf(op);
    if (!resource) {
      if (!isMemoryEffectFree(op) && !op->getNumRegions()) {
        whyNot = "the finalization has atomics, scatters or other effects";
        return WalkResult::interrupt();
      }
      if (isa<LastProgramOp>(op)) {
        whyNot = "the finalization nests another";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    }
    bool isRead = isa<LoadOp, BufferLoadOp>(op);
    auto it = written.find(resource);
    if (isRead && it == written.end())
      return WalkResult::advance(); // read-only input
    if (!isRead) {
      bool touched = it != written.end() || group.getBody()
                                                .walk([&](Operation *inner) {
                                                  return accessOf(inner).first == resource ? WalkResult::interrupt()
                                                                                           : WalkResult::advance();
                                                })
                                                .wasInterrupted();
      bool named = llvm::all_of(members, [&](Value m) { return llvm::is_contained(coords, m); });
      if (touched || !named) {
        whyNot = "the finalization writes what the group touches, or not at its member's coordinates";
        return WalkResult::interrupt();
      }
      bool readBack = each.getBody()
                          .walk([&](Operation *inner) {
                            return inner != op && accessOf(inner).first == resource ? WalkResult::interrupt()
                                                                                    : WalkResult::advance();
                          })
                          .wasInterrupted();
      if (readBack) {
        whyNot = "the finalization reads what it writes";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    }
    for (auto [i, position] : llvm::enumerate(it->second))
      if (coords[position] != members[i]) {
        whyNot = "the finalization reads what the group wrote beyond its member's slice";
        return WalkResult::interrupt();
      }
    readsWritten = true;
    return WalkResult::advance();
  });
  if (walked.wasInterrupted())
    return failure();
  if (!readsWritten)
    return reject("the finalization reads nothing the group wrote");
  // One ticket per member: the extents of a written resource along the member axes (every member
  // coordinate indexed it unconditionally, so they bound the members).
  auto &[resource, positions] = *written.begin();
  ArrayRef<Attribute> resourceExtents = isa<BufferType>(resource.getType())
                                            ? cast<BufferType>(resource.getType()).getExtents()
                                            : cast<ViewType>(resource.getType()).getExtents();
  for (unsigned position : positions)
    ticketExtents.push_back(resourceExtents[position]);
  // Values the finalization uses must reach the group: launch-time, or its own pure code.
  walked = each.getBody().walk([&](Operation *op) {
    for (Value v : op->getOperands()) {
      Operation *def = v.getDefiningOp();
      Region *owner = def ? def->getParentRegion() : cast<BlockArgument>(v).getOwner()->getParent();
      if (space->isAncestor(owner->getParentOp()) && !last->isAncestor(owner->getParentOp())) {
        whyNot = "the finalization uses a value of the program body";
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return failure(walked.wasInterrupted());
}

void Distributor::rewrite() {
  Location loc = last.getLoc();
  // The tickets: runtime-zeroed i32 invocation workspace, one per member.
  Value tickets = addZeroedCounters(kernel, loc, ticketExtents);
  // The arrivals: the instances along the other axes.
  OpBuilder b(space);
  Value arrivals;
  for (auto [a, e] : llvm::enumerate(group.getExtents())) {
    if (llvm::is_contained(ticketAxes, unsigned(a)))
      continue;
    arrivals = arrivals ? Value(BinaryOp::create(b, loc, kir::BinaryKind::Mul, arrivals, e, false, false)) : e;
  }
  // At the end of the group body: the member's finalization under its ticket.
  Block &groupBody = group.getBody().front();
  b.setInsertionPoint(groupBody.getTerminator());
  SmallVector<Value> coords;
  for (unsigned axis : ticketAxes)
    coords.push_back(groupBody.getArgument(axis));
  auto ticketed = LastProgramOp::create(b, loc, tickets, coords, arrivals);
  b.createBlock(&ticketed.getBody());
  IRMapping map;
  for (auto [m, c] : llvm::zip(members, coords))
    map.map(m, c);
  for (Operation &op : last.getBody().front().without_terminator())
    if (&op != each.getOperation())
      b.clone(op, map);
  for (Operation &op : each.getBody().front().without_terminator())
    if (!(isa<DelinearizeOp>(op) && op.getResult(0) == members.front()))
      b.clone(op, map);
  YieldOp::create(b, loc);
  Value oldTicket = last.getTicket();
  last.erase();
  // The program space's ticket is no longer counted: its workspace argument goes.
  if (auto arg = dyn_cast<BlockArgument>(oldTicket); arg && arg.use_empty())
    (void)kernel.eraseArgument(arg.getArgNumber());
  // No whole-space finalization is left: the dispatch guard and the extra instance go.
  if (auto guard = dyn_cast<IfOp>(group->getParentOp())) {
    auto bound = guard.getCondition().getDefiningOp<CmpOp>();
    space->setOperand(0, bound.getRhs());
    group->moveBefore(guard);
    guard.erase();
    if (bound->use_empty())
      bound.erase();
  }
}

struct MemberTickets : public tessel::pgpu::impl::PGPUMemberTicketsBase<MemberTickets> {
  void runOnOperation() override {
    for (KernelOp kernel : getOperation().getOps<KernelOp>()) {
      ProgramSpaceOp space;
      kernel.walk([&](ProgramSpaceOp s) { space = s; });
      if (!space)
        continue;
      LastProgramOp last;
      for (Operation &op : space.getBody().front())
        if (auto l = dyn_cast<LastProgramOp>(op))
          last = l;
      ExecutionGroupOp group = last ? soleExecutionGroup(space, /*finalization=*/true) : ExecutionGroupOp();
      if (!group)
        continue;
      bool remarks = remarksEnabled(kernel);
      Distributor distributor(kernel, space, group, last);
      if (failed(distributor.analyze())) {
        if (remarks)
          last.emitRemark() << "pgpu-member-tickets: the finalization waits for every instance: "
                            << distributor.whyNot;
        continue;
      }
      if (remarks)
        last.emitRemark() << "pgpu-member-tickets: each member's finalization runs in the last instance that "
                             "shares its ticket (group axes "
                          << group.getExtents().size() << ")";
      distributor.rewrite();
    }
  }
};
} // namespace
