// The command table and the command-line entry point.
#pragma once

namespace gpuvet {

// Parses argv, runs the chosen subcommand and returns the process exit code (see core/report.h).
int RunCommandLine(int argc, char** argv);

}  // namespace gpuvet
