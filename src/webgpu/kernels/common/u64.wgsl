// 64- and 128-bit unsigned integers on u32 words, for the 64-bit dtypes
// WGSL lacks: a u64 is vec2<u32>(low word, high word), the host's
// little-endian layout of u64, i64 and f64, so stored elements are used as
// they are; a u128 is vec4<u32>, least significant word first. Every
// operation is exact integer arithmetic on u32 (wrapping where noted), so no
// driver's floating-point behaviour can change a result. Shift counts are
// spelled out: WGSL takes them modulo 32.

fn tfr_u64_add(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  let lo = a.x + b.x;
  return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}

fn tfr_u64_sub(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  return vec2<u32>(a.x - b.x, a.y - b.y - select(0u, 1u, a.x < b.x));
}

fn tfr_u64_lt(a: vec2<u32>, b: vec2<u32>) -> bool {
  return a.y < b.y || (a.y == b.y && a.x < b.x);
}

fn tfr_u64_is_zero(a: vec2<u32>) -> bool {
  return (a.x | a.y) == 0u;
}

// a << n for n < 64.
fn tfr_u64_shl(a: vec2<u32>, n: u32) -> vec2<u32> {
  if (n == 0u) {
    return a;
  }
  if (n >= 32u) {
    return vec2<u32>(0u, a.x << (n - 32u));
  }
  return vec2<u32>(a.x << n, (a.y << n) | (a.x >> (32u - n)));
}

// a >> n for n < 64.
fn tfr_u64_shr(a: vec2<u32>, n: u32) -> vec2<u32> {
  if (n == 0u) {
    return a;
  }
  if (n >= 32u) {
    return vec2<u32>(a.y >> (n - 32u), 0u);
  }
  return vec2<u32>((a.x >> n) | (a.y << (32u - n)), a.y >> n);
}

// a >> n for any n, with the bits shifted out ORed into bit 0 ("jammed"):
// the result is inexact exactly when bit 0 was set by them, which is all
// that rounding needs to know about them.
fn tfr_u64_shr_jam(a: vec2<u32>, n: u32) -> vec2<u32> {
  if (n == 0u) {
    return a;
  }
  if (n >= 64u) {
    return vec2<u32>(select(0u, 1u, !tfr_u64_is_zero(a)), 0u);
  }
  // The bits shifted out, moved to the top of a word (nonzero iff any is set).
  var lost = a.x << (32u - n);
  if (n >= 32u) {
    lost = a.x | select(0u, a.y << (64u - n), n > 32u);
  }
  let r = tfr_u64_shr(a, n);
  return vec2<u32>(r.x | select(0u, 1u, lost != 0u), r.y);
}

// Leading zero bits (64 for 0).
fn tfr_u64_clz(a: vec2<u32>) -> u32 {
  if (a.y != 0u) {
    return countLeadingZeros(a.y);
  }
  return 32u + countLeadingZeros(a.x);
}

// The full 64-bit product of two u32, from 16-bit halves (no partial sum
// overflows).
fn tfr_u32_mul_wide(a: u32, b: u32) -> vec2<u32> {
  let a0 = a & 0xffffu;
  let a1 = a >> 16u;
  let b0 = b & 0xffffu;
  let b1 = b >> 16u;
  let p00 = a0 * b0;
  let mid = a0 * b1 + (p00 >> 16u);
  let mid2 = (mid & 0xffffu) + a1 * b0;
  return vec2<u32>((mid2 << 16u) | (p00 & 0xffffu), a1 * b1 + (mid >> 16u) + (mid2 >> 16u));
}

// The low 64 bits of a * b (the same for signed and unsigned operands).
fn tfr_u64_mul_lo(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  let p = tfr_u32_mul_wide(a.x, b.x);
  return vec2<u32>(p.x, p.y + a.x * b.y + a.y * b.x);
}

