// Tests of the vector libm routines (src/cpu/vector_math.c) and of their use
// by the cpu elementwise kernels.
//
// Accuracy: every routine at every ISA level this CPU has, on a few thousand
// random arguments (the unit tests' ranges, each function's domain, the whole
// finite range) plus edge values, against a wider-precision reference (long
// double for f64, double for f32) within the bound test_cpu_elementwise.c
// holds the scalar libm function to; where the argument or a result is NaN,
// an infinity or a zero, bit for bit what scalar libm gives.
// Consistency: tails (n = 1..40 at offsets 0..7) against element-by-element
// calls; through the public API, slices of every length and offset, strided
// views and 1 vs 2 threads on a large array, all bit for bit; ops without a
// routine on this CPU give exactly scalar libm's values.
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/vector_math.h"
#include "support.h"

// ---------------------------------------------------------------------------
// The functions: op, libm at three precisions, ulp bounds (f32, f64) as in
// tests/ref/gen_elementwise.py, and a random range of the function's own.
// ---------------------------------------------------------------------------

typedef struct vm_unary {
  tfr_unary_op op;
  const char *name;
  float (*f32)(float);
  double (*f64)(double);
  long double (*wide)(long double);
  int bound32, bound64;
  double lo, hi;  // main range (f64; clipped to float's for f32)
} vm_unary;

static const vm_unary vm_unaries[] = {
    {TFR_EXP, "exp", expf, exp, expl, 1, 1, -745.2, 709.8},
    {TFR_LOG, "log", logf, log, logl, 1, 1, 0, 1e6},
    {TFR_SIN, "sin", sinf, sin, sinl, 1, 1, -20, 20},
    {TFR_COS, "cos", cosf, cos, cosl, 1, 1, -20, 20},
    {TFR_TAN, "tan", tanf, tan, tanl, 1, 1, -20, 20},
    {TFR_TANH, "tanh", tanhf, tanh, tanhl, 2, 2, -30, 30},
    {TFR_CBRT, "cbrt", cbrtf, cbrt, cbrtl, 1, 3, -1e6, 1e6},
    {TFR_EXPM1, "expm1", expm1f, expm1, expm1l, 1, 1, -40, 709.7},
    {TFR_LOG1P, "log1p", log1pf, log1p, log1pl, 1, 1, -1, 1e6},
    {TFR_ERF, "erf", erff, erf, erfl, 1, 1, -6, 6},
    {TFR_ERFC, "erfc", erfcf, erfc, erfcl, 3, 3, -6, 27.3},
    {TFR_ASIN, "asin", asinf, asin, asinl, 1, 1, -1, 1},
    {TFR_ACOS, "acos", acosf, acos, acosl, 1, 1, -1, 1},
    {TFR_ATAN, "atan", atanf, atan, atanl, 1, 1, -1e6, 1e6},
    {TFR_SINH, "sinh", sinhf, sinh, sinhl, 2, 2, -710.4, 710.4},
    {TFR_COSH, "cosh", coshf, cosh, coshl, 2, 1, -710.4, 710.4},
    {TFR_ASINH, "asinh", asinhf, asinh, asinhl, 2, 2, -1e6, 1e6},
    {TFR_ACOSH, "acosh", acoshf, acosh, acoshl, 2, 2, 1, 1e6},
    {TFR_ATANH, "atanh", atanhf, atanh, atanhl, 2, 2, -1, 1},
};
#define VM_NUNARY ((int)(sizeof vm_unaries / sizeof vm_unaries[0]))

typedef struct vm_binary {
  tfr_binary_op op;
  const char *name;
  float (*f32)(float, float);
  double (*f64)(double, double);
  long double (*wide)(long double, long double);
  int bound32, bound64;
} vm_binary;

static const vm_binary vm_binaries[] = {
    {TFR_POWER, "power", powf, pow, powl, 1, 1},
    {TFR_ATAN2, "atan2", atan2f, atan2, atan2l, 1, 1},
};
#define VM_NBINARY ((int)(sizeof vm_binaries / sizeof vm_binaries[0]))

