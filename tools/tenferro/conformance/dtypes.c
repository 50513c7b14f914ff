// Conformance runner: the corpus's element types, float decoding and
// formatting of single elements for failure reports.
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare.h"

// Every dtype FORMAT.md lists, whether or not the library has it: a case is
// skipped for a dtype the library lacks, but still read and counted.
static const tfr_conf_dtype tfr_conf_dtypes[] = {
    {"bool", 1, TFR_CONF_KIND_BOOL, TFR_CONF_FMT_NONE},
    {"i8", 1, TFR_CONF_KIND_INT, TFR_CONF_FMT_NONE},
    {"i16", 2, TFR_CONF_KIND_INT, TFR_CONF_FMT_NONE},
    {"i32", 4, TFR_CONF_KIND_INT, TFR_CONF_FMT_NONE},
    {"i64", 8, TFR_CONF_KIND_INT, TFR_CONF_FMT_NONE},
    {"u8", 1, TFR_CONF_KIND_UINT, TFR_CONF_FMT_NONE},
    {"u16", 2, TFR_CONF_KIND_UINT, TFR_CONF_FMT_NONE},
    {"u32", 4, TFR_CONF_KIND_UINT, TFR_CONF_FMT_NONE},
    {"u64", 8, TFR_CONF_KIND_UINT, TFR_CONF_FMT_NONE},
    {"f16", 2, TFR_CONF_KIND_FLOAT, TFR_CONF_FMT_F16},
    {"bf16", 2, TFR_CONF_KIND_FLOAT, TFR_CONF_FMT_BF16},
    {"f32", 4, TFR_CONF_KIND_FLOAT, TFR_CONF_FMT_F32},
    {"f64", 8, TFR_CONF_KIND_FLOAT, TFR_CONF_FMT_F64},
    {"c64", 8, TFR_CONF_KIND_COMPLEX, TFR_CONF_FMT_F32},
    {"c128", 16, TFR_CONF_KIND_COMPLEX, TFR_CONF_FMT_F64},
};

const tfr_conf_dtype *tfr_conf_dtype_find(const char *name) {
  if (!name) return NULL;
  for (size_t i = 0; i < sizeof tfr_conf_dtypes / sizeof tfr_conf_dtypes[0]; i++)
    if (strcmp(tfr_conf_dtypes[i].name, name) == 0) return &tfr_conf_dtypes[i];
  return NULL;
}

int tfr_conf_format_bits(tfr_conf_float_format format) {
  switch (format) {
    case TFR_CONF_FMT_F16:
    case TFR_CONF_FMT_BF16: return 16;
    case TFR_CONF_FMT_F32: return 32;
    case TFR_CONF_FMT_F64: return 64;
    case TFR_CONF_FMT_NONE: break;
  }
  return 0;
}

double tfr_conf_float_value(tfr_conf_float_format format, uint64_t bits) {
  switch (format) {
    case TFR_CONF_FMT_F16: {
      double sign = (bits & 0x8000u) ? -1.0 : 1.0;
      int exp = (int)((bits >> 10) & 0x1fu);
      double mant = (double)(bits & 0x3ffu);
      if (exp == 0x1f) return mant != 0.0 ? NAN : sign * INFINITY;
      if (exp == 0) return sign * ldexp(mant, -24);  // subnormal
      return sign * ldexp(mant + 1024.0, exp - 25);
    }
    case TFR_CONF_FMT_BF16: {
      uint32_t w = (uint32_t)(bits & 0xffffu) << 16;
      float f;
      memcpy(&f, &w, sizeof f);
      return f;
    }
    case TFR_CONF_FMT_F32: {
      uint32_t w = (uint32_t)bits;
      float f;
      memcpy(&f, &w, sizeof f);
      return f;
    }
    case TFR_CONF_FMT_F64: {
      double d;
      memcpy(&d, &bits, sizeof d);
      return d;
    }
    case TFR_CONF_FMT_NONE: break;
  }
  return NAN;
}

uint64_t tfr_conf_load_bits(tfr_conf_float_format format, const unsigned char *p) {
  int nbytes = tfr_conf_format_bits(format) / 8;
  uint64_t v = 0;
  for (int i = nbytes - 1; i >= 0; i--) v = (v << 8) | p[i];  // little-endian, any host
  return v;
}

static int64_t tfr_conf_load_int(const unsigned char *p, size_t size, bool is_signed) {
  uint64_t v = 0;
  for (size_t i = size; i-- > 0;) v = (v << 8) | p[i];
  if (is_signed && size < 8 && (v >> (size * 8 - 1)) & 1u) v |= ~(uint64_t)0 << (size * 8);
  return (int64_t)v;
}

static uint64_t tfr_conf_load_uint(const unsigned char *p, size_t size) {
  uint64_t v = 0;
  for (size_t i = size; i-- > 0;) v = (v << 8) | p[i];
  return v;
}

// One float as "value (0xbits)": %.17g shows every digit an f64 has, so two
// different values never print alike.
static int tfr_conf_format_float(tfr_conf_float_format format, const unsigned char *p, char *buf,
                                 size_t n) {
  uint64_t bits = tfr_conf_load_bits(format, p);
  int digits = tfr_conf_format_bits(format) / 4;
  return snprintf(buf, n, "%.17g (0x%0*" PRIx64 ")", tfr_conf_float_value(format, bits), digits,
                  bits);
}

void tfr_conf_format_element(const tfr_conf_dtype *dtype, const void *data, int64_t index,
                             char *buf, size_t n) {
  if (n == 0) return;
  const unsigned char *p = (const unsigned char *)data + (size_t)index * dtype->size;
  switch (dtype->kind) {
    case TFR_CONF_KIND_BOOL:
      snprintf(buf, n, "%s (0x%02x)", p[0] == 1 ? "true" : p[0] == 0 ? "false" : "invalid", p[0]);
      return;
    case TFR_CONF_KIND_INT:
      snprintf(buf, n, "%" PRId64, tfr_conf_load_int(p, dtype->size, true));
      return;
    case TFR_CONF_KIND_UINT:
      snprintf(buf, n, "%" PRIu64, tfr_conf_load_uint(p, dtype->size));
      return;
    case TFR_CONF_KIND_FLOAT:
      tfr_conf_format_float(dtype->format, p, buf, n);
      return;
    case TFR_CONF_KIND_COMPLEX: {
      size_t part = dtype->size / 2;
      int used = snprintf(buf, n, "re ");
      if (used < 0 || (size_t)used >= n) return;
      int more = tfr_conf_format_float(dtype->format, p, buf + used, n - (size_t)used);
      if (more < 0 || (size_t)(used + more) >= n) return;
      used += more;
      more = snprintf(buf + used, n - (size_t)used, ", im ");
      if (more < 0 || (size_t)(used + more) >= n) return;
      used += more;
      tfr_conf_format_float(dtype->format, p + part, buf + used, n - (size_t)used);
      return;
    }
  }
  snprintf(buf, n, "?");
}
