// What every subcommand of the tool shares: reporting the library's errors,
// making a backend by name, bringing a result to the host.
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "tenferro/tenferro.h"

int tfr_cli_make_backend(const char *cmd, const char *name, int threads, int adapter,
                         tfr_backend **out, bool *unavailable) {
  *out = NULL;
  if (unavailable) *unavailable = false;
  tfr_status st;
  if (strcmp(name, "cpu") == 0) {
    tfr_cpu_options o = {.num_threads = threads};
    st = tfr_backend_create_cpu(&o, out);
  } else if (strcmp(name, "webgpu") == 0) {
    tfr_webgpu_options o = {.adapter_index = adapter};
    st = tfr_backend_create_webgpu(&o, out);
    if (unavailable) *unavailable = st == TFR_ERR_BACKEND_UNAVAILABLE;
  } else {
    fprintf(stderr, "tenferro %s: unknown backend '%s' (cpu or webgpu)\n", cmd, name);
    return 2;
  }
  if (st) {
    char what[64];
    snprintf(what, sizeof what, "%s backend", name);
    return tfr_cli_fail(what);
  }
  return 0;
}

int tfr_cli_to_host(tfr_session *s, const tfr_tensor *t, tfr_tensor **out) {
  *out = NULL;
  if (tfr_tensor_is_host(t)) {
    tfr_tensor_retain((tfr_tensor *)t);
    *out = (tfr_tensor *)t;
    return 0;
  }
  return tfr_download(s, t, out) == TFR_OK ? 0 : tfr_cli_fail("download");
}

int tfr_cli_fail(const char *what) {
  // Library messages start with the op ("einsum: ..."): no need to say it twice.
  const char *msg = tfr_last_error_message();
  size_t n = strlen(what);
  if (strncmp(msg, what, n) == 0 && msg[n] == ':') fprintf(stderr, "tenferro: %s\n", msg);
  else fprintf(stderr, "tenferro: %s: %s\n", what, msg);
  return 1;
}

int tfr_cli_errorf(const char *cmd, const char *where, const char *fmt, ...) {
  fprintf(stderr, "tenferro %s: %s: ", cmd, where);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  return 1;
}
