#include "blas/next_blas.hpp"

#include <dlfcn.h>
#include <link.h>

#include <atomic>
#include <cstring>
#include <string>
#include <vector>

namespace bf16x::blas {
namespace {

const void* own_base() {
  Dl_info info{};
  dladdr(reinterpret_cast<const void*>(&own_base), &info);
  return info.dli_fbase;
}

// Every loaded object after the executable, in load order (names collected first: dlopen may not be called from
// inside dl_iterate_phdr).
std::vector<std::string> loaded_objects() {
  std::vector<std::string> names;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* out) {
        if (info->dlpi_name && *info->dlpi_name)
          static_cast<std::vector<std::string>*>(out)->push_back(info->dlpi_name);
        return 0;
      },
      &names);
  return names;
}

void* lookup(const char* name) {
  // RTLD_NEXT covers the objects of the global scope: the program's own libraries.
  if (void* p = dlsym(RTLD_NEXT, name)) return p;
  // A BLAS loaded with dlopen(RTLD_LOCAL) (Python extension modules are) is outside that scope, yet its callers
  // bind to the shim first; the next definition is then the first other loaded object that defines the name.
  const void* self = own_base();
  for (const std::string& obj : loaded_objects()) {
    void* h = dlopen(obj.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (!h) continue;
    void* p = dlsym(h, name);
    dlclose(h);
    Dl_info info{};
    if (p && dladdr(p, &info) && info.dli_fbase != self) return p;
  }
  return nullptr;
}

}  // namespace

void* find_next(NextDefinition& d) {
  void* p = d.found.load(std::memory_order_acquire);
  if (!p) {
    p = lookup(d.name);
    if (p) d.found.store(p, std::memory_order_release);
  }
  return p;
}

const char* library_of(const void* fn) {
  Dl_info info{};
  if (!fn || !dladdr(fn, &info) || !info.dli_fname) return "?";
  const char* slash = std::strrchr(info.dli_fname, '/');
  return slash ? slash + 1 : info.dli_fname;
}

}  // namespace bf16x::blas
