// `gpuvet checks` (the catalogue) and `gpuvet explain ID` (one entry).
#pragma once

namespace CLI {
class App;
}

namespace gpuvet {

void AddChecksCommand(CLI::App& app, int* exit_code);
void AddExplainCommand(CLI::App& app, int* exit_code);

}  // namespace gpuvet