static const char *const vm_level_names[] = {"scalar", "avx2", "avx512"};

// ---------------------------------------------------------------------------
// Arguments
// ---------------------------------------------------------------------------

static const double vm_edges64[] = {
    NAN, -NAN, INFINITY, -INFINITY, 0.0, -0.0, 0x1p-1074, -0x1p-1074, 0x1p-1022, -0x1p-1022,
    0x1.fffffffffffffp-1023, -0x1.fffffffffffffp-1023, 0x1.fffffffffffffp+1023,
    -0x1.fffffffffffffp+1023, 1, -1, 0.5, -0.5, 2, -2, 0x1.fffffffffffffp-1,
    -0x1.fffffffffffffp-1, 0x1.0000000000001p0, 709.782712893384, 709.7827128933841, 710,
    -708.3964185322641, -745.1332191019411, -745.1332191019412, -746, 710.4758600739439,
    710.476, -710.4758600739439, 19.06, 22, -22, 40, 1e-10, -1e-10, 1e22, -1e22, 1e300,
    3.141592653589793, 1.5707963267948966, -1.5707963267948966, 26.55, 27.3, 28, -6, 6, 100,
    -90, 20, 0.1, 3, 2.5, -2.5, 1.5, -1.5, 9007199254740993.0, 0x1p-27, 0x1p-54};
static const float vm_edges32[] = {
    NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 0x1p-149f, -0x1p-149f, 0x1p-126f, -0x1p-126f,
    0x1.fffffcp-127f, -0x1.fffffcp-127f, 0x1.fffffep+127f, -0x1.fffffep+127f, 1, -1, 0.5f,
    -0.5f, 2, -2, 0x1.fffffep-1f, -0x1.fffffep-1f, 0x1.000002p0f, 88.72283f, 88.72284f, 89,
    -87.33654f, -103.972084f, -103.97209f, -105, 89.41599f, 89.416f, -89.41599f, 9.01f, 10, -10,
    40, 1e-10f, -1e-10f, 1e22f, -1e22f, 1e30f, 3.14159265f, 1.57079633f, -1.57079633f, 10.05f,
    10.06f, 11, -6, 6, 100, -90, 20, 0.1f, 3, 2.5f, -2.5f, 1.5f, -1.5f, 16777217.0f, 0x1p-12f,
    0x1p-25f};
#define VM_NEDGE64 ((int)(sizeof vm_edges64 / sizeof vm_edges64[0]))
#define VM_NEDGE32 ((int)(sizeof vm_edges32 / sizeof vm_edges32[0]))

#define VM_NRANDOM 4096

// A finite double of random bits (every magnitude, subnormals included).
static double vm_bits64(uint64_t *st) {
  double v;
  do {
    uint64_t b = tfr_test_rand_u64(st);
    memcpy(&v, &b, sizeof v);
  } while (!isfinite(v));
  return v;
}
static float vm_bits32(uint64_t *st) {
  float v;
  do {
    uint32_t b = (uint32_t)tfr_test_rand_u64(st);
    memcpy(&v, &b, sizeof v);
  } while (!isfinite(v));
  return v;
}

