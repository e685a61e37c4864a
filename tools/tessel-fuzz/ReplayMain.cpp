//===- ReplayMain.cpp - tessel-fuzz without libFuzzer ----------------------===//
//
// In the ordinary build (no -DTESSEL_FUZZ) tessel-fuzz is this driver around
// the same LLVMFuzzerTestOneInput: it runs every FILE argument (a folder: its
// files, sorted) once, in one process, so that many inputs cost no process
// start each (the fuzzer's CI budget, python/tests/test_fuzz.py) and a
// libFuzzer finding replays under gcc. Before each input it prints
// `input PATH` and flushes, so whoever sees the process die knows which
// input did it; `--timeout=S` ends the process with SIGALRM when one input
// runs longer than S seconds; `--profile` adds the seconds spent in each of
// the harness's stages over all inputs.
//
//===----------------------------------------------------------------------===//

#include "Reach.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <unistd.h>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace {
/// FILE itself, or a folder's regular files in name order.
void collect(const std::string &path, std::vector<std::string> &files) {
  if (!llvm::sys::fs::is_directory(path)) {
    files.push_back(path);
    return;
  }
  std::vector<std::string> found;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(path, ec), end; it != end && !ec; it.increment(ec))
    if (llvm::sys::fs::is_regular_file(it->path()))
      found.push_back(it->path());
  std::sort(found.begin(), found.end());
  files.insert(files.end(), found.begin(), found.end());
}
} // namespace

int main(int argc, char **argv) {
  unsigned timeout = 0;
  bool profile = false;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg.consume_front("--timeout=")) {
      if (arg.getAsInteger(10, timeout)) {
        std::fprintf(stderr, "tessel-fuzz: --timeout expects seconds, got '%s'\n", argv[i]);
        return 2;
      }
      continue;
    }
    if (arg == "--profile") {
      profile = true;
      continue;
    }
    if (arg.starts_with("-")) {
      std::fprintf(stderr, "usage: tessel-fuzz [--timeout=S] [--profile] FILE|DIR...  (this build has no libFuzzer: it "
                           "replays the inputs once each; docs/fuzzing.md)\n");
      return 2;
    }
    collect(argv[i], files);
  }
  for (const std::string &file : files) {
    auto buffer = llvm::MemoryBuffer::getFile(file, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!buffer) {
      std::fprintf(stderr, "tessel-fuzz: cannot read %s: %s\n", file.c_str(), buffer.getError().message().c_str());
      return 2;
    }
    std::printf("input %s\n", file.c_str());
    std::fflush(stdout);
    alarm(timeout);
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>((*buffer)->getBufferStart()), (*buffer)->getBufferSize());
    alarm(0);
  }
  const TesselFuzzReach &r = tesselFuzzReach;
  std::printf("tessel-fuzz: %llu inputs, no crash; %llu parsed and verified, %llu reached pgpu, %llu serialized "
              "to Triton\n",
              (unsigned long long)r.inputs, (unsigned long long)r.parsed, (unsigned long long)r.pgpu,
              (unsigned long long)r.serialized);
  if (profile) {
    double total = 0;
    for (double seconds : r.seconds)
      total += seconds;
    std::printf("tessel-fuzz: %.3f s in the harness (%.3f ms per input):", total,
                r.inputs ? 1e3 * total / r.inputs : 0.0);
    for (int stage = 0; stage < TesselFuzzReach::NumStages; ++stage)
      std::printf(" %s %.3f s (%.0f%%)%s", TesselFuzzReach::stageNames[stage], r.seconds[stage],
                  total ? 100 * r.seconds[stage] / total : 0.0, stage + 1 < TesselFuzzReach::NumStages ? "," : "\n");
  }
  return 0;
}
