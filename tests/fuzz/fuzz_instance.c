// fuzz_instance: `tenferro contract`'s instance reader (tools/tenferro/
// instance.c) on arbitrary text, with and without a stored path; an
// instance it accepts is then planned as the tool plans it (its stored path
// given, else greedy), which must succeed or fail with a status, never crash.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "instance.h"
#include "fuzz_support.h"
#include "tenferro/tenferro.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = tfr_fuzz_text(data, size);
  if (!text) return 0;
  for (int with_path = 0; with_path < 2; with_path++) {
    tfr_instance in;
    if (tfr_instance_parse("fuzz.json", text, size, with_path ? "opt_flops" : NULL, &in) == 0) {
      if (in.n < 1 || !in.subscripts || !in.ranks || !in.shapes || !tfr_dtype_get_info(in.dtype))
        abort();
      if (with_path && in.path_len > 0 && !in.path) abort();
      tfr_einsum_options o = {.path_kind = TFR_EINSUM_PATH_GREEDY};
      if (with_path) {
        o.path_kind = TFR_EINSUM_PATH_GIVEN;
        o.path = in.path;
        o.path_len = in.path_len;
      }
      tfr_einsum_plan *p = NULL;
      if (tfr_einsum_plan_create(in.subscripts, in.n, in.ranks,
                                 (const int64_t *const *)in.shapes, &o, &p) == TFR_OK) {
        if (!p) abort();
      } else if (p) {
        abort();
      }
      tfr_einsum_plan_release(p);
    }
    tfr_instance_free(&in);
  }
  free(text);
  return 0;
}