// Random arguments of `u` then the edges; returns the count. A third each:
// [-2, 2] (the elementwise tests' range), the function's range, random bits.
static int vm_args64(const vm_unary *u, uint64_t seed, double *x) {
  uint64_t st = seed;
  int n = 0;
  for (int i = 0; i < VM_NRANDOM; i++) {
    switch (i % 3) {
      case 0: x[n++] = tfr_test_rand_uniform(&st, -2, 2); break;
      case 1: x[n++] = tfr_test_rand_uniform(&st, u->lo, u->hi); break;
      default: x[n++] = vm_bits64(&st); break;
    }
  }
  for (int i = 0; i < VM_NEDGE64; i++) x[n++] = vm_edges64[i];
  return n;
}
static int vm_args32(const vm_unary *u, uint64_t seed, float *x) {
  uint64_t st = seed;
  double lo = fmax(u->lo, -3e38), hi = fmin(u->hi, 3e38);
  if (u->op == TFR_EXP || u->op == TFR_EXPM1 || u->op == TFR_SINH || u->op == TFR_COSH) {
    lo = fmax(lo, -104);
    hi = fmin(hi, 89.5);
  }
  if (u->op == TFR_ERFC) hi = 10.1;
  int n = 0;
  for (int i = 0; i < VM_NRANDOM; i++) {
    switch (i % 3) {
      case 0: x[n++] = (float)tfr_test_rand_uniform(&st, -2, 2); break;
      case 1: x[n++] = (float)tfr_test_rand_uniform(&st, lo, hi); break;
      default: x[n++] = vm_bits32(&st); break;
    }
  }
  for (int i = 0; i < VM_NEDGE32; i++) x[n++] = vm_edges32[i];
  return n;
}

// Pairs for the binary functions: random, then every pair of a few edges.
#define VM_NPAIR_EDGES 24
static int vm_pairs64(const vm_binary *b, uint64_t seed, double *x, double *z) {
  uint64_t st = seed;
  int n = 0;
  for (int i = 0; i < VM_NRANDOM; i++) {
    double a, c;
    if (b->op == TFR_POWER) {
      switch (i % 3) {
        case 0:  // the elementwise tests' "power" range; negative bases, integer exponents
          a = pow(10, tfr_test_rand_uniform(&st, -6, 6));
          c = tfr_test_rand_uniform(&st, -8, 8);
          if (i % 5 == 0) {
            a = -a;
            c = floor(c);
          }
          break;
        case 1:
          a = tfr_test_rand_uniform(&st, 0.5, 2);
          c = tfr_test_rand_uniform(&st, -1000, 1000);
          break;
        default:
          a = fabs(vm_bits64(&st));
          c = tfr_test_rand_uniform(&st, -4, 4);
          break;
      }
    } else {
      a = i % 2 ? tfr_test_rand_uniform(&st, -2, 2) : vm_bits64(&st);
      c = i % 2 ? tfr_test_rand_uniform(&st, -2, 2) : vm_bits64(&st);
    }
    x[n] = a;
    z[n++] = c;
  }
  for (int i = 0; i < VM_NPAIR_EDGES; i++)
    for (int j = 0; j < VM_NPAIR_EDGES; j++) {
      x[n] = vm_edges64[i];
      z[n++] = vm_edges64[j];
    }
  return n;
}
static int vm_pairs32(const vm_binary *b, uint64_t seed, float *x, float *z) {
  uint64_t st = seed;
  int n = 0;
  for (int i = 0; i < VM_NRANDOM; i++) {
    double a, c;
    if (b->op == TFR_POWER) {
      switch (i % 3) {
        case 0:
          a = pow(10, tfr_test_rand_uniform(&st, -6, 6));
          c = tfr_test_rand_uniform(&st, -8, 8);
          if (i % 5 == 0) {
            a = -a;
            c = floor(c);
          }
          break;
        case 1:
          a = tfr_test_rand_uniform(&st, 0.5, 2);
          c = tfr_test_rand_uniform(&st, -100, 100);
          break;
        default:
          a = fabs(vm_bits32(&st));
          c = tfr_test_rand_uniform(&st, -4, 4);
          break;
      }
    } else {
      a = i % 2 ? tfr_test_rand_uniform(&st, -2, 2) : vm_bits32(&st);
      c = i % 2 ? tfr_test_rand_uniform(&st, -2, 2) : vm_bits32(&st);
    }
    x[n] = (float)a;
    z[n++] = (float)c;
  }
  for (int i = 0; i < VM_NPAIR_EDGES; i++)
    for (int j = 0; j < VM_NPAIR_EDGES; j++) {
      x[n] = vm_edges32[i];
      z[n++] = vm_edges32[j];
    }
  return n;
}

