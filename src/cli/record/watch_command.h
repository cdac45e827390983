// `gpuvet watch [--interval 1s] [--pid PID] [--count N]`: a live terminal view of the GPUs, the
// host and (with --pid) the workload's busiest processes and threads; one line per sample when
// stdout is not a terminal.
#pragma once

namespace CLI {
class App;
}

namespace gpuvet {

void AddWatchCommand(CLI::App& app, int* exit_code);

}  // namespace gpuvet
