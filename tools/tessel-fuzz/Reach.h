//===- Reach.h - how far tessel-fuzz's inputs got ---------------*- C++ -*-===//
//
// Counted by the harness, printed by the replay driver (a libFuzzer run
// reports coverage instead): a fuzz budget whose inputs all stop at the
// parser would test little, and these numbers show it. The seconds spent in
// each stage (`tessel-fuzz --profile`) show where an execution's time goes.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TOOLS_FUZZ_REACH_H
#define TESSEL_TOOLS_FUZZ_REACH_H

#include <cstdint>

struct TesselFuzzReach {
  uint64_t inputs = 0, parsed = 0, pgpu = 0, serialized = 0;
  enum Stage { Setup, Parse, KIRInterp, Pipeline, PGPUInterp, CuTile, Triton, Teardown, NumStages };
  static constexpr const char *stageNames[NumStages] = {"setup",      "parse+verify", "kir-interp", "pipeline",
                                                        "pgpu-interp", "cutile",       "triton",     "teardown"};
  double seconds[NumStages] = {};
};
extern TesselFuzzReach tesselFuzzReach;

#endif // TESSEL_TOOLS_FUZZ_REACH_H
