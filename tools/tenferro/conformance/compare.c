// Conformance runner: comparison of a result with the expected tensor, by the
// definitions of tests/conformance/FORMAT.md ("Checks", "Recommended
// comparison"). Works on bit patterns, so NaN payloads, -0.0 and subnormals
// are seen exactly as stored.
#include <math.h>
#include <string.h>

#include "compare.h"

// The bit pattern of +infinity (exponent all ones, mantissa 0) of `format`.
static uint64_t tfr_conf_inf_bits(tfr_conf_float_format format) {
  switch (format) {
    case TFR_CONF_FMT_F16: return 0x7c00u;
    case TFR_CONF_FMT_BF16: return 0x7f80u;
    case TFR_CONF_FMT_F32: return 0x7f800000u;
    case TFR_CONF_FMT_F64: return 0x7ff0000000000000u;
    case TFR_CONF_FMT_NONE: break;
  }
  return 0;
}

static uint64_t tfr_conf_sign_bit(tfr_conf_float_format format) {
  return (uint64_t)1 << (tfr_conf_format_bits(format) - 1);
}

double tfr_conf_format_eps(tfr_conf_float_format format) {
  switch (format) {
    case TFR_CONF_FMT_F16: return ldexp(1.0, -10);
    case TFR_CONF_FMT_BF16: return ldexp(1.0, -7);
    case TFR_CONF_FMT_F32: return ldexp(1.0, -23);
    case TFR_CONF_FMT_F64: return ldexp(1.0, -52);
    case TFR_CONF_FMT_NONE: break;
  }
  return 0.0;
}

static double tfr_conf_smallest_normal(tfr_conf_float_format format) {
  switch (format) {
    case TFR_CONF_FMT_F16: return ldexp(1.0, -14);
    case TFR_CONF_FMT_BF16:
    case TFR_CONF_FMT_F32: return ldexp(1.0, -126);
    case TFR_CONF_FMT_F64: return ldexp(1.0, -1022);
    case TFR_CONF_FMT_NONE: break;
  }
  return 0.0;
}

uint64_t tfr_conf_ulp_distance(tfr_conf_float_format format, uint64_t a, uint64_t e) {
  if (a == e) return 0;
  if (format == TFR_CONF_FMT_NONE) return TFR_CONF_ULP_INF;  // not a float: no tolerance
  uint64_t sign = tfr_conf_sign_bit(format), inf = tfr_conf_inf_bits(format);
  uint64_t mag_a = a & (sign - 1), mag_e = e & (sign - 1);
  bool nan_a = mag_a > inf, nan_e = mag_e > inf;
  if (nan_a && nan_e) return 0;
  if (nan_a || nan_e || mag_a == inf || mag_e == inf) return TFR_CONF_ULP_INF;
  // Sign-cleared patterns of finite floats are ordered like their magnitudes,
  // so their difference counts the representable values in between.
  if ((a & sign) == (e & sign)) return mag_a > mag_e ? mag_a - mag_e : mag_e - mag_a;
  return mag_a + mag_e;
}

bool tfr_conf_float_ok(tfr_conf_float_format format, uint64_t a, uint64_t e,
                       tfr_conf_check check, const tfr_conf_tolerance *tol, double abs_bound) {
  if (a == e) return true;
  if (check == TFR_CONF_CHECK_EQ || format == TFR_CONF_FMT_NONE) return false;
  uint64_t sign = tfr_conf_sign_bit(format), inf = tfr_conf_inf_bits(format);
  uint64_t mag_a = a & (sign - 1), mag_e = e & (sign - 1);
  bool nan_a = mag_a > inf, nan_e = mag_e > inf;
  if (nan_a && nan_e) return true;
  // Past this point infinities and NaNs have no tolerance: they match only
  // the identical pattern, which was handled first.
  if (mag_a >= inf || mag_e >= inf) return false;
  bool subnormal_e = mag_e != 0 && (e & inf) == 0;  // exponent field all zeros
  if (tol && tol->flush_subnormals && subnormal_e && mag_a == 0) return true;
  uint64_t max_ulps = tol ? tol->max_ulps : 0;
  if (tfr_conf_ulp_distance(format, a, e) <= max_ulps) return true;
  double diff = fabs(tfr_conf_float_value(format, a) - tfr_conf_float_value(format, e));
  if (diff <= abs_bound) return true;
  return check == TFR_CONF_CHECK_ALMOST_EQ && diff <= 1e-3;
}

double tfr_conf_abs_bound(const tfr_conf_dtype *dtype, const void *expected, int64_t numel,
                          double t) {
  if (t <= 0.0 || dtype->format == TFR_CONF_FMT_NONE) return 0.0;
  tfr_conf_float_format format = dtype->format;
  size_t part = (size_t)tfr_conf_format_bits(format) / 8;
  int64_t nparts = numel * (dtype->kind == TFR_CONF_KIND_COMPLEX ? 2 : 1);
  double m = tfr_conf_smallest_normal(format);
  const unsigned char *p = expected;
  for (int64_t i = 0; i < nparts; i++) {
    double v = fabs(tfr_conf_float_value(format, tfr_conf_load_bits(format, p + (size_t)i * part)));
    if (isfinite(v) && v > m) m = v;
  }
  return t * tfr_conf_format_eps(format) * m;
}

bool tfr_conf_compare(const tfr_conf_dtype *dtype, const void *got, const void *expected,
                      int64_t numel, tfr_conf_check check, const tfr_conf_tolerance *tol,
                      tfr_conf_mismatch *out) {
  memset(out, 0, sizeof *out);
  out->index = -1;
  out->worst_index = -1;
  const unsigned char *g = got, *x = expected;
  bool floats = (dtype->kind == TFR_CONF_KIND_FLOAT || dtype->kind == TFR_CONF_KIND_COMPLEX) &&
                check != TFR_CONF_CHECK_EQ;
  if (!floats) {
    // bool, integers, and `eq` on anything: the bytes must be identical.
    for (int64_t i = 0; i < numel; i++) {
      size_t off = (size_t)i * dtype->size;
      if (memcmp(g + off, x + off, dtype->size) == 0) continue;
      if (out->count++ == 0) out->index = i;
    }
    return out->count == 0;
  }
  tfr_conf_float_format format = dtype->format;
  size_t part = (size_t)tfr_conf_format_bits(format) / 8;
  int nparts = dtype->kind == TFR_CONF_KIND_COMPLEX ? 2 : 1;
  out->abs_bound = tfr_conf_abs_bound(dtype, expected, numel, tol ? tol->t : 0.0);
  for (int64_t i = 0; i < numel; i++) {
    bool bad = false;
    for (int k = 0; k < nparts; k++) {
      size_t off = (size_t)i * dtype->size + (size_t)k * part;
      uint64_t a = tfr_conf_load_bits(format, g + off), e = tfr_conf_load_bits(format, x + off);
      if (tfr_conf_float_ok(format, a, e, check, tol, out->abs_bound)) continue;
      uint64_t ulps = tfr_conf_ulp_distance(format, a, e);
      if (!bad && out->count == 0) {
        out->index = i;
        out->part = k;
        out->ulps = ulps;
      }
      if (out->worst_index < 0 || ulps > out->worst_ulps) {
        out->worst_index = i;
        out->worst_ulps = ulps;
      }
      bad = true;
    }
    if (bad) out->count++;
  }
  return out->count == 0;
}
