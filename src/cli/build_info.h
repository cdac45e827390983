// What `gpuvet --version` prints: the project version and the git commit it was built from,
// generated at configure time (cmake/GpuvetBuildInfo.cmake) into one small translation unit of
// the gpuvet executable (not of gpuvet_cli), so a new commit recompiles that file and relinks
// only gpuvet.
#pragma once

namespace gpuvet {

// The project version ("0.1.0").
const char* BuildVersion();
// The abbreviated git commit of the source tree at configure time ("8fc3435abcd1"), the
// GPUVET_GIT_COMMIT cache value when set (tarball builds, distribution packages), else "unknown".
const char* BuildCommit();

}  // namespace gpuvet
