// fuzz_conformance: one line of the conformance corpus format (JSONL,
// tests/conformance/FORMAT.md) through the reader, and a case it accepts
// through the runner's executor on the cpu backend (a 16 MiB budget for
// its values): every op of the set with attributes from the input, through
// the public API. Errors are fine; crashes, leaks and hangs are not.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conformance.h"
#include "fuzz_support.h"
#include "tenferro/tenferro.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *line = tfr_fuzz_text(data, size);
  if (!line) return 0;
  tfr_conf_case c;
  memset(&c, 0, sizeof c);
  char err[TFR_CONF_MSG], buf[TFR_CONF_MSG];
  if (tfr_conf_case_parse(line, size, &c, err) && !tfr_conf_skip_reason(&c, buf)) {
    tfr_session *s = NULL;
    if (tfr_session_begin(tfr_fuzz_cpu(), &s) != TFR_OK) abort();
    tfr_conf_exec x = {.session = s, .c = &c, .max_memory = 16 << 20};
    unsigned char *got = NULL;
    size_t nbytes = 0;
    if (tfr_conf_execute(&x, &got, &nbytes)) {
      // The result has the declared type, so its size is the expected one's.
      if (nbytes != c.expected.nbytes) abort();
    } else if (got) {
      abort();
    }
    free(got);
    (void)tfr_session_end(s);
  }
  tfr_conf_case_free(&c);
  free(line);
  return 0;
}
