// What the fuzz targets share (fuzz_support.h).
#include "fuzz_support.h"

#include <stdlib.h>
#include <string.h>

tfr_backend *tfr_fuzz_cpu(void) {
  static tfr_backend *b;
  if (!b) {
    tfr_cpu_options o = {.num_threads = 1};
    if (tfr_backend_create_cpu(&o, &b) != TFR_OK) abort();
  }
  return b;
}

char *tfr_fuzz_text(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  if (!text) return NULL;
  memcpy(text, data, size);
  text[size] = '\0';
  return text;
}
