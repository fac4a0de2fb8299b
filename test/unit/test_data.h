// Locating test fixtures: $FAIRWAY_TEST_DATA, else FAIRWAY_TEST_DATA_DIR (compile time), else
// "test/data" relative to the working directory (the source tree's root).
#pragma once

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace fairway::test {

inline std::string data_dir() {
  if (const char* e = std::getenv("FAIRWAY_TEST_DATA"); e && *e) return e;
#ifdef FAIRWAY_TEST_DATA_DIR
  return FAIRWAY_TEST_DATA_DIR;
#else
  return "test/data";
#endif
}

inline std::string data_path(const std::string& relative) { return data_dir() + "/" + relative; }

inline std::string read_data(const std::string& relative) {
  std::ifstream in(data_path(relative), std::ios::binary);
  if (!in) throw std::runtime_error("cannot open test fixture " + data_path(relative));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace fairway::test
