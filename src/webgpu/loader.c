// Loads the webgpu.h provider at run time and resolves its functions.
//
// Dawn's libwebgpu_wrapper.so has no SONAME and exports ~15.8k symbols
// (abseil, SPIRV-Tools, libstdc++ instantiations), so it is never linked:
// RTLD_LOCAL keeps those symbols out of the process's global namespace and
// RTLD_NOW reports a missing dependency at load time rather than at the first
// call. The library stays loaded until exit: Dawn starts threads and
// registers destructors, and unloading it under them is not safe.
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "webgpu/wgpu.h"

// Where scripts/setup-webgpu.sh installs the provider.
#define TFR_WGPU_INSTALLED_PATH "/usr/local/lib/tenferro/libwebgpu_wrapper.so"
#define TFR_WGPU_SONAME "libwebgpu_wrapper.so"

static pthread_mutex_t tfr_wgpu_load_lock = PTHREAD_MUTEX_INITIALIZER;
static tfr_wgpu_procs tfr_wgpu_table;
static bool tfr_wgpu_loaded;
static char tfr_wgpu_path[4096];

// Resolves every function of TFR_WGPU_PROCS from `handle` into `t`; on a
// missing one returns its name.
static const char *tfr_wgpu_resolve(void *handle, tfr_wgpu_procs *t) {
  void *sym;
  // ISO C has no conversion from void * to a function pointer; dlsym's
  // result is copied bytewise, as POSIX allows.
#define TFR_WGPU_RESOLVE(ret, name, params)         \
  sym = dlsym(handle, #name);                       \
  if (!sym) return #name;                           \
  memcpy(&t->name, &sym, sizeof sym);
  TFR_WGPU_PROCS(TFR_WGPU_RESOLVE)
#undef TFR_WGPU_RESOLVE
  sym = dlsym(handle, "wgpuAdapterPropertiesSubgroupMatrixConfigsFreeMembers");
  memcpy(&t->wgpuAdapterPropertiesSubgroupMatrixConfigsFreeMembers, &sym, sizeof sym);
  return NULL;
}

// Appends "; `path`: `why`" to the message buffer.
static void tfr_wgpu_note(char *msg, size_t cap, const char *path, const char *why) {
  size_t n = strlen(msg);
  if (n + 1 < cap)
    snprintf(msg + n, cap - n, "%s%s: %s", n ? "; " : "", path, why ? why : "unknown error");
}

tfr_status tfr_wgpu_load(const tfr_wgpu_procs **out_procs, const char **out_path) {
  pthread_mutex_lock(&tfr_wgpu_load_lock);
  if (tfr_wgpu_loaded) {
    pthread_mutex_unlock(&tfr_wgpu_load_lock);
    *out_procs = &tfr_wgpu_table;
    *out_path = tfr_wgpu_path;
    return TFR_OK;
  }
  const char *env = getenv("TFR_WEBGPU_LIBRARY");
  const char *candidates[3];
  int ncand = 0;
  if (env && env[0]) {
    // An explicit choice is the only one: silently falling back to another
    // provider would hide a typo.
    candidates[ncand++] = env;
  } else {
    candidates[ncand++] = TFR_WGPU_INSTALLED_PATH;
    candidates[ncand++] = TFR_WGPU_SONAME;
  }
  char tried[2048] = "";
  tfr_status st = TFR_ERR_BACKEND_UNAVAILABLE;
  for (int i = 0; i < ncand; i++) {
    void *h = dlopen(candidates[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      tfr_wgpu_note(tried, sizeof tried, candidates[i], dlerror());
      continue;
    }
    tfr_wgpu_procs t;
    const char *missing = tfr_wgpu_resolve(h, &t);
    if (missing) {
      dlclose(h);
      pthread_mutex_unlock(&tfr_wgpu_load_lock);
      return tfr_error(TFR_ERR_BACKEND_UNAVAILABLE,
                       "webgpu: the provider %s lacks the function %s: it is not the webgpu.h "
                       "build tenferro was written for (Dawn from npm "
                       "bun-webgpu-linux-x64@0.1.7; see docs/webgpu.md)",
                       candidates[i], missing);
    }
    tfr_wgpu_table = t;
    snprintf(tfr_wgpu_path, sizeof tfr_wgpu_path, "%s", candidates[i]);
    tfr_wgpu_loaded = true;
    st = TFR_OK;
    break;
  }
  pthread_mutex_unlock(&tfr_wgpu_load_lock);
  if (st)
    return tfr_error(st,
                     "webgpu: cannot load the WebGPU provider (%s%s); install it with "
                     "scripts/setup-webgpu.sh or point TFR_WEBGPU_LIBRARY at a webgpu.h "
                     "library",
                     env && env[0] ? "TFR_WEBGPU_LIBRARY=" : "tried ", tried);
  *out_procs = &tfr_wgpu_table;
  *out_path = tfr_wgpu_path;
  return TFR_OK;
}

tfr_status tfr_webgpu_provider_path(const char **out_path) {
  if (!out_path) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "webgpu_provider_path: out_path is NULL");
  *out_path = NULL;
  const tfr_wgpu_procs *p;
  return tfr_wgpu_load(&p, out_path);
}
