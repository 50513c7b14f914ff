// The 16-bit float formats f16 (IEEE 754 binary16: 5 exponent bits, 10
// stored mantissa bits) and bf16 (bfloat16: 8 and 7), held as their bit
// patterns in uint16_t, and the bit-level rounding shared by the conversions
// and `reduce_precision`.
//
// Widening (f16/bf16 -> f32) is exact. Narrowing rounds once, to nearest with
// ties to even, straight from the source format (f64 -> f16 does not go
// through f32, which could round twice): overflow gives an infinity of the
// sign, values below half the smallest subnormal give a signed zero,
// subnormals of the target are produced exactly, NaN stays NaN (quiet, sign
// and the leading payload bits kept). Everything is integer arithmetic on
// the bit patterns, so no result depends on the floating-point environment
// (rounding mode, flush-to-zero).
//
// Written here instead of using _Float16: GCC 12 has _Float16 on x86-64,
// but without F16C every conversion is a libgcc call (slower than this
// inline code in the kernels' loops), __bf16 has no arithmetic or
// conversions there at all, and clang and other targets differ again.
#ifndef TENFERRO_SRC_CORE_HALF_H_
#define TENFERRO_SRC_CORE_HALF_H_

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

typedef uint16_t tfr_f16_bits;
typedef uint16_t tfr_bf16_bits;

static inline uint32_t tfr_f32_bits(float x) {
  uint32_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}

static inline float tfr_f32_from_bits(uint32_t u) {
  float x;
  memcpy(&x, &u, sizeof x);
  return x;
}

static inline uint64_t tfr_f64_bits(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}

static inline double tfr_f64_from_bits(uint64_t u) {
  double x;
  memcpy(&x, &u, sizeof x);
  return x;
}

// Rounds the binary64 pattern `b` to a format of `ebits` exponent bits
// (2..11) and `mbits` stored mantissa bits (0..52), IEEE-style (bias
// 2^(ebits-1) - 1, subnormals, an all-ones exponent for inf and NaN), to
// nearest with ties to even. Returns the pattern in that format's
// 1 + ebits + mbits low bits. A NaN keeps its sign and its leading payload
// bits and is made quiet (needs mbits >= 1).
static inline uint64_t tfr_round_f64_bits(uint64_t b, int ebits, int mbits) {
  const uint64_t sign = (b >> 63) << (ebits + mbits);
  const uint64_t a = b & ~((uint64_t)1 << 63);
  const uint64_t emax = ((uint64_t)1 << ebits) - 1;  // all-ones exponent field
  const uint64_t inf = emax << mbits;
  if (a >= UINT64_C(0x7ff0000000000000)) {
    if (a == UINT64_C(0x7ff0000000000000)) return sign | inf;
    uint64_t payload = (a & ((UINT64_C(1) << 52) - 1)) >> (52 - mbits);
    return sign | inf | payload | (mbits > 0 ? UINT64_C(1) << (mbits - 1) : 0);
  }
  const int bias = (1 << (ebits - 1)) - 1;
  int fe = (int)(a >> 52);  // biased binary64 exponent field (0: subnormal)
  uint64_t m = a & ((UINT64_C(1) << 52) - 1);
  if (fe != 0) m |= UINT64_C(1) << 52;
  else fe = 1;
  int te = fe - 1023 + bias;  // biased target exponent of the leading bit
  if (te >= (int)emax) return sign | inf;
  int shift = 52 - mbits;
  if (te < 1) {  // a subnormal of the target: fewer mantissa bits remain
    shift += 1 - te;
    te = 0;
  }
  uint64_t q;
  if (shift >= 64) {
    q = 0;  // below a quarter of the smallest subnormal
  } else if (shift == 0) {
    q = m;
  } else {
    q = m >> shift;
    uint64_t rem = m & ((UINT64_C(1) << shift) - 1), half = UINT64_C(1) << (shift - 1);
    if (rem > half || (rem == half && (q & 1))) q++;
  }
  // Normal: q in [2^mbits, 2^(mbits+1)] and (te - 1) << mbits + q adds the
  // implicit bit into the exponent; a carry out of the mantissa moves to the
  // next binade, up to the infinity pattern. Subnormal: q itself (a carry
  // makes it the smallest normal).
  uint64_t r = te > 0 ? ((uint64_t)(te - 1) << mbits) + q : q;
  if (r > inf) r = inf;
  return sign | r;
}

// The binary64 value of a pattern of the format (ebits, mbits); exact.
static inline double tfr_widen_to_f64(uint64_t r, int ebits, int mbits) {
  const uint64_t sign = (r >> (ebits + mbits)) & 1;
  const uint64_t emax = ((uint64_t)1 << ebits) - 1;
  const int bias = (1 << (ebits - 1)) - 1;
  uint64_t e = (r >> mbits) & emax, m = r & ((UINT64_C(1) << mbits) - 1);
  uint64_t out;
  if (ebits == 11) {  // binary64's own exponent range: only the mantissa is shorter
    out = (e << 52) | (m << (52 - mbits));
  } else if (e == emax) {
    out = UINT64_C(0x7ff0000000000000) | (m << (52 - mbits));
  } else if (e == 0) {
    if (m == 0) {
      out = 0;
    } else {  // normalise the subnormal
      int k = 0;
      while (!(m & (UINT64_C(1) << mbits))) {
        m <<= 1;
        k++;
      }
      m &= (UINT64_C(1) << mbits) - 1;
      out = ((uint64_t)(1 - bias - k + 1023) << 52) | (m << (52 - mbits));
    }
  } else {
    out = ((e - (uint64_t)bias + 1023) << 52) | (m << (52 - mbits));
  }
  return tfr_f64_from_bits(out | (sign << 63));
}

