// Runs a program with arguments and extra environment, capturing stdout and stderr, with a
// wall-clock limit (the child is killed past it). Test-only helper for the end-to-end tests.
#pragma once

#include <string>
#include <vector>

namespace gpuvet::e2e {

struct RunResult {
  int exit_code = -1;  // -1 when killed by a signal or the time limit
  bool timed_out = false;
  double seconds = 0;
  std::string out, err;
};

RunResult RunBinary(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                    int timeout_s = 60);

}  // namespace gpuvet::e2e