#define VM_MAXARGS (VM_NRANDOM + VM_NPAIR_EDGES * VM_NPAIR_EDGES + VM_NEDGE64 + VM_NEDGE32)

// ---------------------------------------------------------------------------
// Element checks
// ---------------------------------------------------------------------------

static bool vm_same64(double a, double b) {
  return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}
static bool vm_same32(float a, float b) {
  return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}
static bool vm_special64(double v) { return isnan(v) || isinf(v) || v == 0; }
static bool vm_special32(float v) { return isnan(v) || isinf(v) || v == 0; }

// `got` (vector) for arguments x (and z), against the reference `want` within
// `bound` ulp, and bit for bit against scalar libm `sc` where an argument or
// either result is NaN, infinite or zero. Prints the first failures; returns
// their count.
static int vm_check64(const char *what, double x, double z, bool binary, double got, double sc,
                      double want, int bound, int *printed) {
  bool ok = tfr_test_ulp_f64(got, want) <= bound;
  if (vm_special64(x) || (binary && vm_special64(z)) || vm_special64(got) || vm_special64(sc))
    ok = ok && vm_same64(got, sc);
  if (!ok && (*printed)++ < 5)
    print_error("%s(%a%s%a): vector %a, scalar %a, reference %a (bound %d ulp)\n", what, x,
                binary ? ", " : "", binary ? z : 0.0, got, sc, want, bound);
  return !ok;
}
static int vm_check32(const char *what, float x, float z, bool binary, float got, float sc,
                      float want, int bound, int *printed) {
  bool ok = tfr_test_ulp_f32(got, want) <= bound;
  if (vm_special32(x) || (binary && vm_special32(z)) || vm_special32(got) || vm_special32(sc))
    ok = ok && vm_same32(got, sc);
  if (!ok && (*printed)++ < 5)
    print_error("%s(%a%s%a): vector %a, scalar %a, reference %a (bound %d ulp)\n", what,
                (double)x, binary ? ", " : "", binary ? (double)z : 0.0, (double)got, (double)sc,
                (double)want, bound);
  return !ok;
}

// ---------------------------------------------------------------------------
// Accuracy of every routine at every level
// ---------------------------------------------------------------------------

static double g_x64[VM_MAXARGS], g_z64[VM_MAXARGS], g_y64[VM_MAXARGS];
static float g_x32[VM_MAXARGS], g_z32[VM_MAXARGS], g_y32[VM_MAXARGS];