// f16 <-> f32, f64.
static inline float tfr_f16_to_f32(tfr_f16_bits h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0x1f) return tfr_f32_from_bits(sign | 0x7f800000u | (m << 13));
  if (e == 0) {
    // Subnormal (or zero): m * 2^-24, exact in f32.
    float v = (float)m * 0x1p-24f;
    return sign ? -v : v;
  }
  return tfr_f32_from_bits(sign | ((e + 112u) << 23) | (m << 13));
}

static inline double tfr_f16_to_f64(tfr_f16_bits h) { return (double)tfr_f16_to_f32(h); }

static inline tfr_f16_bits tfr_f32_to_f16(float x) {
  // f32 -> f16 directly on the binary32 pattern (the f64 route is exact too,
  // but this runs in every f16 kernel).
  uint32_t b = tfr_f32_bits(x);
  uint32_t sign = (b >> 16) & 0x8000u, a = b & 0x7fffffffu;
  if (a >= 0x7f800000u)
    return (tfr_f16_bits)(sign | 0x7c00u | (a > 0x7f800000u ? 0x200u | ((a >> 13) & 0x3ffu) : 0));
  if (a >= 0x477ff000u) return (tfr_f16_bits)(sign | 0x7c00u);  // rounds to >= 2^16
  if (a >= 0x38800000u) {  // normal f16 (>= 2^-14)
    uint32_t r = a - 0x38000000u;  // rebias 127 -> 15
    uint32_t q = r >> 13, rem = r & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (q & 1u))) q++;
    return (tfr_f16_bits)(sign | q);
  }
  if (a < 0x33000000u) return (tfr_f16_bits)sign;  // <= 2^-25: rounds to zero
  // Subnormal f16: the 24-bit significand shifted into units of 2^-24.
  uint32_t e = a >> 23, m = (a & 0x7fffffu) | 0x800000u;
  uint32_t shift = 126u - e;  // 2^(e-127) * m / 2^23 / 2^-24 = m >> (126 - e)
  uint32_t q = m >> shift, rem = m & ((1u << shift) - 1u), half = 1u << (shift - 1u);
  if (rem > half || (rem == half && (q & 1u))) q++;
  return (tfr_f16_bits)(sign | q);
}

static inline tfr_f16_bits tfr_f64_to_f16(double x) {
  return (tfr_f16_bits)tfr_round_f64_bits(tfr_f64_bits(x), 5, 10);
}

// bf16 <-> f32, f64.
static inline float tfr_bf16_to_f32(tfr_bf16_bits h) { return tfr_f32_from_bits((uint32_t)h << 16); }

static inline double tfr_bf16_to_f64(tfr_bf16_bits h) { return (double)tfr_bf16_to_f32(h); }

static inline tfr_bf16_bits tfr_f32_to_bf16(float x) {
  uint32_t b = tfr_f32_bits(x);
  if ((b & 0x7fffffffu) > 0x7f800000u) return (tfr_bf16_bits)((b >> 16) | 0x40u);  // quiet NaN
  // Round to nearest even on the low 16 bits; a carry moves into the
  // exponent (up to infinity), which is the right result.
  b += 0x7fffu + ((b >> 16) & 1u);
  return (tfr_bf16_bits)(b >> 16);
}

static inline tfr_bf16_bits tfr_f64_to_bf16(double x) {
  return (tfr_bf16_bits)tfr_round_f64_bits(tfr_f64_bits(x), 8, 7);
}

// StableHLO reduce_precision on the pattern `x` of a float format of `nbits`
// (16, 32, 64) bits with `src_mbits` stored mantissa bits, to `ebits`
// exponent bits and `mbits` mantissa bits, as XLA computes it: the mantissa
// is rounded to nearest even on the pattern (a carry may bump the exponent),
// then a value whose exponent is beyond the reduced range becomes a signed
// infinity, and one below the reduced format's smallest normal number a
// signed zero (the reduced format keeps no subnormals). A NaN stays as it is,
// or becomes +inf when mbits is 0 (no NaN with an empty mantissa). Bits
// beyond the source's own exponent and mantissa widths change nothing.
static inline uint64_t tfr_reduce_precision_bits(uint64_t x, int nbits, int src_mbits, int ebits,
                                                 int mbits) {
  const int src_ebits = nbits - 1 - src_mbits;
  const uint64_t sign = UINT64_C(1) << (nbits - 1);
  const uint64_t exp_mask = ((UINT64_C(1) << src_ebits) - 1) << src_mbits;
  const uint64_t man_mask = (UINT64_C(1) << src_mbits) - 1;
  const bool nan = (x & exp_mask) == exp_mask && (x & man_mask) != 0;
  if (nan) return mbits > 0 ? x : exp_mask;
  uint64_t r = x;
  if (mbits < src_mbits) {
    int drop = src_mbits - mbits;
    uint64_t last = UINT64_C(1) << drop;
    r += ((r & last) >> drop) + (last >> 1) - 1;
    r &= ~(last - 1);
    if (nbits < 64) r &= (UINT64_C(1) << nbits) - 1;
  }
  if (ebits < src_ebits) {
    uint64_t src_bias = (UINT64_C(1) << (src_ebits - 1)) - 1;
    uint64_t red_bias = (UINT64_C(1) << (ebits - 1)) - 1;
    uint64_t e = r & exp_mask;
    if (e > (src_bias + red_bias) << src_mbits) r = (r & sign) | exp_mask;
    else if (e <= (src_bias - red_bias) << src_mbits) r &= sign;
  }
  return r;
}

#endif  // TENFERRO_SRC_CORE_HALF_H_
