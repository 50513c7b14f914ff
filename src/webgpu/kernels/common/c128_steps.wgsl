// The c128 operations that take many f64 steps: divide (libgcc's __divdc3),
// abs (glibc's hypot), sign (z / |z|), sqrt (glibc's csqrt) and rsqrt
// (1 / csqrt(z)), bit for bit the cpu's; the algorithms, and the cpu build
// they reproduce, are described in the header of common/c128.wgsl, which
// this file needs (with common/u64.wgsl and common/f64.wgsl).
//
// Code size is the constraint: a driver inlines every call, and one
// software f64 division or square root is hundreds of u32 instructions, so
// straight-line code with a dozen of them compiles for minutes on a CPU
// Vulkan driver (lavapipe). Here every operation is a *step* of one loop
// (tfr_c128_steps): each iteration performs at most one f64 operation, by
// the single call of tfr_c128_op (one inlined copy each of add, multiply,
// divide and square root), and a switch over the step number does the
// integer work between them (comparisons, special values, the operands and
// destination of the operation, the next step). The order of every
// operation and its operands is that of the cpu's code, so the rounding,
// the signs of zeros and the NaN that propagates are the cpu's.
//
// Registers r[0..15]. The steps and their registers:
//   * divide (steps 0-32): a, b, c, d in 0-3 (scaled in place), the ratio
//     in 4, c ratio or d ratio in 5, the denominator in 6, the numerators in
//     7 and 9, the result in 8 + 10 i; Annex G's recovery from NaN + NaN i
//     uses 11-15 (11 + 12 i and 13 + 14 i the factors, 15 the infinity or
//     zero it multiplies by).
//   * hypot (steps 40-72), a subroutine: x, y in 0, 1, the result in 2
//     (then the step `ret`); ax, ay in 8, 9, scratch 10-15.
//   * abs (80-81), sign (85-87): x, y in 0, 1, the result of sign in 8 +
//     10 i as divide's.
//   * sqrt (90-116): re, im in 0, 1 (scaled in place), |z| in 2, the result
//     in 3 + 4 i; rsqrt continues into divide with 1 + 0 i over it.

// The operations of a step.
const TFR_C128_OP_NONE = 0u;
const TFR_C128_OP_ADD = 1u;
const TFR_C128_OP_SUB = 2u;
const TFR_C128_OP_MUL = 3u;
const TFR_C128_OP_DIV = 4u;
const TFR_C128_OP_SQRT = 5u;

// The functions (their first steps).
const TFR_C128_S_DIV = 0u;
const TFR_C128_S_HYPOT = 40u;
const TFR_C128_S_ABS = 80u;
const TFR_C128_S_SIGN = 85u;
const TFR_C128_S_SQRT = 90u;
// A mark for rsqrt: the sqrt steps, then divide.
const TFR_C128_S_RSQRT = 200u;

// __divdc3's constants: DBL_MAX / 2, DBL_EPSILON, 1 / DBL_EPSILON, and
// DBL_MAX / 2 * DBL_EPSILON.
const TFR_C128_RBIG = vec2<u32>(0xffffffffu, 0x7fdfffffu);
const TFR_C128_RMIN2 = vec2<u32>(0u, 0x3cb00000u);
const TFR_C128_RMINSCAL = vec2<u32>(0u, 0x43300000u);
const TFR_C128_RMAX2 = vec2<u32>(0xffffffffu, 0x7c9fffffu);
// hypot's: 2^-600, 2^600, 2^511, 2^-511, 2^-54, 2^54.
const TFR_C128_HYPOT_SCALE = vec2<u32>(0u, 0x1a700000u);
const TFR_C128_HYPOT_UNSCALE = vec2<u32>(0u, 0x65700000u);
const TFR_C128_HYPOT_LARGE = vec2<u32>(0u, 0x5fe00000u);
const TFR_C128_HYPOT_TINY = vec2<u32>(0u, 0x20000000u);
const TFR_C128_HYPOT_EPS = vec2<u32>(0u, 0x3c900000u);
const TFR_C128_HYPOT_UNEPS = vec2<u32>(0u, 0x43500000u);
// csqrt's: 2 DBL_MIN, 4 DBL_MIN, DBL_MAX / 4, 1/4, 2^54 and 2^-27.
const TFR_C128_TWO_MIN = vec2<u32>(0u, 0x00200000u);
const TFR_C128_FOUR_MIN = vec2<u32>(0u, 0x00300000u);
const TFR_C128_QUARTER_MAX = vec2<u32>(0xffffffffu, 0x7fcfffffu);
const TFR_C128_QUARTER = vec2<u32>(0u, 0x3fd00000u);
const TFR_C128_SQRT_UP = vec2<u32>(0u, 0x43500000u);
const TFR_C128_SQRT_DOWN = vec2<u32>(0u, 0x3e400000u);

