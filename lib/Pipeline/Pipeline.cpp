//===- Pipeline.cpp - the compilation pipeline, in order -------------------===//
//
// Like Halide's Lower.cpp, the order of the pipeline is visible in one short
// function. Groups whose passes have not landed yet are listed as comments in
// place, so the next pass has an obvious home (seed 002 §3).
//
//===----------------------------------------------------------------------===//

#include "tessel/Pipeline/Pipeline.h"

#include "tessel/Conversion/Passes.h"
#include "tessel/Dialect/KIR/Transforms/Passes.h"
#include "tessel/Dialect/PGPU/Transforms/Passes.h"
#include "tessel/Target/Triton/Triton.h"

#include "mlir/Transforms/Passes.h"

using namespace mlir;

void tessel::buildPipeline(OpPassManager &pm, Stage stage) {
  // KIR: stable origins for everything lowered from each op (seed 002 §2.1).
  pm.addPass(kir::createKIRAnnotateOrigins());
  if (stage == Stage::KIR)
    return;
  // §3.1 construct the complete initial program.
  pm.addPass(createConvertKIRToPGPU());
  pm.addPass(createCanonicalizerPass()); // fold constructed address arithmetic
  pm.addPass(createCSEPass());           // construction replays producers; merge what it repeated
  // §3.2 refine program mapping; for contraction nests mapping and multi-axis
  // fragments are one decision (§3.2-§3.4), made first.
  pm.addPass(pgpu::createPGPUFormTiles());
  pm.addPass(pgpu::createPGPURefineMapping());
  // §3.3 form blocking and fragments
  pm.addPass(pgpu::createPGPUFormBlocking());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // §3.4 co-realize values, accesses and structured ops: a row that fits one block is read once
  //      (the staged path; CSE merges the repeated reads and pointwise work).
  pm.addPass(pgpu::createPGPUStageRows());
  pm.addPass(createCSEPass());
  //      online summaries                (seed 002 §1)
  // §3.5 predicate range narrowing: a blocked loop's full blocks run without their lane masks.
  //      (summary emptiness: not yet)
  pm.addPass(pgpu::createPGPUNarrowPredicates());
  //      and a blocked fold's tiles: all-true / mixed / all-false intervals.
  pm.addPass(pgpu::createPGPUNarrowFoldRanges());
  // §3.4 realization, after narrowing: folds become their loops, and a contraction's epilogue
  //      (its sole addition, under relaxed numerics its row scaling) joins its accumulator.
  pm.addPass(pgpu::createPGPURealizeFolds());
  pm.addPass(pgpu::createPGPUMergeContractAdd());
  if (stage == Stage::PGPU)
    return;
  // §3.6 target-capability legalization, then §3.7 serialization (by the caller).
  pm.addPass(triton::createTritonLegalize());
}
