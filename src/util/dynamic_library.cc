// dlopen wrapper; dlinfo(RTLD_DI_LINKMAP) tells which file the search path resolved to.
#include "util/dynamic_library.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <link.h>

namespace gpuvet {

Result<OpenedLibrary> OpenLibrary(const std::string& name) {
  dlerror();  // clear any stale error
  void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* err = dlerror();
    return Unavailable(err != nullptr ? err : fmt::format("{}: cannot be loaded", name));
  }
  OpenedLibrary lib{handle, name};
  link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr &&
      map->l_name[0] != '\0') {
    lib.path = map->l_name;
  }
  return lib;
}

}  // namespace gpuvet
