// Runs an external command (scontrol, kubectl) from an argv vector with posix_spawnp: no shell
// ever sees the arguments, so a reason with quotes, $(…) or ';' is one plain argument. Captures
// stdout and stderr (bounded) and kills the child past a deadline.
#pragma once

#include <string>
#include <vector>

namespace gpuvet {

struct CommandResult {
  bool started = false;  // false: could not spawn (not on PATH…), see `error`
  int exit_code = -1;    // -1 when killed by a signal or the deadline
  bool timed_out = false;
  std::string out, err;  // each cut at 1 MiB
  std::string error;     // why it did not start, or how it ended abnormally

  bool ok() const { return started && exit_code == 0; }
  // One line for reports: "exit 1: <first line of stderr>", "timed out after 30 s", …
  std::string Describe() const;
};

// Runs argv[0] (looked up on PATH) with the rest as arguments, stdin from /dev/null, the
// environment inherited. Blocks until it exits or `timeout_s` passes (then SIGKILL). Thread-safe.
CommandResult RunCommand(const std::vector<std::string>& argv, double timeout_s);

}  // namespace gpuvet
