// `gpuvet debug …`: hidden helpers for developers and support. `dump-nvml` writes this node's NVML
// answers as a fake-NVML scenario (docs/nvml-scenario.md), so a real machine becomes a fixture.
#pragma once

namespace CLI {
class App;
}

namespace gpuvet {

void AddDebugCommand(CLI::App& app, int* exit_code);

}  // namespace gpuvet