// The full 128-bit product of two u64.
fn tfr_u64_mul_wide(a: vec2<u32>, b: vec2<u32>) -> vec4<u32> {
  let p00 = tfr_u32_mul_wide(a.x, b.x);
  let p01 = tfr_u32_mul_wide(a.x, b.y);
  let p10 = tfr_u32_mul_wide(a.y, b.x);
  let p11 = tfr_u32_mul_wide(a.y, b.y);
  let s1 = p00.y + p01.x;
  var c1 = select(0u, 1u, s1 < p00.y);
  let w1 = s1 + p10.x;
  c1 += select(0u, 1u, w1 < s1);
  let s2 = p11.x + p01.y;
  var c2 = select(0u, 1u, s2 < p11.x);
  let s3 = s2 + p10.y;
  c2 += select(0u, 1u, s3 < s2);
  let w2 = s3 + c1;
  c2 += select(0u, 1u, w2 < s3);
  return vec4<u32>(p00.x, w1, w2, p11.y + c2);
}

// ---- u128 ----

fn tfr_u128_is_zero(a: vec4<u32>) -> bool {
  return (a.x | a.y | a.z | a.w) == 0u;
}

fn tfr_u128_add(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
  let lo = tfr_u64_add(a.xy, b.xy);
  let carry = select(0u, 1u, tfr_u64_lt(lo, a.xy));
  let hi = tfr_u64_add(tfr_u64_add(a.zw, b.zw), vec2<u32>(carry, 0u));
  return vec4<u32>(lo, hi);
}

fn tfr_u128_sub(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
  let borrow = select(0u, 1u, tfr_u64_lt(a.xy, b.xy));
  let hi = tfr_u64_sub(tfr_u64_sub(a.zw, b.zw), vec2<u32>(borrow, 0u));
  return vec4<u32>(tfr_u64_sub(a.xy, b.xy), hi);
}

fn tfr_u128_lt(a: vec4<u32>, b: vec4<u32>) -> bool {
  return tfr_u64_lt(a.zw, b.zw) || (all(a.zw == b.zw) && tfr_u64_lt(a.xy, b.xy));
}

// a << n for n < 128.
fn tfr_u128_shl(a: vec4<u32>, n: u32) -> vec4<u32> {
  var x = a;
  var m = n;
  while (m >= 32u) {
    x = vec4<u32>(0u, x.x, x.y, x.z);
    m -= 32u;
  }
  if (m > 0u) {
    let r = 32u - m;
    x = vec4<u32>(x.x << m, (x.y << m) | (x.x >> r), (x.z << m) | (x.y >> r),
                  (x.w << m) | (x.z >> r));
  }
  return x;
}

// a >> n for any n, the bits shifted out jammed into bit 0 (as tfr_u64_shr_jam).
fn tfr_u128_shr_jam(a: vec4<u32>, n: u32) -> vec4<u32> {
  if (n >= 128u) {
    return vec4<u32>(select(0u, 1u, !tfr_u128_is_zero(a)), 0u, 0u, 0u);
  }
  var x = a;
  var m = n;
  var lost = 0u;
  while (m >= 32u) {
    lost |= x.x;
    x = vec4<u32>(x.y, x.z, x.w, 0u);
    m -= 32u;
  }
  if (m > 0u) {
    let r = 32u - m;
    lost |= x.x << r;
    x = vec4<u32>((x.x >> m) | (x.y << r), (x.y >> m) | (x.z << r), (x.z >> m) | (x.w << r),
                  x.w >> m);
  }
  x.x |= select(0u, 1u, lost != 0u);
  return x;
}

// Leading zero bits (128 for 0).
fn tfr_u128_clz(a: vec4<u32>) -> u32 {
  if (a.w != 0u) {
    return countLeadingZeros(a.w);
  }
  if (a.z != 0u) {
    return 32u + countLeadingZeros(a.z);
  }
  return 64u + tfr_u64_clz(a.xy);
}