static void test_accuracy(void **state) {
  (void)state;
  int bad = 0, routines = 0;
  print_message("vector math level: %s\n", vm_level_names[tfr_vm_cpu_level()]);
  for (int lv = TFR_VM_AVX2; lv <= (int)tfr_vm_cpu_level(); lv++) {
    tfr_vm_level level = (tfr_vm_level)lv;
    for (int k = 0; k < VM_NUNARY; k++) {
      const vm_unary *u = &vm_unaries[k];
      char what[64];
      tfr_vm_unary_f64_fn f64 = tfr_vm_unary_f64_at(level, u->op);
      if (f64) {
        int n = vm_args64(u, 100 + (uint64_t)k, g_x64), printed = 0;
        f64(n, g_x64, g_y64);
        snprintf(what, sizeof what, "%s f64 %s", vm_level_names[lv], u->name);
        for (int i = 0; i < n; i++)
          bad += vm_check64(what, g_x64[i], 0, false, g_y64[i], u->f64(g_x64[i]),
                            (double)u->wide(g_x64[i]), u->bound64, &printed);
        routines++;
      }
      tfr_vm_unary_f32_fn f32 = tfr_vm_unary_f32_at(level, u->op);
      if (f32) {
        int n = vm_args32(u, 200 + (uint64_t)k, g_x32), printed = 0;
        f32(n, g_x32, g_y32);
        snprintf(what, sizeof what, "%s f32 %s", vm_level_names[lv], u->name);
        for (int i = 0; i < n; i++)
          bad += vm_check32(what, g_x32[i], 0, false, g_y32[i], u->f32(g_x32[i]),
                            (float)u->f64(g_x32[i]), u->bound32, &printed);
        routines++;
      }
    }
    for (int k = 0; k < VM_NBINARY; k++) {
      const vm_binary *b = &vm_binaries[k];
      char what[64];
      tfr_vm_binary_f64_fn f64 = tfr_vm_binary_f64_at(level, b->op);
      if (f64) {
        int n = vm_pairs64(b, 300 + (uint64_t)k, g_x64, g_z64), printed = 0;
        f64(n, g_x64, g_z64, g_y64);
        snprintf(what, sizeof what, "%s f64 %s", vm_level_names[lv], b->name);
        for (int i = 0; i < n; i++)
          bad += vm_check64(what, g_x64[i], g_z64[i], true, g_y64[i], b->f64(g_x64[i], g_z64[i]),
                            (double)b->wide(g_x64[i], g_z64[i]), b->bound64, &printed);
        routines++;
      }
      tfr_vm_binary_f32_fn f32 = tfr_vm_binary_f32_at(level, b->op);
      if (f32) {
        int n = vm_pairs32(b, 400 + (uint64_t)k, g_x32, g_z32), printed = 0;
        f32(n, g_x32, g_z32, g_y32);
        snprintf(what, sizeof what, "%s f32 %s", vm_level_names[lv], b->name);
        for (int i = 0; i < n; i++)
          bad += vm_check32(what, g_x32[i], g_z32[i], true, g_y32[i], b->f32(g_x32[i], g_z32[i]),
                            (float)b->f64(g_x32[i], g_z32[i]), b->bound32, &printed);
        routines++;
      }
    }
  }
  print_message("vector math: %d routines checked\n", routines);
  assert_int_equal(bad, 0);
}

// ---------------------------------------------------------------------------
// Tails: a run of n at any offset gives what one-element calls give
// ---------------------------------------------------------------------------

static void test_tails(void **state) {
  (void)state;
  enum { NMAX = 40, OFFS = 8 };
  double x[NMAX + OFFS], xs[NMAX + OFFS], z[NMAX + OFFS], y[NMAX + OFFS], one;
  float xf[NMAX + OFFS], xsf[NMAX + OFFS], zf[NMAX + OFFS], yf[NMAX + OFFS], onef;
  uint64_t st = 7;
  for (int i = 0; i < NMAX + OFFS; i++) {
    x[i] = tfr_test_rand_uniform(&st, 0.05, 1.9);  // in every unary function's domain
    // Binary: signed first operands (pow sends negative bases elsewhere), some
    // integer exponents.
    xs[i] = i % 3 ? x[i] : -x[i];
    z[i] = i % 4 ? tfr_test_rand_uniform(&st, -3, 3) : (double)(i % 7) - 3;
    xf[i] = (float)x[i];
    xsf[i] = (float)xs[i];
    zf[i] = (float)z[i];
  }
  int bad = 0;
  for (int k = 0; k < VM_NUNARY + VM_NBINARY; k++) {
    bool un = k < VM_NUNARY;
    tfr_vm_unary_f64_fn u64 = un ? tfr_vm_unary_f64(vm_unaries[k].op) : NULL;
    tfr_vm_unary_f32_fn u32 = un ? tfr_vm_unary_f32(vm_unaries[k].op) : NULL;
    tfr_vm_binary_f64_fn b64 = un ? NULL : tfr_vm_binary_f64(vm_binaries[k - VM_NUNARY].op);
    tfr_vm_binary_f32_fn b32 = un ? NULL : tfr_vm_binary_f32(vm_binaries[k - VM_NUNARY].op);
    for (int n = 1; n <= NMAX; n++)
      for (int off = 0; off < OFFS; off++) {
        if (u64 || b64) {
          if (u64) u64(n, x + off, y + off);
          else b64(n, xs + off, z + off, y + off);
          for (int i = off; i < off + n; i++) {
            if (u64) u64(1, x + i, &one);
            else b64(1, xs + i, z + i, &one);
            bad += !vm_same64(y[i], one);
          }
        }
        if (u32 || b32) {
          if (u32) u32(n, xf + off, yf + off);
          else b32(n, xsf + off, zf + off, yf + off);
          for (int i = off; i < off + n; i++) {
            if (u32) u32(1, xf + i, &onef);
            else b32(1, xsf + i, zf + i, &onef);
            bad += !vm_same32(yf[i], onef);
          }
        }
      }
    // In place, as the kernels may call it.
    if (u64 || b64) {
      double a[NMAX];
      memcpy(a, u64 ? x : xs, sizeof a);
      if (u64) {
        u64(NMAX, a, a);
        u64(NMAX, x, y);
      } else {
        b64(NMAX, a, z, a);
        b64(NMAX, xs, z, y);
      }
      bad += memcmp(a, y, sizeof a) != 0;
    }
  }
  assert_int_equal(bad, 0);
}

