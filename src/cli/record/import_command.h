// `gpuvet import [--format auto|dmon|query-csv] FILE -o OUT`: turns an nvidia-smi dmon or
// query-gpu CSV log into a recording that `gpuvet analyze` reads.
#pragma once

namespace CLI {
class App;
}

namespace gpuvet {

void AddImportCommand(CLI::App& app, int* exit_code);

}  // namespace gpuvet
