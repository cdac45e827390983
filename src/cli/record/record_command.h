// `gpuvet record -o FILE [--interval 1s] [--duration D] [--pid PID | -- CMD ARGS]`: samples the
// GPUs, the host and the workload's process tree into a recording (docs/recording.md) while the
// workload runs; exits with the workload's exit code.
#pragma once

namespace CLI {
class App;
}

namespace gpuvet {

void AddRecordCommand(CLI::App& app, int* exit_code);

}  // namespace gpuvet