// ---------------------------------------------------------------------------
// Through the public API
// ---------------------------------------------------------------------------

typedef struct vm_op {
  bool binary;
  int op;
  int index;  // in vm_unaries or vm_binaries
  tfr_dtype dtype;
  const char *name;
} vm_op;

static int vm_ops(vm_op *ops) {
  int n = 0;
  for (int d = 0; d < 2; d++) {
    tfr_dtype dt = d ? TFR_F64 : TFR_F32;
    for (int k = 0; k < VM_NUNARY; k++)
      ops[n++] = (vm_op){false, (int)vm_unaries[k].op, k, dt, vm_unaries[k].name};
    for (int k = 0; k < VM_NBINARY; k++)
      ops[n++] = (vm_op){true, (int)vm_binaries[k].op, k, dt, vm_binaries[k].name};
  }
  return n;
}

static tfr_status vm_run(tfr_session *s, const vm_op *o, tfr_tensor *const *in, tfr_tensor **out) {
  if (o->binary) return tfr_binary(s, (tfr_binary_op)o->op, in[0], in[1], out);
  return tfr_unary(s, (tfr_unary_op)o->op, in[0], out);
}

// Arguments for the API tests: mostly in-domain values, with a few edges.
static void vm_fill(tfr_dtype dt, int64_t n, uint64_t seed, bool second, void *buf) {
  uint64_t st = seed;
  for (int64_t i = 0; i < n; i++) {
    double v = second ? tfr_test_rand_uniform(&st, -4, 4) : tfr_test_rand_uniform(&st, 0.02, 1.5);
    if (!second && i % 97 == 5) v = vm_edges64[(i / 97) % VM_NEDGE64];
    if (dt == TFR_F64) ((double *)buf)[i] = v;
    else ((float *)buf)[i] = (float)v;
  }
}

static unsigned char *vm_read(const tfr_tensor *t) {
  size_t nb = tfr_tensor_nbytes(t);
  unsigned char *buf = malloc(nb + 1);
  assert_non_null(buf);
  TFR_ASSERT_OK(tfr_tensor_read(t, buf, nb));
  return buf;
}

// Elements that differ (bit for bit, any NaN equal to any NaN).
static int64_t vm_diff(tfr_dtype dt, const void *a, const void *b, int64_t n) {
  int64_t bad = 0;
  for (int64_t i = 0; i < n; i++)
    bad += dt == TFR_F64 ? !vm_same64(((const double *)a)[i], ((const double *)b)[i])
                         : !vm_same32(((const float *)a)[i], ((const float *)b)[i]);
  return bad;
}