// The f64 operation `op` on x (and y): the only call sites of the f64
// arithmetic in a kernel. Subtraction is the sum with y negated, a NaN
// operand passed as it is (tfr_f64_sub's rule), so that add appears once.
fn tfr_c128_op(op: u32, x: vec2<u32>, y: vec2<u32>) -> vec2<u32> {
  if (op == TFR_C128_OP_MUL) {
    return tfr_f64_mul(x, y);
  }
  if (op == TFR_C128_OP_DIV) {
    return tfr_f64_div(x, y);
  }
  if (op == TFR_C128_OP_SQRT) {
    return tfr_f64_sqrt(x);
  }
  var v = y;
  if (op == TFR_C128_OP_SUB && !tfr_f64_is_nan(x) && !tfr_f64_is_nan(y)) {
    v = tfr_f64_neg(y);
  }
  return tfr_f64_add(x, v);
}

// copysign(is_inf(x) ? 1 : 0, x): an infinite part as the direction of its
// limit (Annex G's recovery, sign).
fn tfr_c128_inf_unit(x: vec2<u32>) -> vec2<u32> {
  return tfr_c128_copysign(select(TFR_C128_ZERO, TFR_F64_ONE, tfr_f64_is_inf(x)), x);
}

// Runs the steps from `first` (TFR_C128_S_*) on a (and b, divide's
// divisor); returns the result (abs: its real part).
fn tfr_c128_steps(first: u32, a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
  var r: array<vec2<u32>, 16>;
  r[0] = a.xy;
  r[1] = a.zw;
  r[2] = b.xy;
  r[3] = b.zw;
  let rsqrt = first == TFR_C128_S_RSQRT;
  var st = select(first, TFR_C128_S_SQRT, rsqrt);
  var res = vec4<u32>(0u);
  // divide: d the larger divisor part (by magnitude); the registers of
  // the ratio's numerator p and denominator q, and of u and w (a and b, or
  // b and a); k a counter over the four parts.
  var dl = false;
  var p = 2u;
  var q = 3u;
  var u = 0u;
  var w = 1u;
  var k = 0u;
  // hypot: where it returns to, its scaling (0 large, 1 tiny, 2 none).
  var ret = 0u;
  var hm = 2u;
  // sqrt: the scale (0, 1 or -27) and its factor; whether re, im are
  // scaled; the division by r or s that doubles instead (`twice`).
  var scale = 0;
  var fs = TFR_C128_TWO;
  var fr = TFR_C128_QUARTER;
  var sre = false;
  var sim = false;
  var twice = false;
  loop {
    var op = TFR_C128_OP_NONE;
    var x = r[0];
    var y = r[0];
    var dst = 0u;
    var next = st + 1u;
    var done = false;
    switch st {
      // ---- divide: (r0 + r1 i) / (r2 + r3 i) ----
      case TFR_C128_S_DIV: {
        dl = tfr_f64_lt(tfr_f64_abs(r[2]), tfr_f64_abs(r[3]));
        p = select(3u, 2u, dl);
        q = select(2u, 3u, dl);
        u = select(1u, 0u, dl);
        w = select(0u, 1u, dl);
        k = 0u;
        next = select(2u, 1u, tfr_f64_le(TFR_C128_RBIG, tfr_f64_abs(r[q])));
      }
      case 1u, 3u: {  // the four parts times 1/2 (1) or 1 / DBL_EPSILON (3)
        op = TFR_C128_OP_MUL;
        x = r[k];
        y = select(TFR_C128_RMINSCAL, TFR_C128_HALF, st == 1u);
        dst = k;
        k = k + 1u;
        next = select(st, st + 1u, k == 4u);
      }
      case 2u: {
        k = 0u;
        let aa = tfr_f64_abs(r[0]);
        let ab = tfr_f64_abs(r[1]);
        let abig = tfr_f64_abs(r[q]);
        let small_big = tfr_f64_lt(abig, TFR_C128_RMIN2);
        let in_range = tfr_f64_lt(abig, TFR_C128_RMAX2);
        let small_a = tfr_f64_lt(aa, TFR_C128_DBL_MIN) && tfr_f64_lt(ab, TFR_C128_RMAX2);
        let small_b = tfr_f64_lt(ab, TFR_C128_DBL_MIN) && tfr_f64_lt(aa, TFR_C128_RMAX2);
        next = select(4u, 3u, small_big || (in_range && (small_a || small_b)));
      }
      case 4u: {  // ratio = p / q
        op = TFR_C128_OP_DIV;
        x = r[p];
        y = r[q];
        dst = 4u;
      }
      case 5u: {
        op = TFR_C128_OP_MUL;
        x = r[p];
        y = r[4];
        dst = 5u;
      }
      case 6u: {  // denom = p ratio + q
        op = TFR_C128_OP_ADD;
        x = r[5];
        y = r[q];
        dst = 6u;
        next = select(13u, 7u, tfr_f64_lt(TFR_C128_DBL_MIN, tfr_f64_abs(r[4])));
      }
      // x = (u ratio + w) / denom; y = (w ratio - u) / denom (d larger),
      // (u - w ratio) / denom (c larger).
      case 7u: {
        op = TFR_C128_OP_MUL;
        x = r[u];
        y = r[4];
        dst = 7u;
      }
      case 8u: {
        op = TFR_C128_OP_ADD;
        x = r[7];
        y = r[w];
        dst = 7u;
      }
      case 9u, 16u: {
        op = TFR_C128_OP_DIV;
        x = r[7];
        y = r[6];
        dst = 8u;
      }
      case 10u: {
        op = TFR_C128_OP_MUL;
        x = r[w];
        y = r[4];
        dst = 9u;
      }
      case 11u, 19u: {
        op = TFR_C128_OP_SUB;
        x = select(r[u], r[9], dl);
        y = select(r[9], r[u], dl);
        dst = 9u;
      }
      case 12u, 20u: {
        op = TFR_C128_OP_DIV;
        x = r[9];
        y = r[6];
        dst = 10u;
        next = 21u;
      }
      // The ratio is below DBL_MIN: x = (p (u / q) + w) / denom (the sum in
      // the other order when c is larger), y = (p (w / q) - u) / denom or
      // (u - p (w / q)) / denom.
      case 13u, 17u: {
        op = TFR_C128_OP_DIV;
        x = r[select(w, u, st == 13u)];
        y = r[q];
        dst = select(9u, 7u, st == 13u);
      }
      case 14u, 18u: {
        op = TFR_C128_OP_MUL;
        x = r[p];
        dst = select(9u, 7u, st == 14u);
        y = r[dst];
      }
      case 15u: {
        op = TFR_C128_OP_ADD;
        x = select(r[w], r[7], dl);
        y = select(r[7], r[w], dl);
        dst = 7u;
      }
      // Annex G: NaN + NaN i from nonzero / zero, infinite / finite or
      // finite / infinite becomes the infinity or zero it stands for.
      case 21u: {
        next = 32u;
        if (tfr_f64_is_nan(r[8]) && tfr_f64_is_nan(r[10])) {
          let fin_ab = tfr_f64_is_finite(r[0]) && tfr_f64_is_finite(r[1]);
          let fin_cd = tfr_f64_is_finite(r[2]) && tfr_f64_is_finite(r[3]);
          if (tfr_f64_is_zero(r[2]) && tfr_f64_is_zero(r[3]) &&
              (!tfr_f64_is_nan(r[0]) || !tfr_f64_is_nan(r[1]))) {
            r[15] = tfr_c128_copysign(TFR_C128_INF, r[2]);
            next = 22u;
          } else if ((tfr_f64_is_inf(r[0]) || tfr_f64_is_inf(r[1])) && fin_cd) {
            r[11] = tfr_c128_inf_unit(r[0]);
            r[12] = tfr_c128_inf_unit(r[1]);
            r[13] = r[2];
            r[14] = r[3];
            r[15] = TFR_C128_INF;
            next = 24u;
          } else if ((tfr_f64_is_inf(r[2]) || tfr_f64_is_inf(r[3])) && fin_ab) {
            r[11] = r[0];
            r[12] = r[1];
            r[13] = tfr_c128_inf_unit(r[2]);
            r[14] = tfr_c128_inf_unit(r[3]);
            r[15] = TFR_C128_ZERO;
            next = 24u;
          }
        }
      }
      case 22u, 23u: {  // (inf a, inf b)
        op = TFR_C128_OP_MUL;
        x = r[15];
        y = r[st - 22u];
        dst = select(10u, 8u, st == 22u);
        next = select(32u, 23u, st == 22u);
      }
      // x = F (r11 r13 + r12 r14), y = F (r12 r13 - r11 r14).
      case 24u, 28u: {
        op = TFR_C128_OP_MUL;
        x = r[select(12u, 11u, st == 24u)];
        y = r[13];
        dst = 9u;
      }
      case 25u, 29u: {
        op = TFR_C128_OP_MUL;
        x = r[select(11u, 12u, st == 25u)];
        y = r[14];
        dst = 7u;
      }
      case 26u, 30u: {
        op = select(TFR_C128_OP_SUB, TFR_C128_OP_ADD, st == 26u);
        x = r[9];
        y = r[7];
        dst = 9u;
      }
      case 27u, 31u: {
        op = TFR_C128_OP_MUL;
        x = r[15];
        y = r[9];
        dst = select(10u, 8u, st == 27u);
      }
      case 32u: {
        res = vec4<u32>(r[8], r[10]);
        done = true;
      }

      // ---- hypot(r0, r1) -> r2, then step `ret` ----
      case TFR_C128_S_HYPOT: {
        next = 41u;
        if (!tfr_f64_is_finite(r[0]) || !tfr_f64_is_finite(r[1])) {
          next = ret;
          if ((tfr_f64_is_inf(r[0]) || tfr_f64_is_inf(r[1])) && !tfr_f64_is_snan(r[0]) &&
              !tfr_f64_is_snan(r[1])) {
            r[2] = TFR_C128_INF;
          } else {
            op = TFR_C128_OP_ADD;
            x = r[0];
            y = r[1];
            dst = 2u;
          }
        } else {
          let fx = tfr_f64_abs(r[0]);
          let fy = tfr_f64_abs(r[1]);
          let xlt = tfr_f64_lt(fx, fy);
          r[8] = select(fx, fy, xlt);
          r[9] = select(fy, fx, xlt);
          hm = 2u;
          if (tfr_f64_lt(TFR_C128_HYPOT_LARGE, r[8])) {
            hm = 0u;
          } else if (tfr_f64_lt(r[9], TFR_C128_HYPOT_TINY)) {
            hm = 1u;
          }
          // ay 2^54 (tiny) or ax 2^-54, against the other.
          op = TFR_C128_OP_MUL;
          x = select(r[8], r[9], hm == 1u);
          y = select(TFR_C128_HYPOT_EPS, TFR_C128_HYPOT_UNEPS, hm == 1u);
          dst = 10u;
        }
      }
      case 41u: {
        let negligible = select(tfr_f64_le(r[9], r[10]), tfr_f64_le(r[10], r[8]), hm == 1u);
        if (negligible) {
          op = TFR_C128_OP_ADD;
          x = r[8];
          y = r[9];
          dst = 2u;
          next = ret;
        } else if (hm == 2u) {
          next = 44u;
        } else {
          op = TFR_C128_OP_MUL;
          x = r[8];
          y = select(TFR_C128_HYPOT_UNSCALE, TFR_C128_HYPOT_SCALE, hm == 0u);
          dst = 8u;
        }
      }
      case 42u: {
        op = TFR_C128_OP_MUL;
        x = r[9];
        y = select(TFR_C128_HYPOT_UNSCALE, TFR_C128_HYPOT_SCALE, hm == 0u);
        dst = 9u;
        next = 44u;
      }
      // glibc's kernel on ax >= ay (8, 9): h = sqrt(ax^2 + ay^2) (2),
      // corrected by (t1 + t2) / (2 h).
      case 44u, 45u: {
        op = TFR_C128_OP_MUL;
        x = r[st - 36u];
        y = x;
        dst = st - 34u;
      }
      case 46u: {
        op = TFR_C128_OP_ADD;
        x = r[10];
        y = r[11];
        dst = 10u;
      }
      case 47u: {
        op = TFR_C128_OP_SQRT;
        x = r[10];
        dst = 2u;
      }
      case 48u: {
        op = TFR_C128_OP_MUL;
        x = TFR_C128_TWO;
        y = r[9];
        dst = 11u;
      }
      case 49u: {
        next = select(58u, 50u, tfr_f64_le(r[2], r[11]));
      }
      // h <= 2 ay: delta = h - ay, t1 = ax (2 delta - ax), t2 = (delta -
      // 2 (ax - ay)) delta.
      case 50u: {
        op = TFR_C128_OP_SUB;
        x = r[2];
        y = r[9];
        dst = 12u;
      }
      case 51u: {
        op = TFR_C128_OP_MUL;
        x = TFR_C128_TWO;
        y = r[12];
        dst = 13u;
      }
      case 52u: {
        op = TFR_C128_OP_SUB;
        x = r[13];
        y = r[8];
        dst = 13u;
      }
      case 53u: {
        op = TFR_C128_OP_MUL;
        x = r[8];
        y = r[13];
        dst = 13u;
      }
      case 54u: {
        op = TFR_C128_OP_SUB;
        x = r[8];
        y = r[9];
        dst = 14u;
      }
      case 55u: {
        op = TFR_C128_OP_MUL;
        x = TFR_C128_TWO;
        y = r[14];
        dst = 14u;
      }
      case 56u: {
        op = TFR_C128_OP_SUB;
        x = r[12];
        y = r[14];
        dst = 14u;
      }
      case 57u: {
        op = TFR_C128_OP_MUL;
        x = r[14];
        y = r[12];
        dst = 14u;
        next = 68u;
      }
      // Else delta = h - ax, t1 = (2 delta) (ax - 2 ay), t2 = (4 delta -
      // ay) ay + delta^2.
      case 58u: {
        op = TFR_C128_OP_SUB;
        x = r[2];
        y = r[8];
        dst = 12u;
      }
      case 59u: {
        op = TFR_C128_OP_MUL;
        x = TFR_C128_TWO;
        y = r[12];
        dst = 13u;
      }
      case 60u: {
        op = TFR_C128_OP_MUL;
        x = TFR_C128_TWO;
        y = r[9];
        dst = 14u;
      }
      case 61u: {
        op = TFR_C128_OP_SUB;
        x = r[8];
        y = r[14];
        dst = 14u;
      }
      case 62u: {
        op = TFR_C128_OP_MUL;
        x = r[13];
        y = r[14];
        dst = 13u;
      }
      case 63u: {
        op = TFR_C128_OP_MUL;
        x = TFR_C128_FOUR;
        y = r[12];
        dst = 14u;
      }
      case 64u: {
        op = TFR_C128_OP_SUB;
        x = r[14];
        y = r[9];
        dst = 14u;
      }
      case 65u: {
        op = TFR_C128_OP_MUL;
        x = r[14];
        y = r[9];
        dst = 14u;
      }
      case 66u: {
        op = TFR_C128_OP_MUL;
        x = r[12];
        y = r[12];
        dst = 15u;
      }
      case 67u: {
        op = TFR_C128_OP_ADD;
        x = r[14];
        y = r[15];
        dst = 14u;
      }
      // h - (t1 + t2) / (2 h), then the scaling undone.
      case 68u: {
        op = TFR_C128_OP_ADD;
        x = r[13];
        y = r[14];
        dst = 13u;
      }
      case 69u: {
        op = TFR_C128_OP_MUL;
        x = TFR_C128_TWO;
        y = r[2];
        dst = 14u;
      }
      case 70u: {
        op = TFR_C128_OP_DIV;
        x = r[13];
        y = r[14];
        dst = 13u;
      }
      case 71u: {
        op = TFR_C128_OP_SUB;
        x = r[2];
        y = r[13];
        dst = 2u;
        next = select(72u, ret, hm == 2u);
      }
      case 72u: {
        op = TFR_C128_OP_MUL;
        x = r[2];
        y = select(TFR_C128_HYPOT_SCALE, TFR_C128_HYPOT_UNSCALE, hm == 0u);
        dst = 2u;
        next = ret;
      }

      // ---- abs: hypot(re, im) ----
      case TFR_C128_S_ABS: {
        ret = 81u;
        next = TFR_C128_S_HYPOT;
      }
      case 81u: {
        res = vec4<u32>(r[2], TFR_C128_ZERO);
        done = true;
      }

      // ---- sign: z / |z|, zeros as they are, an infinite part as the
      // direction of its limit, NaN + NaN i from a NaN part ----
      case TFR_C128_S_SIGN: {
        ret = 86u;
        next = TFR_C128_S_HYPOT;
        if (tfr_f64_is_nan(r[0]) || tfr_f64_is_nan(r[1])) {
          res = vec4<u32>(TFR_C128_NAN, TFR_C128_NAN);
          done = true;
        } else {
          if (tfr_f64_is_inf(r[0]) || tfr_f64_is_inf(r[1])) {
            r[0] = tfr_c128_inf_unit(r[0]);
            r[1] = tfr_c128_inf_unit(r[1]);
          }
          if (tfr_f64_is_zero(r[0]) && tfr_f64_is_zero(r[1])) {
            res = a;
            done = true;
          }
        }
      }
      case 86u, 87u: {
        op = TFR_C128_OP_DIV;
        x = r[st - 86u];
        y = r[2];
        dst = select(10u, 8u, st == 86u);
        next = select(32u, 87u, st == 86u);
      }

      // ---- sqrt ----
      case TFR_C128_S_SQRT: {
        let re = r[0];
        let im = r[1];
        next = 109u;
        if (!tfr_f64_is_finite(re) || !tfr_f64_is_finite(im)) {
          r[3] = TFR_C128_NAN;
          r[4] = TFR_C128_NAN;
          if (tfr_f64_is_inf(im)) {
            r[3] = TFR_C128_INF;
            r[4] = im;
          } else if (tfr_f64_is_inf(re)) {
            let inan = tfr_f64_is_nan(im);
            if ((re.y & TFR_F64_SIGN) != 0u) {
              r[3] = select(TFR_C128_ZERO, TFR_C128_NAN, inan);
              r[4] = tfr_c128_copysign(TFR_C128_INF, im);
            } else {
              r[3] = re;
              r[4] = select(tfr_c128_copysign(TFR_C128_ZERO, im), TFR_C128_NAN, inan);
            }
          }
        } else if (tfr_f64_is_zero(im)) {
          // sqrt(-re) i for a negative re, else sqrt(re) (+-0 i).
          op = TFR_C128_OP_SQRT;
          let neg = (re.y & TFR_F64_SIGN) != 0u && !tfr_f64_is_zero(re);
          x = select(re, tfr_f64_neg(re), neg);
          dst = 3u;
          next = select(92u, 91u, neg);
        } else if (tfr_f64_is_zero(re)) {
          // r = sqrt(|im| / 2), or sqrt(2 |im|) / 2 below 2 DBL_MIN.
          let ai = tfr_f64_abs(im);
          let big = tfr_f64_le(TFR_C128_TWO_MIN, ai);
          op = TFR_C128_OP_MUL;
          x = select(TFR_C128_TWO, TFR_C128_HALF, big);
          y = ai;
          dst = 3u;
          next = select(94u, 93u, big);
        } else {
          let are = tfr_f64_abs(re);
          let aim = tfr_f64_abs(im);
          if (tfr_f64_lt(TFR_C128_QUARTER_MAX, are)) {
            scale = 1;
            sre = true;
            sim = true;
          } else if (tfr_f64_lt(TFR_C128_QUARTER_MAX, aim)) {
            scale = 1;
            sim = true;
            if (tfr_f64_le(TFR_C128_FOUR_MIN, are)) {
              sre = true;
            } else {
              r[0] = TFR_C128_ZERO;
            }
          } else if (tfr_f64_lt(are, TFR_C128_TWO_MIN) && tfr_f64_lt(aim, TFR_C128_TWO_MIN)) {
            scale = -27;  // -(53 + 1) / 2
            sre = true;
            sim = true;
          }
          fr = select(TFR_C128_SQRT_UP, TFR_C128_QUARTER, scale == 1);
          fs = select(TFR_C128_SQRT_DOWN, TFR_C128_TWO, scale == 1);
          next = 97u;
        }
      }
      case 91u: {  // 0 + sqrt(-re) i, the sign of im
        r[4] = tfr_c128_copysign(r[3], r[1]);
        r[3] = TFR_C128_ZERO;
        next = 109u;
      }
      case 92u: {
        r[3] = tfr_f64_abs(r[3]);
        r[4] = tfr_c128_copysign(TFR_C128_ZERO, r[1]);
        next = 109u;
      }
      case 93u, 94u: {
        op = TFR_C128_OP_SQRT;
        x = r[3];
        dst = 3u;
        next = select(96u, 95u, st == 93u);
      }
      case 95u: {
        r[4] = tfr_c128_copysign(r[3], r[1]);
        next = 109u;
      }
      case 96u: {
        op = TFR_C128_OP_MUL;
        x = TFR_C128_HALF;
        y = r[3];
        dst = 3u;
        next = 95u;
      }
      case 97u, 98u: {  // re, then im, times the scale
        let on = select(sim, sre, st == 97u);
        if (on) {
          op = TFR_C128_OP_MUL;
          x = r[st - 97u];
          y = fr;
          dst = st - 97u;
        }
        if (st == 98u) {
          ret = 99u;
          next = TFR_C128_S_HYPOT;
        }
      }
      // d = |z| in 2: re > 0: r = sqrt((d + re) / 2), s = im / r / 2 (or
      // im / r and r doubled, when scaled down and |im| < 1); else s =
      // sqrt((d - re) / 2), r = |im / s / 2| likewise.
      case 99u: {
        twice = scale == 1 && tfr_f64_lt(tfr_f64_abs(r[1]), TFR_F64_ONE);
        let pos = tfr_f64_lt(TFR_C128_ZERO, r[0]);
        op = select(TFR_C128_OP_SUB, TFR_C128_OP_ADD, pos);
        x = r[2];
        y = r[0];
        dst = select(4u, 3u, pos);
        next = select(111u, 101u, pos);
      }
      case 101u, 111u: {
        op = TFR_C128_OP_MUL;
        x = TFR_C128_HALF;
        dst = select(4u, 3u, st == 101u);
        y = r[dst];
      }
      case 102u, 112u: {
        op = TFR_C128_OP_SQRT;
        dst = select(4u, 3u, st == 102u);
        x = r[dst];
      }
      case 103u, 113u: {
        op = TFR_C128_OP_DIV;
        x = r[1];
        y = r[select(4u, 3u, st == 103u)];
        dst = select(3u, 4u, st == 103u);
        if (twice) {
          next = st + 1u;
        } else {
          next = select(115u, 105u, st == 103u);
        }
      }
      case 104u, 114u: {  // the root doubled instead of the quotient halved
        if (st == 114u) {
          r[3] = tfr_f64_abs(r[3]);
        }
        op = TFR_C128_OP_MUL;
        dst = select(4u, 3u, st == 104u);
        x = r[dst];
        y = TFR_C128_TWO;
        scale = 0;
        next = 106u;
      }
      case 105u, 115u: {
        op = TFR_C128_OP_MUL;
        x = TFR_C128_HALF;
        dst = select(3u, 4u, st == 105u);
        y = r[dst];
        next = select(116u, 106u, st == 105u);
      }
      case 116u: {
        r[3] = tfr_f64_abs(r[3]);
        next = 106u;
      }
      case 106u, 107u: {  // the scale undone
        if (scale != 0) {
          op = TFR_C128_OP_MUL;
          dst = st - 103u;
          x = r[dst];
          y = fs;
        }
        next = select(108u, 107u, st == 106u && scale != 0);
      }
      case 108u: {
        r[4] = tfr_c128_copysign(r[4], r[1]);
      }
      case 109u: {  // sqrt's result r3 + r4 i; rsqrt divides 1 + 0 i by it
        if (rsqrt) {
          r[0] = TFR_F64_ONE;
          r[1] = TFR_C128_ZERO;
          r[2] = r[3];
          r[3] = r[4];
          next = TFR_C128_S_DIV;
        } else {
          res = vec4<u32>(r[3], r[4]);
          done = true;
        }
      }
      default: {
        done = true;
      }
    }
    if (op != TFR_C128_OP_NONE) {
      r[dst] = tfr_c128_op(op, x, y);
    }
    if (done) {
      break;
    }
    st = next;
  }
  return res;
}

fn tfr_c128_div(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
  return tfr_c128_steps(TFR_C128_S_DIV, a, b);
}

// |a| as f64 bits.
fn tfr_c128_abs(a: vec4<u32>) -> vec2<u32> {
  return tfr_c128_steps(TFR_C128_S_ABS, a, a).xy;
}

fn tfr_c128_sign(a: vec4<u32>) -> vec4<u32> {
  return tfr_c128_steps(TFR_C128_S_SIGN, a, a);
}

fn tfr_c128_sqrt(a: vec4<u32>) -> vec4<u32> {
  return tfr_c128_steps(TFR_C128_S_SQRT, a, a);
}

fn tfr_c128_rsqrt(a: vec4<u32>) -> vec4<u32> {
  return tfr_c128_steps(TFR_C128_S_RSQRT, a, a);
}
