// replay_main.cc - a main() for a fuzz target built without libFuzzer: runs
// LLVMFuzzerTestOneInput() once on every file named on the command line (directories are
// walked), or, without arguments, on the target's seed corpus and crash regressions
// (FUZZ_DIR/corpus/FUZZ_TARGET and FUZZ_DIR/regressions/FUZZ_TARGET, set at compile time).
// `make check` runs it, so every input that once crashed stays fixed in every build,
// including scripts/sanitize's.  An invariant violation aborts; the exit status is 0 when
// every input ran.
// Copyright (C) 2026 The Fairway authors.  GPL-2.0-or-later.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  std::vector<fs::path> roots;
  for (int i = 1; i < argc; ++i) roots.emplace_back(argv[i]);
#if defined(FUZZ_DIR) && defined(FUZZ_TARGET)
  if (roots.empty()) {
    roots.emplace_back(fs::path(FUZZ_DIR) / "corpus" / FUZZ_TARGET);
    roots.emplace_back(fs::path(FUZZ_DIR) / "regressions" / FUZZ_TARGET);
  }
#endif
  std::vector<fs::path> files;
  for (const fs::path& r : roots) {
    std::error_code ec;
    if (fs::is_directory(r, ec)) {
      for (const auto& e : fs::recursive_directory_iterator(r))
        if (e.is_regular_file() && e.path().filename().string()[0] != '.')
          files.push_back(e.path());
    } else if (fs::exists(r, ec)) {
      files.push_back(r);
    } else {
      std::fprintf(stderr, "replay: %s does not exist\n", r.c_str());
      return 1;
    }
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    std::fprintf(stderr, "replay: no inputs\n");
    return 1;
  }
  for (const fs::path& f : files) {
    std::ifstream in(f, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "replay: cannot read %s\n", f.c_str());
      return 1;
    }
    const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::fprintf(stderr, "replay: %s (%zu bytes)\n", f.c_str(), data.size());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(data.data()), data.size());
  }
  std::printf("replay %s: %zu inputs, 0 failures\n",
#ifdef FUZZ_TARGET
              FUZZ_TARGET,
#else
              "",
#endif
              files.size());
  return 0;
}
