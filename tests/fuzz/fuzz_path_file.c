// fuzz_path_file: the path-file reader of --path-file (tools/tenferro/
// path_file.c) on arbitrary text, for a fixed network of 5 operands with a
// hyperedge, a diagonal and an open output; a path it accepts is then given
// to the planner and its sliced labels applied, as the tool does.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "path_file.h"
#include "fuzz_support.h"
#include "tenferro/tenferro.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = tfr_fuzz_text(data, size);
  if (!text) return 0;
  static const int ranks[5] = {2, 3, 2, 2, 1};
  static const int64_t s0[] = {2, 3}, s1[] = {3, 4, 2}, s2[] = {4, 5}, s3[] = {5, 5}, s4[] = {2};
  static const int64_t *const shapes[5] = {s0, s1, s2, s3, s4};
  tfr_cli_network net = {"ab,bcd,ce,ee,d->ad", 5, ranks, shapes};
  tfr_path_read r;
  if (tfr_cli_path_parse("fuzz", "fuzz.json", text, size, &net, &r) == 0) {
    if (r.len > 0 && !r.pairs) abort();
    tfr_einsum_options o = {.path_kind = TFR_EINSUM_PATH_GIVEN, .path = r.pairs,
                            .path_len = r.len};
    tfr_einsum_plan *p = NULL;
    if (tfr_einsum_plan_create(net.subscripts, net.n, net.ranks, net.shapes, &o, &p) == TFR_OK) {
      if (r.sliced && r.sliced[0]) {
        tfr_status st = tfr_einsum_plan_slice(p, r.sliced);
        (void)st;
      }
      tfr_einsum_plan_release(p);
    } else if (p) {
      abort();
    }
  }
  free(r.pairs);
  free(r.sliced);
  free(text);
  return 0;
}
