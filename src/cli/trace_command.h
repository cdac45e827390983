// `gpuvet trace FILE_OR_DIR`: what a PyTorch profiler or Nsight Systems trace says the GPU waits
// on, in the shared bottleneck vocabulary.
#pragma once

namespace CLI {
class App;
}

namespace gpuvet {

void AddTraceCommand(CLI::App& app, int* exit_code);

}  // namespace gpuvet
