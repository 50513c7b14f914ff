// The text buffer of the WGSL generators (wgsl_text.h).
#include "webgpu/wgsl_text.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

// Room for n more bytes and a NUL; false (and a flag) when there is none.
static bool tfr_wgsl_reserve(tfr_wgsl_text *t, size_t n) {
  if (t->overflow || t->failed) return false;
  if (t->limit && t->len + n + 1 > t->limit) {
    t->overflow = true;
    return false;
  }
  if (t->len + n + 1 > t->cap) {
    size_t cap = t->cap ? t->cap : 1024;
    while (cap < t->len + n + 1) cap *= 2;
    char *b = tfr_realloc(t->buf, cap);
    if (!b) {
      t->failed = true;
      return false;
    }
    t->buf = b;
    t->cap = cap;
  }
  return true;
}

void tfr_wgsl_put(tfr_wgsl_text *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) {
    t->failed = true;
    return;
  }
  if (!tfr_wgsl_reserve(t, (size_t)n)) return;
  va_start(ap, fmt);
  vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
  va_end(ap);
  t->len += (size_t)n;
}

void tfr_wgsl_append(tfr_wgsl_text *t, const char *s, size_t n) {
  if (!tfr_wgsl_reserve(t, n)) return;
  memcpy(t->buf + t->len, s, n);
  t->len += n;
  t->buf[t->len] = '\0';
}

void tfr_wgsl_text_free(tfr_wgsl_text *t) {
  tfr_free(t->buf);
  t->buf = NULL;
  t->len = t->cap = 0;
}
