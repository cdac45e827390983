// gpuvet entry point: dispatches to the command table and maps an escaped exception to the
// internal-error exit code (the only catch-all in the program).
#include <cstdio>
#include <exception>

#include "cli/commands.h"
#include "core/report.h"

int main(int argc, char** argv) {
  try {
    return gpuvet::RunCommandLine(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpuvet: internal error: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "gpuvet: internal error: unknown exception\n");
  }
  return gpuvet::kExitInternal;
}
