// Opening a shared library at run time (dlopen) with the error as a value and the path the loader
// actually mapped: shared by the NVML and CUDA driver loaders.
#pragma once

#include <string>

#include "util/status.h"

namespace gpuvet {

struct OpenedLibrary {
  void* handle = nullptr;  // from dlopen(RTLD_NOW | RTLD_LOCAL); owned by the caller
  std::string path;        // the file the loader mapped (after search path), else the name given
};

// dlopen(name). Unavailable with dlerror()'s message when it cannot be loaded.
Result<OpenedLibrary> OpenLibrary(const std::string& name);

}  // namespace gpuvet
