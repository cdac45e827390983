// `gpuvet report INPUT… -o report.html`: one self-contained HTML page from gpuvet JSON documents
// (check, bench, trace, analyze, fleet) and recording files (read directly, so the timeline has
// every sample). Exit codes: 0 the page was written, 2 an input could not be read or is not a
// gpuvet document (nothing is written), 3 internal.
#pragma once

namespace CLI {
class App;
}

namespace gpuvet {

void AddReportCommand(CLI::App& app, int* exit_code);

}  // namespace gpuvet
