// Conformance runner: the corpus's element types and the comparison rules of
// tests/conformance/FORMAT.md ("Checks"). Plain C on byte buffers, with no
// dependency on the library, so that the unit test can link these files alone.
#ifndef TENFERRO_TOOLS_TENFERRO_CONFORMANCE_COMPARE_H_
#define TENFERRO_TOOLS_TENFERRO_CONFORMANCE_COMPARE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// ---------------------------------------------------------------------------
// Element types of the corpus (a superset of the library's dtypes)
// ---------------------------------------------------------------------------

typedef enum tfr_conf_kind {
  TFR_CONF_KIND_BOOL = 0,
  TFR_CONF_KIND_INT = 1,   // signed two's complement
  TFR_CONF_KIND_UINT = 2,
  TFR_CONF_KIND_FLOAT = 3,
  TFR_CONF_KIND_COMPLEX = 4,
} tfr_conf_kind;

// Binary floating-point formats: of a float element, or of each part of a
// complex one.
typedef enum tfr_conf_float_format {
  TFR_CONF_FMT_NONE = 0,  // not a float
  TFR_CONF_FMT_F16 = 1,   // IEEE binary16
  TFR_CONF_FMT_BF16 = 2,  // bfloat16 (upper half of binary32)
  TFR_CONF_FMT_F32 = 3,
  TFR_CONF_FMT_F64 = 4,
} tfr_conf_float_format;

typedef struct tfr_conf_dtype {
  const char *name;  // the corpus's name: "bf16", "c64"
  size_t size;       // bytes per element
  tfr_conf_kind kind;
  tfr_conf_float_format format;  // of the element (float) or of each part (complex)
} tfr_conf_dtype;

// The corpus dtype called `name`, or NULL for a name the format does not know.
const tfr_conf_dtype *tfr_conf_dtype_find(const char *name);

// Bit width of one float (or complex part) in `format`: 16, 32 or 64; 0 for none.
int tfr_conf_format_bits(tfr_conf_float_format format);

// The value of the float with bit pattern `bits` (low bits of the word) as a
// double; exact for every format (f16 and bf16 widen exactly).
double tfr_conf_float_value(tfr_conf_float_format format, uint64_t bits);

// Loads one float of `format` at `p` (little-endian, unaligned) as its bits.
uint64_t tfr_conf_load_bits(tfr_conf_float_format format, const unsigned char *p);

// ---------------------------------------------------------------------------
// Element comparison
// ---------------------------------------------------------------------------

typedef enum tfr_conf_check {
  TFR_CONF_CHECK_EQ = 0,        // identical bytes
  TFR_CONF_CHECK_CLOSE = 1,     // ULP / relative bound, see tfr_conf_tolerance
  TFR_CONF_CHECK_ALMOST_EQ = 2, // as close, plus |a - e| <= 1e-3
} tfr_conf_check;

// "Infinitely far": a NaN against a number, or an infinity that differs.
#define TFR_CONF_ULP_INF UINT64_MAX

// ULP distance between two floats of `format` given as bit patterns (FORMAT.md,
// "Checks"): 0 for identical patterns and for two NaNs of any sign or payload;
// |A - E| of the sign-cleared patterns for finite values of the same sign,
// A + E for finite values of opposite signs (so +0 and -0 are 0 apart);
// TFR_CONF_ULP_INF when either is infinite or NaN and the other is not the same.
uint64_t tfr_conf_ulp_distance(tfr_conf_float_format format, uint64_t a, uint64_t e);

// The per-element pass rule. N = max_ulps; `abs_bound` = T * eps * M computed
// for the whole tensor by tfr_conf_abs_bound.
typedef struct tfr_conf_tolerance {
  uint64_t max_ulps;  // N
  double t;           // T (multiplies eps * M)
  // When true a subnormal expected value also matches a zero of either sign
  // (devices that flush subnormals to zero).
  bool flush_subnormals;
} tfr_conf_tolerance;

// Whether the float `a` (actual) passes against `e` (expected), both bit
// patterns of `format`, under `check`: equal patterns; both NaN; both finite
// with ULP distance <= N; both finite with |a - e| <= abs_bound; for
// almost_eq, both finite with |a - e| <= 1e-3; with flush_subnormals, a
// subnormal `e` and a zero `a`. Infinities must match exactly. With `check`
// EQ only identical patterns pass.
bool tfr_conf_float_ok(tfr_conf_float_format format, uint64_t a, uint64_t e,
                       tfr_conf_check check, const tfr_conf_tolerance *tol, double abs_bound);

// Machine epsilon of `format`: 2^-10 (f16), 2^-7 (bf16), 2^-23, 2^-52.
double tfr_conf_format_eps(tfr_conf_float_format format);

// T * eps * M for an expected tensor of `numel` elements of `dtype` (float or
// complex), where M is the largest |part| over the finite parts, at least the
// dtype's smallest normal number.
double tfr_conf_abs_bound(const tfr_conf_dtype *dtype, const void *expected, int64_t numel,
                          double t);

// The outcome of comparing a whole tensor.
typedef struct tfr_conf_mismatch {
  int64_t count;  // elements that fail (0: the tensor passes)
  int64_t index;  // row-major index of the first failing element, or -1
  int part;       // 0 real/only part, 1 imaginary part (complex), of that element
  uint64_t ulps;  // its ULP distance (floats only), TFR_CONF_ULP_INF if infinite
  int64_t worst_index;  // the failing element with the largest ULP distance (floats only)
  uint64_t worst_ulps;  // that distance
  double abs_bound;  // the T * eps * M bound used (floats only)
} tfr_conf_mismatch;

// Compares `numel` elements of `dtype` (actual `got` against `expected`, both
// compact row-major). Bool and integer dtypes, and `check` EQ, compare bytes;
// float and complex elements (each part separately, both must pass) use
// tfr_conf_float_ok. Fills `out`; returns true when every element passes.
bool tfr_conf_compare(const tfr_conf_dtype *dtype, const void *got, const void *expected,
                      int64_t numel, tfr_conf_check check, const tfr_conf_tolerance *tol,
                      tfr_conf_mismatch *out);

// Writes element `index` of a buffer of `dtype` as text ("-1.5 (0xbfc00000)",
// "3", "true", "(1.5, -2) (0x..., 0x...)") into buf[n].
void tfr_conf_format_element(const tfr_conf_dtype *dtype, const void *data, int64_t index,
                             char *buf, size_t n);

#endif  // TENFERRO_TOOLS_TENFERRO_CONFORMANCE_COMPARE_H_
