// fuzz_npy: tfr_npy_load_buffer on arbitrary bytes (the .npy reader of
// `tenferro einsum` and tfr_npy_load), then a round trip of what it accepts
// through tfr_npy_save_buffer, whose bytes must load back to the same tensor.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tenferro/tenferro.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tfr_tensor *t = NULL;
  if (tfr_npy_load_buffer(data, size, &t) != TFR_OK) {
    if (t) abort();  // an error never hands out a tensor
    return 0;
  }
  size_t n = 0;
  if (tfr_npy_save_buffer(t, NULL, 0, &n) == TFR_OK && n <= (size_t)64 << 20) {
    unsigned char *img = malloc(n ? n : 1);
    tfr_tensor *back = NULL;
    size_t n2 = 0;
    if (img && tfr_npy_save_buffer(t, img, n, &n2) == TFR_OK) {
      if (n2 != n || tfr_npy_load_buffer(img, n, &back) != TFR_OK) abort();
      size_t nb = tfr_tensor_nbytes(t);
      if (tfr_tensor_nbytes(back) != nb || tfr_tensor_dtype(back) != tfr_tensor_dtype(t) ||
          tfr_tensor_rank(back) != tfr_tensor_rank(t))
        abort();
      unsigned char *a = malloc(nb ? nb : 1), *b = malloc(nb ? nb : 1);
      if (a && b && tfr_tensor_read(t, a, nb) == TFR_OK &&
          tfr_tensor_read(back, b, nb) == TFR_OK && memcmp(a, b, nb) != 0)
        abort();
      free(a);
      free(b);
    }
    tfr_tensor_release(back);
    free(img);
  }
  tfr_tensor_release(t);
  return 0;
}
