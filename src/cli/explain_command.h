// `gpuvet checks` (the check catalogue, then the fleet findings, then the bottleneck labels) and
// `gpuvet explain ID` (one entry of any of the three).
#pragma once

namespace CLI {
class App;
}

namespace gpuvet {

// Adds `checks [--format text|json]`; its callback stores the exit code in *exit_code (which must
// outlive the app).
void AddChecksCommand(CLI::App& app, int* exit_code);

// Adds `explain ID` for a check id, a fleet id, a label or "label/subcase"; an unknown id is a
// usage error with close ids suggested. The exit code goes to *exit_code (outliving the app).
void AddExplainCommand(CLI::App& app, int* exit_code);

}  // namespace gpuvet
