//===- BodyEffects.cpp - a control op's effects, summarized from its body -===//

#include "tessel/Dialect/Utils/BodyEffects.h"

using namespace mlir;

bool tessel::summarizesBodyEffects(Operation *op) { return op->hasTrait<SummarizesBodyEffects>(); }

void tessel::summarizeBodyEffects(Operation *op,
                                  SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  bool read = false, alloc = false, free = false, write = false;
  auto note = [&](MemoryEffects::Effect *e) {
    read |= isa<MemoryEffects::Read>(e);
    alloc |= isa<MemoryEffects::Allocate>(e);
    free |= isa<MemoryEffects::Free>(e);
    write |= isa<MemoryEffects::Write>(e);
  };
  // Ranges of ops still to scan, each from its end; a nested region op's blocks are scanned before
  // the ops above it (an explicit stack: no recursion over nesting).
  SmallVector<std::pair<Block::reverse_iterator, Block::reverse_iterator>> stack;
  auto pushRegions = [&](Operation *parent) {
    for (Region &region : parent->getRegions())
      for (Block &block : region)
        stack.emplace_back(block.rbegin(), block.rend());
  };
  pushRegions(op);
  while (!stack.empty() && !write) {
    auto &[it, end] = stack.back();
    if (it == end) {
      stack.pop_back();
      continue;
    }
    Operation *inner = &*it++;
    bool recursive = inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>();
    if (!summarizesBodyEffects(inner)) {
      if (auto iface = dyn_cast<MemoryEffectOpInterface>(inner)) {
        SmallVector<MemoryEffects::EffectInstance> own;
        iface.getEffects(own);
        for (auto &e : own)
          note(e.getEffect());
      } else if (!recursive) {
        write = true; // unknown effects: MLIR assumes the worst
      }
    }
    if (recursive)
      pushRegions(inner); // invalidates `it`; the range was advanced before
  }
  if (read)
    effects.emplace_back(MemoryEffects::Read::get());
  if (alloc)
    effects.emplace_back(MemoryEffects::Allocate::get());
  if (free)
    effects.emplace_back(MemoryEffects::Free::get());
  if (write)
    effects.emplace_back(MemoryEffects::Write::get());
}