// Every slice [off, off + n) of a 48-element array, n = 1..40, against the
// whole array's run.
static void test_api_slices(void **state) {
  tfr_test_env *env = *state;
  vm_op ops[2 * (VM_NUNARY + VM_NBINARY)];
  int nops = vm_ops(ops);
  int64_t total = 48, bad = 0;
  double buf[2][48];
  for (int k = 0; k < nops; k++) {
    const vm_op *o = &ops[k];
    tfr_tensor *in[2] = {NULL, NULL}, *full = NULL;
    for (int j = 0; j <= (int)o->binary; j++) {
      vm_fill(o->dtype, total, 11 + (uint64_t)k, j == 1, buf[j]);
      in[j] = tfr_test_tensor(o->dtype, 1, &total, buf[j]);
    }
    TFR_ASSERT_OK(vm_run(env->session, o, in, &full));
    unsigned char *want = vm_read(full);
    size_t es = tfr_dtype_size(o->dtype);
    for (int64_t n = 1; n <= 40; n++)
      for (int64_t off = 0; off < 8; off++) {
        tfr_tensor *part[2] = {NULL, NULL}, *out = NULL;
        int64_t start = off, limit = off + n;
        for (int j = 0; j <= (int)o->binary; j++)
          TFR_ASSERT_OK(tfr_tensor_view_slice(in[j], &start, &limit, NULL, &part[j]));
        TFR_ASSERT_OK(vm_run(env->session, o, part, &out));
        unsigned char *got = vm_read(out);
        int64_t d = vm_diff(o->dtype, got, want + (size_t)off * es, n);
        if (d && bad < 5)
          print_error("%s %s: slice [%lld, %lld) differs from the whole run\n", o->name,
                      tfr_dtype_name(o->dtype), (long long)off, (long long)(off + n));
        bad += d;
        free(got);
        tfr_tensor_release(out);
        tfr_tensor_release(part[0]);
        tfr_tensor_release(part[1]);
      }
    free(want);
    tfr_tensor_release(full);
    tfr_tensor_release(in[0]);
    tfr_tensor_release(in[1]);
  }
  assert_int_equal(bad, 0);
}

// Runs `o` on a cpu backend of `threads` threads; returns the result's bytes.
static unsigned char *vm_run_threads(const vm_op *o, int threads, tfr_tensor *const *in) {
  tfr_cpu_options opts = {.num_threads = threads};
  tfr_backend *b = NULL;
  tfr_session *s = NULL;
  tfr_tensor *out = NULL;
  TFR_ASSERT_OK(tfr_backend_create_cpu(&opts, &b));
  TFR_ASSERT_OK(tfr_session_begin(b, &s));
  TFR_ASSERT_OK(vm_run(s, o, in, &out));
  unsigned char *r = vm_read(out);
  tfr_tensor_release(out);
  TFR_ASSERT_OK(tfr_session_end(s));
  tfr_backend_release(b);
  return r;
}

// A large array (over TFR_CPU_PARALLEL_MIN, not a multiple of 64) on 1 and 2
// threads, and through a step-2 view: all bit for bit the same, and the same
// as the routine (or, without one on this CPU, as scalar libm) on the array.
static void test_api_threads_layouts(void **state) {
  tfr_test_env *env = *state;
  TFR_ASSERT_OK(tfr_session_end(env->session));  // one session per thread
  vm_op ops[2 * (VM_NUNARY + VM_NBINARY)];
  int nops = vm_ops(ops);
  const int64_t n = 100003, n2 = 2 * n;
  double *buf[2], *wide[2], *expect = malloc((size_t)n * sizeof(double));
  assert_non_null(expect);
  for (int j = 0; j < 2; j++) {
    buf[j] = malloc((size_t)n * sizeof(double));
    wide[j] = malloc((size_t)n2 * sizeof(double));
    assert_non_null(buf[j]);
    assert_non_null(wide[j]);
  }
  int64_t bad = 0;
  for (int k = 0; k < nops; k++) {
    const vm_op *o = &ops[k];
    size_t es = tfr_dtype_size(o->dtype);
    tfr_tensor *in[2] = {NULL, NULL}, *strided[2] = {NULL, NULL};
    for (int j = 0; j <= (int)o->binary; j++) {
      vm_fill(o->dtype, n, 31 + (uint64_t)k, j == 1, buf[j]);
      // The same values at the even positions of a buffer twice as long.
      for (int64_t i = 0; i < n; i++) {
        memcpy((char *)wide[j] + (size_t)(2 * i) * es, (char *)buf[j] + (size_t)i * es, es);
        memset((char *)wide[j] + (size_t)(2 * i + 1) * es, 0x7f, es);
      }
      in[j] = tfr_test_tensor(o->dtype, 1, &n, buf[j]);
      tfr_tensor *w = tfr_test_tensor(o->dtype, 1, &n2, wide[j]);
      int64_t start = 0, step = 2;
      TFR_ASSERT_OK(tfr_tensor_view_slice(w, &start, &n2, &step, &strided[j]));
      tfr_tensor_release(w);
    }
    unsigned char *one = vm_run_threads(o, 1, in), *two = vm_run_threads(o, 2, in);
    unsigned char *str = vm_run_threads(o, 2, strided);
    // What the element functions give: the routine, else scalar libm.
    if (o->dtype == TFR_F64) {
      double *e = expect;
      const double *a = buf[0], *c = buf[1];
      tfr_vm_unary_f64_fn u = o->binary ? NULL : tfr_vm_unary_f64((tfr_unary_op)o->op);
      tfr_vm_binary_f64_fn bf = o->binary ? tfr_vm_binary_f64((tfr_binary_op)o->op) : NULL;
      if (u) u(n, a, e);
      else if (bf) bf(n, a, c, e);
      else
        for (int64_t i = 0; i < n; i++)
          e[i] = o->binary ? vm_binaries[o->index].f64(a[i], c[i]) : vm_unaries[o->index].f64(a[i]);
    } else {
      float *e = (float *)(void *)expect;
      const float *a = (const float *)buf[0], *c = (const float *)buf[1];
      tfr_vm_unary_f32_fn u = o->binary ? NULL : tfr_vm_unary_f32((tfr_unary_op)o->op);
      tfr_vm_binary_f32_fn bf = o->binary ? tfr_vm_binary_f32((tfr_binary_op)o->op) : NULL;
      if (u) u(n, a, e);
      else if (bf) bf(n, a, c, e);
      else
        for (int64_t i = 0; i < n; i++)
          e[i] = o->binary ? vm_binaries[o->index].f32(a[i], c[i]) : vm_unaries[o->index].f32(a[i]);
    }
    int64_t d1 = vm_diff(o->dtype, one, expect, n), d2 = vm_diff(o->dtype, two, expect, n);
    int64_t d3 = vm_diff(o->dtype, str, expect, n);
    if (d1 + d2 + d3)
      print_error("%s %s: %lld (1 thread), %lld (2 threads), %lld (strided) elements differ\n",
                  o->name, tfr_dtype_name(o->dtype), (long long)d1, (long long)d2,
                  (long long)d3);
    bad += d1 + d2 + d3;
    free(one);
    free(two);
    free(str);
    for (int j = 0; j < 2; j++) {
      tfr_tensor_release(in[j]);
      tfr_tensor_release(strided[j]);
    }
  }
  for (int j = 0; j < 2; j++) {
    free(buf[j]);
    free(wide[j]);
  }
  free(expect);
  TFR_ASSERT_OK(tfr_session_begin(env->backend, &env->session));
  assert_int_equal(bad, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_accuracy),
      cmocka_unit_test(test_tails),
      cmocka_unit_test(test_api_slices),
      cmocka_unit_test(test_api_threads_layouts),
  };
  return cmocka_run_group_tests(tests, tfr_test_setup_cpu, tfr_test_teardown_cpu);
}
