// Fused plans on the webgpu backend (src/webgpu/ew_kernel.c), differential:
//   * against the cpu backend's fusion of the same plan (exact ops bit for
//     bit, any NaN matching any NaN; analytic functions within the webgpu
//     "function" tolerance of tools/tenferro/conformance/tolerance.c: 16 ulp,
//     or 4 eps of the larger part of a complex element, a flushed subnormal
//     accepted), and
//   * against the same program run op by op on webgpu (bit for bit, NaN
//     payloads included: the fused kernel must round every intermediate
//     exactly as a stored one).
// Plans cover every instruction kind and every (op, dtype) of f32, i32, bool
// and c64, several outputs (an input returned, a value returned twice, mixed
// dtypes), broadcast inputs (rows, columns, scalars), strided, transposed and
// reversed inputs, inputs sharing a buffer, rank 0, empty, runs over many
// workgroups and in pieces, 16 inputs and 64 instructions (more buffers than a
// kernel may bind: inputs and outputs get packed), special values; 64-bit
// dtypes are refused with the op, the dtype and the backend named.
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "support.h"
#include "tenferro/webgpu.h"
#include "webgpu/wgpu_testing.h"

#define FU_ULP_N 16
#define FU_ULP_T 4.0

static int fu_failures;
#define FU_FAIL(...)           \
  do {                         \
    print_error("MISMATCH: "); \
    print_error(__VA_ARGS__);  \
    print_error("\n");         \
    fu_failures++;             \
  } while (0)

// ---------------------------------------------------------------------------
// Plans, described on the test side so that they can also run op by op
// ---------------------------------------------------------------------------

enum { K_UNARY, K_BINARY, K_COMPARE, K_SELECT, K_CLAMP };

typedef struct t_instr {
  int kind, op;
  int a, b, c;
} t_instr;

typedef struct t_plan {
  int nin;
  tfr_dtype dt[TFR_FUSION_MAX_INPUTS];
  int bnd[TFR_FUSION_MAX_INPUTS];  // broadcast: the input's rank; -1: used as is
  int64_t bdims[TFR_FUSION_MAX_INPUTS][TFR_MAX_RANK];
  int ninstr;
  t_instr ins[TFR_FUSION_MAX_INSTRUCTIONS];
  int nout;
  int outs[TFR_FUSION_MAX_OUTPUTS];
  unsigned fn_mask;   // outputs compared to the cpu with the function tolerance
  unsigned cpu_skip;  // outputs not compared to the cpu (only to the unfused run)
  double abs_floor;   // f32 function outputs: an absolute error also accepted
} t_plan;

static void tp_init(t_plan *p, int nin, const tfr_dtype *dt) {
  memset(p, 0, sizeof *p);
  p->nin = nin;
  for (int i = 0; i < nin; i++) {
    p->dt[i] = dt[i];
    p->bnd[i] = -1;
  }
}

static int tp_add(t_plan *p, int kind, int op, int a, int b, int c) {
  assert_true(p->ninstr < TFR_FUSION_MAX_INSTRUCTIONS);
  p->ins[p->ninstr] = (t_instr){kind, op, a, b, c};
  return p->nin + p->ninstr++;
}

static void tp_out(t_plan *p, int v) { p->outs[p->nout++] = v; }

static tfr_fusion_plan *tp_build(const t_plan *tp) {
  tfr_fusion_plan *p = NULL;
  TFR_ASSERT_OK(tfr_fusion_plan_create(tp->nin, tp->dt, &p));
  for (int i = 0; i < tp->nin; i++)
    if (tp->bnd[i] >= 0)
      TFR_ASSERT_OK(tfr_fusion_plan_broadcast_input(p, i, tp->bnd[i], tp->bdims[i]));
  for (int k = 0; k < tp->ninstr; k++) {
    const t_instr *in = &tp->ins[k];
    int v = -1;
    switch (in->kind) {
      case K_UNARY: TFR_ASSERT_OK(tfr_fusion_plan_unary(p, (tfr_unary_op)in->op, in->a, &v)); break;
      case K_BINARY:
        TFR_ASSERT_OK(tfr_fusion_plan_binary(p, (tfr_binary_op)in->op, in->a, in->b, &v));
        break;
      case K_COMPARE:
        TFR_ASSERT_OK(tfr_fusion_plan_compare(p, (tfr_compare_direction)in->op, in->a, in->b, &v));
        break;
      case K_SELECT: TFR_ASSERT_OK(tfr_fusion_plan_select(p, in->a, in->b, in->c, &v)); break;
      default: TFR_ASSERT_OK(tfr_fusion_plan_clamp(p, in->a, in->b, in->c, &v)); break;
    }
    assert_int_equal(v, tp->nin + k);
  }
  for (int o = 0; o < tp->nout; o++) TFR_ASSERT_OK(tfr_fusion_plan_output(p, tp->outs[o]));
  return p;
}

// The plan op by op with the ordinary ops of session s (broadcast inputs
// through views): outs[o] new tensors.
static void tp_unfused(tfr_session *s, const t_plan *tp, const tfr_tensor *const *inputs,
                       tfr_tensor **outs) {
  tfr_tensor *val[TFR_FUSION_MAX_INPUTS + TFR_FUSION_MAX_INSTRUCTIONS] = {NULL};
  const tfr_tensor *shape_of = NULL;
  for (int i = 0; i < tp->nin && !shape_of; i++)
    if (tp->bnd[i] < 0) shape_of = inputs[i];
  for (int i = 0; i < tp->nin; i++) {
    if (tp->bnd[i] < 0) {
      TFR_ASSERT_OK(tfr_tensor_view(inputs[i], tfr_tensor_rank(inputs[i]),
                                    tfr_tensor_shape(inputs[i]), tfr_tensor_strides(inputs[i]),
                                    tfr_tensor_offset(inputs[i]), &val[i]));
    } else {
      TFR_ASSERT_OK(tfr_tensor_view_broadcast_in_dim(inputs[i], tfr_tensor_rank(shape_of),
                                                     tfr_tensor_shape(shape_of), tp->bdims[i],
                                                     &val[i]));
    }
  }
  for (int k = 0; k < tp->ninstr; k++) {
    const t_instr *in = &tp->ins[k];
    tfr_tensor **r = &val[tp->nin + k];
    switch (in->kind) {
      case K_UNARY: TFR_ASSERT_OK(tfr_unary(s, (tfr_unary_op)in->op, val[in->a], r)); break;
      case K_BINARY:
        TFR_ASSERT_OK(tfr_binary(s, (tfr_binary_op)in->op, val[in->a], val[in->b], r));
        break;
      case K_COMPARE:
        TFR_ASSERT_OK(tfr_compare(s, (tfr_compare_direction)in->op, val[in->a], val[in->b], r));
        break;
      case K_SELECT: TFR_ASSERT_OK(tfr_select(s, val[in->a], val[in->b], val[in->c], r)); break;
      default: TFR_ASSERT_OK(tfr_clamp(s, val[in->a], val[in->b], val[in->c], r)); break;
    }
  }
  for (int o = 0; o < tp->nout; o++) TFR_ASSERT_OK(tfr_copy(s, val[tp->outs[o]], &outs[o]));
  for (int v = 0; v < tp->nin + tp->ninstr; v++) tfr_tensor_release(val[v]);
}

// ---------------------------------------------------------------------------
// Values and layouts
// ---------------------------------------------------------------------------

static float fu_f32_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

// On a device that flushes subnormals (tfr_test_gpu_flushes_subnormals),
// the tiny specials (FLT_MIN, subnormals, 1e-30) become values whose
// products of two or three stay normal: a plan's intermediate that the cpu
// keeps as a subnormal would be flushed there and change later results.
#define FU_NF32 24
static const float *fu_f32_special(void) {
  static float v[FU_NF32];
  const float init[FU_NF32] = {NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1.0f, -1.0f,
                               0.5f, -2.5f, 2.5f, FLT_MIN, -FLT_TRUE_MIN, 1e-40f, FLT_MAX,
                               -FLT_MAX, 1e30f, 1e-30f, 8388607.5f, 100.0f, -100.0f, 0.1f,
                               3.0f, 0.0f};
  memcpy(v, init, sizeof v);
  v[FU_NF32 - 1] = fu_f32_bits(0x7fc12345u);
  if (tfr_test_gpu_flushes_subnormals()) {
    v[11] = 1e-9f;
    v[12] = -1e-12f;
    v[13] = 0x1p-40f;
    v[17] = 1e-10f;
  }
  return v;
}

#define FU_NI32 16
static const int32_t fu_i32_special[FU_NI32] = {0,  1,   -1,        2,         -7,  31,
                                                32, 33,  INT32_MIN, INT32_MAX, 100, -100,
                                                65536, 46341, -1000, 3};

// A compact host tensor of `shape`: random non-zero values, the first
// elements special ones (operand `which` walks the list at its own pace, so
// pairs of them meet) unless fu_specials is false.
static bool fu_specials = true;
static tfr_tensor *fu_values(tfr_dtype dt, int rank, const int64_t *shape, int which,
                             uint64_t seed) {
  tfr_tensor *t = tfr_test_random_tensor(dt, rank, shape, seed * 31 + (uint64_t)which);
  unsigned char *p;
  TFR_ASSERT_OK(tfr_tensor_host_data(t, (void **)&p));
  int64_t n = tfr_tensor_numel(t);
  int64_t ns = dt == TFR_F32 ? FU_NF32 : dt == TFR_I32 ? FU_NI32 : dt == TFR_C64 ? FU_NF32 : 2;
  int64_t span = fu_specials ? ns * ns : 0;
  const float *f = fu_f32_special();
  for (int64_t i = 0; i < n && i < span; i++) {
    int64_t k = which == 0 ? i / ns : which == 1 ? i % ns : (i * 7 + which) % ns;
    switch (dt) {
      case TFR_F32: memcpy(p + 4 * i, &f[k], 4); break;
      case TFR_I32: memcpy(p + 4 * i, &fu_i32_special[k], 4); break;
      case TFR_C64: {
        float c[2] = {f[k], f[(k * 5 + 3) % ns]};
        memcpy(p + 8 * i, c, 8);
        break;
      }
      default: p[i] = (unsigned char)(k & 1); break;
    }
  }
  return t;
}

// Layouts of the inputs used as is (broadcast ones keep their own shape).
enum {
  L_COMPACT,     // 1031 elements, whole chunks
  L_LARGE,       // 3 x 66667: many workgroups
  L_OFFSET,      // contiguous from element 1: element by element
  L_SLICE2,      // stride 2
  L_REVERSED,    // stride -1
  L_TRANSPOSED,  // 47 x 23 read column-major
  L_RANK0,
  L_EMPTY,
  L_COUNT
};
static const char *const fu_layout_names[L_COUNT] = {"compact", "large",      "offset", "slice2",
                                                     "reversed", "transposed", "rank0",  "empty"};

typedef struct fu_view {
  int rank;
  int64_t shape[4];
  int64_t base_n;  // elements of the 1-D base
  int64_t strides[4];
  int64_t offset;
} fu_view;

static fu_view fu_layout(int l) {
  switch (l) {
    case L_LARGE: return (fu_view){2, {3, 66667}, 3 * 66667, {66667, 1}, 0};
    case L_OFFSET: return (fu_view){2, {1031, 1}, 1032, {1, 1}, 1};
    case L_SLICE2: return (fu_view){1, {1031}, 2062, {2}, 1};
    case L_REVERSED: return (fu_view){1, {1031}, 1031, {-1}, 1030};
    case L_TRANSPOSED: return (fu_view){2, {47, 23}, 47 * 23, {1, 47}, 0};
    case L_RANK0: return (fu_view){0, {0}, 1, {0}, 0};
    case L_EMPTY: return (fu_view){2, {3, 0}, 1, {0, 1}, 0};
    default: return (fu_view){1, {1031}, 1031, {1}, 0};
  }
}

// ---------------------------------------------------------------------------
// Comparison
// ---------------------------------------------------------------------------

static bool fu_nan_bits(uint32_t u) { return (u & 0x7fffffffu) > 0x7f800000u; }

// cpu result `want` against webgpu result `got` (host tensors).
static void fu_compare(const tfr_tensor *want, const tfr_tensor *got, bool function,
                       double abs_floor, const char *what) {
  tfr_dtype dt = tfr_tensor_dtype(want);
  assert_int_equal(dt, tfr_tensor_dtype(got));
  int64_t n = tfr_tensor_numel(want);
  assert_int_equal(n, tfr_tensor_numel(got));
  size_t nb = tfr_tensor_nbytes(want);
  unsigned char *a = malloc(nb + 1), *b = malloc(nb + 1);
  assert_non_null(a);
  assert_non_null(b);
  TFR_ASSERT_OK(tfr_tensor_read(want, a, nb + 1));
  TFR_ASSERT_OK(tfr_tensor_read(got, b, nb + 1));
  int shown = 0;
  if (dt == TFR_BOOL || dt == TFR_I32) {
    size_t es = tfr_dtype_size(dt);
    for (int64_t i = 0; i < n; i++)
      if (memcmp(a + i * es, b + i * es, es) != 0 && ++shown <= 3) {
        int32_t x = 0, y = 0;
        memcpy(&x, a + i * es, es);
        memcpy(&y, b + i * es, es);
        FU_FAIL("%s: element %lld: cpu %d, webgpu %d", what, (long long)i, x, y);
      }
  } else {
    int64_t nf = dt == TFR_C64 ? 2 * n : n;
    const float *fa = (const float *)(void *)a, *fb = (const float *)(void *)b;
    for (int64_t i = 0; i < nf; i++) {
      uint32_t ua, ub;
      memcpy(&ua, &fa[i], 4);
      memcpy(&ub, &fb[i], 4);
      if (ua == ub || (fu_nan_bits(ua) && fu_nan_bits(ub))) continue;
      // A subnormal result comes back as a zero from a flushing device.
      bool flushed = fpclassify(fa[i]) == FP_SUBNORMAL && fb[i] == 0.0f &&
                     (function || tfr_test_gpu_flushes_subnormals());
      bool ok = flushed;
      int64_t ulp = tfr_test_ulp_f32(fa[i], fb[i]);
      if (function) {
        double m = 0.0;
        if (dt == TFR_C64) {
          const float *e = fa + (i & ~(int64_t)1);
          m = fmax(fabs((double)e[0]), fabs((double)e[1]));
        }
        ok = ulp <= FU_ULP_N || flushed ||
             (dt == TFR_F32 && fabs((double)fa[i] - (double)fb[i]) <= abs_floor) ||
             (dt == TFR_C64 && isfinite(fa[i]) && isfinite(fb[i]) && isfinite(m) &&
              fabs((double)fa[i] - (double)fb[i]) <= FU_ULP_T * FLT_EPSILON * m);
      }
      if (!ok && ++shown <= 3)
        FU_FAIL("%s: value %lld: cpu %.9g (0x%08x), webgpu %.9g (0x%08x), %lld ulp", what,
                (long long)i, (double)fa[i], ua, (double)fb[i], ub, (long long)ulp);
    }
  }
  if (shown > 3) FU_FAIL("%s: %d mismatching values in all", what, shown);
  free(a);
  free(b);
}

// Fused against unfused on webgpu: the same bytes, except that any NaN
// matches any NaN (the compiler may swap the operands of a commutative op,
// and x86 returns the first NaN operand's payload: lavapipe gives 0x7fc00000
// for one order and 0xffc00000 for the other; WGSL leaves NaN payloads open).
static void fu_same_bytes(const tfr_tensor *x, const tfr_tensor *y, const char *what) {
  size_t nb = tfr_tensor_nbytes(x);
  assert_int_equal(nb, tfr_tensor_nbytes(y));
  unsigned char *a = malloc(nb + 1), *b = malloc(nb + 1);
  TFR_ASSERT_OK(tfr_tensor_read(x, a, nb + 1));
  TFR_ASSERT_OK(tfr_tensor_read(y, b, nb + 1));
  tfr_dtype dt = tfr_tensor_dtype(x);
  bool flt = dt == TFR_F32 || dt == TFR_C64;
  size_t es = flt ? 4 : tfr_dtype_size(dt);
  int shown = 0;
  for (size_t i = 0; i < nb; i += es) {
    uint32_t u = 0, v = 0;
    memcpy(&u, a + i, es);
    memcpy(&v, b + i, es);
    if (u == v || (flt && fu_nan_bits(u) && fu_nan_bits(v))) continue;
    if (++shown <= 3)
      FU_FAIL("%s: %s %zu: fused 0x%08x, unfused 0x%08x", what, flt ? "value" : "element",
              i / es, u, v);
  }
  if (shown > 3) FU_FAIL("%s: %d differing elements in all", what, shown);
  free(a);
  free(b);
}

// ---------------------------------------------------------------------------
// The differential run
// ---------------------------------------------------------------------------

// Runs plan `tp` on host inputs `hin` (views of host bases `hbase`, the
// device ones made alike: view[i] of base i) on the cpu (fused), on webgpu
// (fused and op by op) and compares.
typedef struct fu_inputs {
  tfr_tensor *base[TFR_FUSION_MAX_INPUTS];  // host, 1-D or any shape
  int rank[TFR_FUSION_MAX_INPUTS];
  int64_t shape[TFR_FUSION_MAX_INPUTS][TFR_MAX_RANK];
  int64_t strides[TFR_FUSION_MAX_INPUTS][TFR_MAX_RANK];
  int64_t offset[TFR_FUSION_MAX_INPUTS];
  int same_base[TFR_FUSION_MAX_INPUTS];  // -1, or an earlier input whose device base to reuse
} fu_inputs;

static void fu_check(const t_plan *tp, const fu_inputs *fi, const char *what) {
  tfr_fusion_plan *plan = tp_build(tp);
  tfr_tensor *want[TFR_FUSION_MAX_OUTPUTS] = {NULL}, *got[TFR_FUSION_MAX_OUTPUTS] = {NULL},
             *ref[TFR_FUSION_MAX_OUTPUTS] = {NULL};
  for (int pass = 0; pass < 2; pass++) {
    tfr_session *s = tfr_test_begin(pass ? tfr_test_gpu : tfr_test_cpu);
    tfr_tensor *bases[TFR_FUSION_MAX_INPUTS] = {NULL}, *views[TFR_FUSION_MAX_INPUTS] = {NULL};
    for (int i = 0; i < tp->nin; i++) {
      if (fi->same_base[i] >= 0) {
        bases[i] = bases[fi->same_base[i]];
        tfr_tensor_retain(bases[i]);
      } else if (pass) {
        bases[i] = tfr_test_upload(s, fi->base[i]);
      } else {
        bases[i] = fi->base[i];
        tfr_tensor_retain(bases[i]);
      }
      TFR_ASSERT_OK(tfr_tensor_view(bases[i], fi->rank[i], fi->shape[i], fi->strides[i],
                                    fi->offset[i], &views[i]));
    }
    tfr_tensor *outs[TFR_FUSION_MAX_OUTPUTS] = {NULL};
    tfr_status st = tfr_fusion_execute(s, plan, (const tfr_tensor *const *)views, outs);
    if (st) {
      if (!pass)
        fail_msg("%s on cpu: %s: %s", what, tfr_status_string(st), tfr_last_error_message());
      FU_FAIL("%s on webgpu: %s: %s", what, tfr_status_string(st), tfr_last_error_message());
    } else if (pass) {
      tfr_tensor *unf[TFR_FUSION_MAX_OUTPUTS] = {NULL};
      tp_unfused(s, tp, (const tfr_tensor *const *)views, unf);
      for (int o = 0; o < tp->nout; o++) {
        assert_true(tfr_tensor_is_contiguous(outs[o]));
        got[o] = tfr_test_download(s, outs[o]);
        ref[o] = tfr_test_download(s, unf[o]);
        tfr_tensor_release(outs[o]);
        tfr_tensor_release(unf[o]);
      }
    } else {
      for (int o = 0; o < tp->nout; o++) want[o] = outs[o];
    }
    for (int i = 0; i < tp->nin; i++) {
      tfr_tensor_release(views[i]);
      tfr_tensor_release(bases[i]);
    }
    tfr_test_end(s);
  }
  for (int o = 0; o < tp->nout; o++) {
    char w[200];
    snprintf(w, sizeof w, "%s, output %d", what, o);
    if (got[o]) {
      if (!(tp->cpu_skip >> o & 1)) fu_compare(want[o], got[o], tp->fn_mask >> o & 1, tp->abs_floor, w);
      snprintf(w, sizeof w, "%s, output %d (fused vs unfused on webgpu)", what, o);
      fu_same_bytes(got[o], ref[o], w);
    }
    tfr_tensor_release(want[o]);
    tfr_tensor_release(got[o]);
    tfr_tensor_release(ref[o]);
  }
  tfr_fusion_plan_release(plan);
}

static void fu_inputs_free(fu_inputs *fi, int n) {
  for (int i = 0; i < n; i++) tfr_tensor_release(fi->base[i]);
}

// Inputs of plan `tp` in layout l: those used as is take the layout's view;
// broadcast ones a compact tensor of their own shape (their extents taken
// from the result's axes they map to).
static void fu_make_inputs(const t_plan *tp, int l, uint64_t seed, fu_inputs *fi) {
  memset(fi, 0, sizeof *fi);
  fu_view v = fu_layout(l);
  for (int i = 0; i < tp->nin; i++) {
    fi->same_base[i] = -1;
    if (tp->bnd[i] < 0) {
      fi->base[i] = fu_values(tp->dt[i], 1, &v.base_n, i, seed);
      fi->rank[i] = v.rank;
      memcpy(fi->shape[i], v.shape, sizeof v.shape);
      memcpy(fi->strides[i], v.strides, sizeof v.strides);
      fi->offset[i] = v.offset;
    } else {
      int r = tp->bnd[i];
      int64_t n = 1, st = 1;
      for (int k = r - 1; k >= 0; k--) {
        int64_t e = v.shape[tp->bdims[i][k]];
        // An extent-1 axis broadcast too (every other input axis maps to the result's).
        if (k == 0 && r > 1) e = 1;
        fi->shape[i][k] = e;
        fi->strides[i][k] = st;
        st *= e;
        n *= e;
      }
      int64_t bn = n > 0 ? n : 1;
      fi->base[i] = fu_values(tp->dt[i], 1, &bn, i, seed);
      fi->rank[i] = r;
      fi->offset[i] = 0;
    }
  }
}

// ---------------------------------------------------------------------------
// Plans with every instruction kind, per dtype
// ---------------------------------------------------------------------------

// Three inputs of dtype dt (the third broadcast when `bcast`), a program with
// unary, binary, compare, select and clamp, and outputs: the main value, the
// predicate (bool), an input, a value twice.
static void fu_kinds_plan(tfr_dtype dt, bool bcast, int rank, t_plan *tp) {
  tfr_dtype dts[3] = {dt, dt, dt};
  tp_init(tp, 3, dts);
  if (bcast) {
    if (rank == 2) {
      tp->bnd[2] = 2;  // a row [1, n1] broadcast over the rows (axis 0 of extent 1)
      tp->bdims[2][0] = 0;
      tp->bdims[2][1] = 1;
    } else {
      tp->bnd[2] = 0;  // a scalar
    }
  }
  int x = 0, y = 1, z = 2;
  int u, m, a, c, sel, cl, fn1 = -1, fn2 = -1;
  switch (dt) {
    case TFR_F32:
      u = tp_add(tp, K_UNARY, TFR_NEGATE, x, 0, 0);
      m = tp_add(tp, K_BINARY, TFR_MULTIPLY, u, y, 0);
      a = tp_add(tp, K_BINARY, TFR_ADD, m, z, 0);  // -x * y + z: no fma allowed
      a = tp_add(tp, K_BINARY, TFR_DIVIDE, a, y, 0);
      a = tp_add(tp, K_BINARY, TFR_SUBTRACT, a, x, 0);
      c = tp_add(tp, K_COMPARE, TFR_LT, x, y, 0);
      sel = tp_add(tp, K_SELECT, 0, c, a, m);
      cl = tp_add(tp, K_CLAMP, 0, z, sel, y);
      fn1 = tp_add(tp, K_UNARY, TFR_EXP, sel, 0, 0);
      fn2 = tp_add(tp, K_BINARY, TFR_POWER, cl, y, 0);
      break;
    case TFR_I32:
      u = tp_add(tp, K_UNARY, TFR_NOT, x, 0, 0);
      m = tp_add(tp, K_BINARY, TFR_MULTIPLY, u, y, 0);
      a = tp_add(tp, K_BINARY, TFR_ADD, m, z, 0);
      a = tp_add(tp, K_BINARY, TFR_DIVIDE, a, y, 0);
      a = tp_add(tp, K_BINARY, TFR_SHIFT_RIGHT_ARITHMETIC, a, x, 0);
      c = tp_add(tp, K_COMPARE, TFR_GE, x, y, 0);
      sel = tp_add(tp, K_SELECT, 0, c, a, m);
      cl = tp_add(tp, K_CLAMP, 0, z, sel, y);
      break;
    case TFR_BOOL:
      u = tp_add(tp, K_UNARY, TFR_NOT, x, 0, 0);
      m = tp_add(tp, K_BINARY, TFR_AND, u, y, 0);
      a = tp_add(tp, K_BINARY, TFR_XOR, m, z, 0);
      c = tp_add(tp, K_COMPARE, TFR_GT, x, y, 0);
      sel = tp_add(tp, K_SELECT, 0, c, a, m);
      cl = tp_add(tp, K_CLAMP, 0, z, sel, y);
      break;
    default:  // c64: no clamp, no ordering compare
      u = tp_add(tp, K_UNARY, TFR_CONJ, x, 0, 0);
      m = tp_add(tp, K_BINARY, TFR_ADD, u, y, 0);
      a = tp_add(tp, K_BINARY, TFR_SUBTRACT, m, z, 0);
      a = tp_add(tp, K_UNARY, TFR_NEGATE, a, 0, 0);
      c = tp_add(tp, K_COMPARE, TFR_EQ, x, y, 0);
      sel = tp_add(tp, K_SELECT, 0, c, a, m);
      cl = tp_add(tp, K_UNARY, TFR_REAL, sel, 0, 0);  // -> f32
      fn1 = tp_add(tp, K_UNARY, TFR_LOG, sel, 0, 0);
      fn2 = tp_add(tp, K_BINARY, TFR_MULTIPLY, sel, y, 0);
      break;
  }
  tp_out(tp, cl);
  tp_out(tp, c);
  tp_out(tp, x);
  tp_out(tp, sel);
  tp_out(tp, sel);
  // Analytic functions last (a difference of a few ulp fed to further ops
  // could grow without bound): compared with the function tolerance.
  if (fn1 >= 0) {
    tp_out(tp, fn1);
    tp_out(tp, fn2);
    tp->fn_mask = 3u << 5;
  }
}

static void test_kinds_and_layouts(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  fu_failures = 0;
  const tfr_dtype dts[] = {TFR_F32, TFR_I32, TFR_BOOL, TFR_C64};
  for (int d = 0; d < 4; d++)
    for (int l = 0; l < L_COUNT; l++)
      for (int bc = 0; bc < 2; bc++) {
        fu_view v = fu_layout(l);
        t_plan tp;
        fu_kinds_plan(dts[d], bc, v.rank, &tp);
        fu_inputs fi;
        fu_make_inputs(&tp, l, (uint64_t)(l + 1), &fi);
        char what[128];
        snprintf(what, sizeof what, "kinds %s [%s%s]", tfr_dtype_name(dts[d]), fu_layout_names[l],
                 bc ? (v.rank == 2 ? ", broadcast row" : ", broadcast scalar") : "");
        fu_check(&tp, &fi, what);
        fu_inputs_free(&fi, tp.nin);
      }
  if (fu_failures) fail_msg("%d mismatches or failed runs (see above)", fu_failures);
}

// ---------------------------------------------------------------------------
// Every (op, dtype) inside a plan
// ---------------------------------------------------------------------------

static bool fu_is_function(int kind, int op, tfr_dtype dt) {
  if (kind == K_UNARY) {
    switch (op) {
      case TFR_NEGATE: case TFR_CONJ: case TFR_NOT: case TFR_FLOOR: case TFR_CEIL:
      case TFR_ROUND_NEAREST_EVEN: case TFR_ROUND_NEAREST_AFZ: case TFR_IS_FINITE:
      case TFR_REAL: case TFR_IMAG: case TFR_POPCNT:
        return false;
      case TFR_ABS: case TFR_SIGN: return dt == TFR_C64;
      default: return true;
    }
  }
  if (kind != K_BINARY) return false;
  switch (op) {
    case TFR_POWER: case TFR_ATAN2: return dt != TFR_I32;
    case TFR_MULTIPLY: case TFR_DIVIDE: return dt == TFR_C64;
    default: return false;
  }
}

// The op's result dtype on the cpu, or false when it rejects the dtype.
static bool fu_result_dtype(int kind, int op, tfr_dtype dt, tfr_dtype *out) {
  tfr_session *s = tfr_test_begin(tfr_test_cpu);
  int64_t one = 1;
  tfr_tensor *a = tfr_test_random_tensor(dt, 1, &one, 1), *r = NULL;
  tfr_status st = kind == K_UNARY ? tfr_unary(s, (tfr_unary_op)op, a, &r)
                                  : tfr_binary(s, (tfr_binary_op)op, a, a, &r);
  tfr_test_end(s);
  if (!st) *out = tfr_tensor_dtype(r);
  tfr_tensor_release(a);
  tfr_tensor_release(r);
  return st == TFR_OK;
}

// r = op(x[, y]) and, where the result has the operands' dtype, op applied
// again to r (so that the op's result feeds another instruction).
static void test_every_op(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  fu_failures = 0;
  const tfr_dtype dts[] = {TFR_F32, TFR_I32, TFR_BOOL, TFR_C64};
  int ran = 0;
  for (int kind = K_UNARY; kind <= K_BINARY; kind++) {
    int nops = kind == K_UNARY ? TFR_UNARY_OP_COUNT : TFR_BINARY_OP_COUNT;
    for (int op = 0; op < nops; op++)
      for (int d = 0; d < 4; d++) {
        tfr_dtype rt;
        if (!fu_result_dtype(kind, op, dts[d], &rt)) continue;
        t_plan tp;
        tp_init(&tp, 2, (tfr_dtype[]){dts[d], dts[d]});
        int r = tp_add(&tp, kind, op, 0, 1, 0);
        tp_out(&tp, r);
        if (rt == dts[d]) tp_out(&tp, tp_add(&tp, kind, op, r, 0, 0));
        else tp_out(&tp, 0);
        char what[128];
        snprintf(what, sizeof what, "%s %s",
                 kind == K_UNARY ? tfr_unary_op_name((tfr_unary_op)op)
                                 : tfr_binary_op_name((tfr_binary_op)op),
                 tfr_dtype_name(dts[d]));
        bool fn = fu_is_function(kind, op, dts[d]);
        // Analytic ops: on special values only against the unfused run (the
        // elementwise test compares each op's special values to the cpu);
        // f32 ones on random values also against the cpu, once applied
        // (applied twice, a difference of a few ulp grows by the function's
        // condition). Complex functions (pow, atan2: near-cancelling parts
        // beyond the per-element bound on some random values) are compared
        // to the cpu by test_webgpu_elementwise and test_kinds_and_layouts.
        int passes = fn ? (dts[d] == TFR_F32 ? 2 : 1) : 1;
        for (int pass = 0; pass < passes; pass++) {
          tp.fn_mask = fn ? 1u : 0u;
          tp.cpu_skip = fn ? (pass ? 2u : 3u) : 0u;
          tp.abs_floor = kind == K_UNARY ? tfr_test_abs_floor_f32(op) : 0.0;
          fu_specials = pass == 0;
          fu_inputs fi;
          fu_make_inputs(&tp, L_COMPACT, 7, &fi);
          fu_check(&tp, &fi, what);
          fu_inputs_free(&fi, tp.nin);
        }
        fu_specials = true;
        ran++;
      }
  }
  for (int dir = TFR_EQ; dir <= TFR_GE; dir++)
    for (int d = 0; d < 4; d++) {
      if (dts[d] == TFR_C64 && dir != TFR_EQ && dir != TFR_NE) continue;
      t_plan tp;
      tp_init(&tp, 2, (tfr_dtype[]){dts[d], dts[d]});
      int c = tp_add(&tp, K_COMPARE, dir, 0, 1, 0);
      tp_out(&tp, tp_add(&tp, K_SELECT, 0, c, 0, 1));
      tp_out(&tp, c);
      fu_inputs fi;
      fu_make_inputs(&tp, L_OFFSET, 8, &fi);
      char what[64];
      snprintf(what, sizeof what, "compare %d %s", dir, tfr_dtype_name(dts[d]));
      fu_check(&tp, &fi, what);
      fu_inputs_free(&fi, tp.nin);
      ran++;
    }
  assert_true(ran > 100);
  if (fu_failures) fail_msg("%d mismatches or failed runs (see above)", fu_failures);
}

// ---------------------------------------------------------------------------
// Many inputs, many instructions, more buffers than a kernel may bind
// ---------------------------------------------------------------------------

// 16 f32 inputs (a row, a column and a scalar broadcast among them) and 64
// instructions mixing every kind; 8 outputs (f32, bool, an input). 24 buffers:
// inputs and then outputs must be packed.
static void fu_big_plan(t_plan *tp) {
  tfr_dtype dts[16];
  for (int i = 0; i < 16; i++) dts[i] = TFR_F32;
  tp_init(tp, 16, dts);
  tp->bnd[3] = 1;  // a row
  tp->bdims[3][0] = 1;
  tp->bnd[7] = 1;  // a column
  tp->bdims[7][0] = 0;
  tp->bnd[11] = 0;  // a scalar
  int acc = 0;
  static const int ops[] = {TFR_ADD, TFR_MULTIPLY, TFR_SUBTRACT, TFR_MAXIMUM, TFR_MINIMUM};
  while (tp->ninstr < 59) {
    int k = tp->ninstr;
    int other = k % 16;
    if (k % 7 == 6) {
      int c = tp_add(tp, K_COMPARE, TFR_GT, acc, other, 0);
      acc = tp_add(tp, K_SELECT, 0, c, acc, (k * 5) % 16);
    } else if (k % 11 == 10) {
      acc = tp_add(tp, K_CLAMP, 0, 11, acc, (k * 3) % 16);
    } else if (k % 13 == 12) {
      acc = tp_add(tp, K_UNARY, TFR_ABS, acc, 0, 0);
    } else {
      acc = tp_add(tp, K_BINARY, ops[k % 5], acc, other, 0);
    }
  }
  int c1 = tp_add(tp, K_COMPARE, TFR_LE, acc, 3, 0);
  int n1 = tp_add(tp, K_UNARY, TFR_NEGATE, acc, 0, 0);
  int s1 = tp_add(tp, K_SELECT, 0, c1, n1, 7);
  int f1 = tp_add(tp, K_UNARY, TFR_IS_FINITE, s1, 0, 0);
  tp_out(tp, acc);
  tp_out(tp, c1);
  tp_out(tp, n1);
  tp_out(tp, s1);
  tp_out(tp, f1);
  tp_out(tp, 5);
  tp_out(tp, tp->nin + 20);
  tp_out(tp, tp_add(tp, K_UNARY, TFR_TANH, acc, 0, 0));
  tp->fn_mask = 1u << 7;
}

// 16 inputs of the four dtypes (4 each, one of each broadcast) and 8 outputs
// of the four dtypes.
static void fu_mixed_plan(t_plan *tp) {
  tfr_dtype dts[16];
  const tfr_dtype four[4] = {TFR_F32, TFR_I32, TFR_BOOL, TFR_C64};
  for (int i = 0; i < 16; i++) dts[i] = four[i / 4];
  tp_init(tp, 16, dts);
  for (int t = 0; t < 4; t++) tp->bnd[4 * t + 3] = 0;  // scalars
  int f = tp_add(tp, K_BINARY, TFR_ADD, 0, 1, 0);
  f = tp_add(tp, K_BINARY, TFR_MULTIPLY, f, 2, 0);
  f = tp_add(tp, K_CLAMP, 0, 3, f, 2);
  int i = tp_add(tp, K_BINARY, TFR_SUBTRACT, 4, 5, 0);
  i = tp_add(tp, K_BINARY, TFR_XOR, i, 6, 0);
  i = tp_add(tp, K_BINARY, TFR_MAXIMUM, i, 7, 0);
  int b = tp_add(tp, K_BINARY, TFR_OR, 8, 9, 0);
  b = tp_add(tp, K_BINARY, TFR_AND, b, 10, 0);
  b = tp_add(tp, K_BINARY, TFR_XOR, b, 11, 0);
  int c = tp_add(tp, K_BINARY, TFR_ADD, 12, 13, 0);
  c = tp_add(tp, K_BINARY, TFR_SUBTRACT, c, 14, 0);
  c = tp_add(tp, K_SELECT, 0, b, c, 15);
  int fi = tp_add(tp, K_SELECT, 0, b, f, 0);
  int ii = tp_add(tp, K_SELECT, 0, 9, i, 4);
  int cr = tp_add(tp, K_UNARY, TFR_IMAG, c, 0, 0);
  int cb = tp_add(tp, K_COMPARE, TFR_NE, c, 12, 0);
  tp_out(tp, fi);
  tp_out(tp, ii);
  tp_out(tp, b);
  tp_out(tp, c);
  tp_out(tp, cr);
  tp_out(tp, cb);
  tp_out(tp, 10);
  tp_out(tp, c);
}

static void test_many_inputs_and_instructions(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  fu_failures = 0;
  const int layouts[] = {L_COMPACT, L_LARGE, L_TRANSPOSED, L_REVERSED, L_OFFSET};
  for (int budget = 0; budget <= 8; budget += 8) {
    tfr_wgpu_test_fusion_budget(tfr_test_gpu, budget);
    for (size_t li = 0; li < sizeof layouts / sizeof layouts[0]; li++) {
      int l = layouts[li];
      for (int which = 0; which < 2; which++) {
        t_plan tp;
        if (which) fu_mixed_plan(&tp);
        else fu_big_plan(&tp);
        if (fu_layout(l).rank < 2)  // row and column need two axes
          for (int i = 0; i < tp.nin; i++)
            if (tp.bnd[i] > 0) tp.bnd[i] = -1;
        fu_inputs fi;
        fu_make_inputs(&tp, l, 11, &fi);
        char what[128];
        snprintf(what, sizeof what, "%s [%s, budget %d]", which ? "16 mixed inputs" : "64 instructions",
                 fu_layout_names[l], budget);
        fu_check(&tp, &fi, what);
        fu_inputs_free(&fi, tp.nin);
      }
    }
  }
  tfr_wgpu_test_fusion_budget(tfr_test_gpu, 0);
  if (fu_failures) fail_msg("%d mismatches or failed runs (see above)", fu_failures);
}

// ---------------------------------------------------------------------------
// Inputs sharing a buffer
// ---------------------------------------------------------------------------

static void test_shared_buffers(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  fu_failures = 0;
  t_plan tp;
  tp_init(&tp, 4, (tfr_dtype[]){TFR_F32, TFR_F32, TFR_F32, TFR_F32});
  int a = tp_add(&tp, K_BINARY, TFR_MULTIPLY, 0, 1, 0);
  a = tp_add(&tp, K_BINARY, TFR_SUBTRACT, a, 2, 0);
  a = tp_add(&tp, K_BINARY, TFR_ADD, a, 3, 0);
  tp_out(&tp, a);
  tp_out(&tp, 1);
  // One buffer of 4 x 1031 + 5 elements: input 0 elements [0, 1031) (whole
  // chunks), input 1 [1032, 2063) (whole chunks), input 2 from 2065 (element
  // by element), input 3 = input 0 (the same view), in several layouts.
  for (int variant = 0; variant < 3; variant++) {
    fu_inputs fi;
    memset(&fi, 0, sizeof fi);
    int64_t n = 4 * 1031 + 5;
    fi.base[0] = fu_values(TFR_F32, 1, &n, 0, 3);
    const int64_t at[4] = {0, 1032, 2065, 0};
    for (int i = 0; i < 4; i++) {
      fi.same_base[i] = i ? 0 : -1;
      fi.rank[i] = 1;
      fi.shape[i][0] = 1031;
      fi.strides[i][0] = 1;
      fi.offset[i] = at[i];
    }
    if (variant == 1) {  // input 2 reversed, input 1 with stride 2 over the rest
      fi.strides[2][0] = -1;
      fi.offset[2] = 2065 + 1030;
      fi.strides[1][0] = 2;
      fi.offset[1] = 1031;
      fi.offset[2] = n - 1;
    }
    if (variant == 2) {  // input 3 a broadcast element of the same buffer
      fi.strides[3][0] = 0;
      fi.offset[3] = 17;
    }
    char what[64];
    snprintf(what, sizeof what, "inputs in one buffer (variant %d)", variant);
    fu_check(&tp, &fi, what);
    tfr_tensor_release(fi.base[0]);
  }
  if (fu_failures) fail_msg("%d mismatches or failed runs (see above)", fu_failures);
}

// ---------------------------------------------------------------------------
// Pieces, folded grids, the kernel table, errors
// ---------------------------------------------------------------------------

static void test_pieces_and_grid_folding(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  fu_failures = 0;
  const tfr_dtype dts[] = {TFR_F32, TFR_BOOL, TFR_C64};
  tfr_wgpu_test_ew_piece(tfr_test_gpu, 64);
  for (int d = 0; d < 3; d++) {
    t_plan tp;
    fu_kinds_plan(dts[d], true, 1, &tp);
    fu_inputs fi;
    fu_make_inputs(&tp, L_COMPACT, 5, &fi);
    fu_check(&tp, &fi, "pieces of 64 elements");
    fu_inputs_free(&fi, tp.nin);
  }
  tfr_wgpu_test_ew_piece(tfr_test_gpu, 0);
  tfr_backend *folded = NULL, *saved = tfr_test_gpu;
  TFR_ASSERT_OK(tfr_backend_create_webgpu(NULL, &folded));
  tfr_wgpu_test_limits(folded, 3, 0);
  tfr_test_gpu = folded;
  for (int l = L_COMPACT; l <= L_TRANSPOSED; l += L_TRANSPOSED - L_COMPACT) {
    t_plan tp;
    fu_kinds_plan(TFR_F32, true, fu_layout(l).rank, &tp);
    fu_inputs fi;
    fu_make_inputs(&tp, l, 6, &fi);
    fu_check(&tp, &fi, l == L_TRANSPOSED ? "folded grid (strided)" : "folded grid (compact)");
    fu_inputs_free(&fi, tp.nin);
  }
  tfr_test_gpu = saved;
  tfr_backend_release(folded);
  if (fu_failures) fail_msg("%d mismatches or failed runs (see above)", fu_failures);
}

// A plan of the same structure (another plan object, other tensors) finds
// its kernel; another layout or op makes a new one.
static void test_kernel_table(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  int64_t n = 1000, m = 999;
  tfr_tensor *h = fu_values(TFR_F32, 1, &n, 0, 1), *h2 = fu_values(TFR_F32, 1, &m, 1, 2);
  tfr_session *s = tfr_test_begin(tfr_test_gpu);
  tfr_tensor *x = tfr_test_upload(s, h), *y = tfr_test_upload(s, h2), *r = NULL;
  t_plan tp;
  tp_init(&tp, 2, (tfr_dtype[]){TFR_F32, TFR_F32});
  tp_out(&tp, tp_add(&tp, K_BINARY, TFR_ATAN2, 0, 1, 0));
  tfr_fusion_plan *p1 = tp_build(&tp), *p2 = tp_build(&tp);
  TFR_ASSERT_OK(tfr_fusion_execute(s, p1, (const tfr_tensor *[]){x, x}, &r));
  tfr_tensor_release(r);
  int k0 = tfr_wgpu_test_elementwise_kernels(tfr_test_gpu);
  tfr_webgpu_stats a, b;
  TFR_ASSERT_OK(tfr_webgpu_get_stats(tfr_test_gpu, &a));
  TFR_ASSERT_OK(tfr_fusion_execute(s, p2, (const tfr_tensor *[]){y, y}, &r));
  tfr_tensor_release(r);
  TFR_ASSERT_OK(tfr_fusion_execute(s, p1, (const tfr_tensor *[]){x, x}, &r));
  tfr_tensor_release(r);
  TFR_ASSERT_OK(tfr_webgpu_get_stats(tfr_test_gpu, &b));
  assert_int_equal(tfr_wgpu_test_elementwise_kernels(tfr_test_gpu), k0);
  assert_int_equal(a.pipelines, b.pipelines);
  assert_int_equal(b.dispatches - a.dispatches, 2);
  // A reversed input: the strided kernel, a new entry.
  tfr_tensor *rev = NULL;
  TFR_ASSERT_OK(tfr_tensor_view_reverse(x, 1, (int64_t[]){0}, &rev));
  TFR_ASSERT_OK(tfr_fusion_execute(s, p1, (const tfr_tensor *[]){x, rev}, &r));
  tfr_tensor_release(r);
  assert_int_equal(tfr_wgpu_test_elementwise_kernels(tfr_test_gpu), k0 + 1);
  // Another op: another entry.
  t_plan tq = tp;
  tq.ins[0].op = TFR_POWER;
  tfr_fusion_plan *p3 = tp_build(&tq);
  TFR_ASSERT_OK(tfr_fusion_execute(s, p3, (const tfr_tensor *[]){x, x}, &r));
  tfr_tensor_release(r);
  assert_int_equal(tfr_wgpu_test_elementwise_kernels(tfr_test_gpu), k0 + 2);
  tfr_test_end(s);
  tfr_fusion_plan_release(p1);
  tfr_fusion_plan_release(p2);
  tfr_fusion_plan_release(p3);
  tfr_tensor *objs[] = {h, h2, x, y, rev};
  for (int i = 0; i < 5; i++) tfr_tensor_release(objs[i]);
}

// Plans with an op a dtype lacks on webgpu (c128's analytic functions but
// exp and log, f64's special functions) are refused (empty ones too); nothing is
// returned and the session stays usable.
static void test_unsupported_dtypes(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  const tfr_dtype wide[] = {TFR_C128};
  const char *names[] = {"c128"};
  tfr_session *s = tfr_test_begin(tfr_test_gpu);
  for (int w = 0; w < 1; w++)
    for (int empty = 0; empty < 2; empty++) {
      int64_t n = empty ? 0 : 10;
      tfr_tensor *h = tfr_test_random_tensor(wide[w], 1, &n, 1);
      tfr_tensor *x = tfr_test_upload(s, h);
      tfr_fusion_plan *p = NULL;
      TFR_ASSERT_OK(tfr_fusion_plan_create(1, (tfr_dtype[]){wide[w]}, &p));
      int v;
      TFR_ASSERT_OK(tfr_fusion_plan_unary(p, TFR_TANH, 0, &v));
      TFR_ASSERT_OK(tfr_fusion_plan_output(p, v));
      tfr_tensor *out[1] = {(tfr_tensor *)0x1};
      TFR_ASSERT_ERROR(tfr_fusion_execute(s, p, (const tfr_tensor *[]){x}, out),
                       TFR_ERR_UNSUPPORTED_DTYPE, "fusion", names[w], "webgpu");
      assert_null(out[0]);
      tfr_fusion_plan_release(p);
      tfr_tensor_release(x);
      tfr_tensor_release(h);
    }
  // A plan mixing f32 with an i8 input it does not use runs (every dtype
  // has kernels now).
  int64_t n = 8;
  tfr_tensor *hf = tfr_test_random_tensor(TFR_F32, 1, &n, 2);
  tfr_tensor *hd = tfr_test_random_tensor(TFR_I8, 1, &n, 3);
  tfr_tensor *f = tfr_test_upload(s, hf), *dd = tfr_test_upload(s, hd);
  tfr_fusion_plan *p = NULL;
  TFR_ASSERT_OK(tfr_fusion_plan_create(2, (tfr_dtype[]){TFR_F32, TFR_I8}, &p));
  int v;
  TFR_ASSERT_OK(tfr_fusion_plan_unary(p, TFR_EXP, 0, &v));
  TFR_ASSERT_OK(tfr_fusion_plan_output(p, v));
  tfr_tensor *out[1] = {NULL};
  TFR_ASSERT_OK(tfr_fusion_execute(s, p, (const tfr_tensor *[]){f, dd}, out));
  tfr_tensor_release(out[0]);
  out[0] = NULL;
  tfr_fusion_plan_release(p);
  // f64 computes, but lacks some analytic functions (lgamma here; exp,
  // log, atan, erf, ... run): the instruction is named.
  tfr_tensor *h64 = tfr_test_random_tensor(TFR_F64, 1, &n, 4);
  tfr_tensor *d64 = tfr_test_upload(s, h64);
  TFR_ASSERT_OK(tfr_fusion_plan_create(1, (tfr_dtype[]){TFR_F64}, &p));
  int w;
  TFR_ASSERT_OK(tfr_fusion_plan_binary(p, TFR_ADD, 0, 0, &v));
  TFR_ASSERT_OK(tfr_fusion_plan_unary(p, TFR_LGAMMA, v, &w));
  TFR_ASSERT_OK(tfr_fusion_plan_output(p, w));
  TFR_ASSERT_ERROR(tfr_fusion_execute(s, p, (const tfr_tensor *[]){d64}, out),
                   TFR_ERR_UNSUPPORTED_DTYPE, "fusion", "f64", "instruction 1", "lgamma",
                   "webgpu");
  assert_null(out[0]);
  tfr_tensor_release(d64);
  tfr_tensor_release(h64);
  // The session still works.
  tfr_tensor *back = tfr_test_download(s, f);
  tfr_test_end(s);
  fu_failures = 0;
  fu_compare(hf, back, false, 0.0, "f32 tensor after refused plans");
  assert_int_equal(fu_failures, 0);
  tfr_fusion_plan_release(p);
  tfr_tensor *objs[] = {hf, hd, f, dd, back};
  for (int i = 0; i < 5; i++) tfr_tensor_release(objs[i]);
}

// exp(a * b + c) * a - b over 2^20 f32, fused and op by op (timings printed,
// lavapipe's say little about GPUs; tenferro-bench measures on devices).
static double fu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void test_chain5_timing(void **state) {
  (void)state;
  TFR_TEST_NEED_GPU();
  const char *env = getenv("TFR_FUSION_CHAIN_LOG2N");
  int log2n = env ? atoi(env) : 20;
  int64_t n = (int64_t)1 << log2n;
  t_plan tp;
  tp_init(&tp, 3, (tfr_dtype[]){TFR_F32, TFR_F32, TFR_F32});
  int v = tp_add(&tp, K_BINARY, TFR_MULTIPLY, 0, 1, 0);
  v = tp_add(&tp, K_BINARY, TFR_ADD, v, 2, 0);
  v = tp_add(&tp, K_UNARY, TFR_EXP, v, 0, 0);
  v = tp_add(&tp, K_BINARY, TFR_MULTIPLY, v, 0, 0);
  v = tp_add(&tp, K_BINARY, TFR_SUBTRACT, v, 1, 0);
  tp_out(&tp, v);
  tfr_fusion_plan *p = tp_build(&tp);
  tfr_tensor *h[3], *x[3];
  tfr_session *s = tfr_test_begin(tfr_test_gpu);
  for (int i = 0; i < 3; i++) {
    h[i] = tfr_test_random_tensor(TFR_F32, 1, &n, (uint64_t)i + 40);
    x[i] = tfr_test_upload(s, h[i]);
  }
  // Syncs by downloading one element (the queue runs in order).
  int64_t one = 1;
  tfr_tensor *h1 = tfr_test_random_tensor(TFR_F32, 1, &one, 1), *d1 = tfr_test_upload(s, h1);
  double best[2] = {1e30, 1e30};
  tfr_tensor *last[2] = {NULL, NULL};
  for (int trial = 0; trial < 3; trial++)
    for (int fused = 0; fused < 2; fused++) {
      tfr_tensor *r[1] = {NULL};
      tfr_tensor_release(tfr_test_download(s, d1));
      double t0 = fu_now();
      if (fused) TFR_ASSERT_OK(tfr_fusion_execute(s, p, (const tfr_tensor *const *)x, r));
      else {  // the five ops (tp_unfused would add a copy)
        tfr_tensor *t1 = NULL, *t2 = NULL, *t3 = NULL, *t4 = NULL;
        TFR_ASSERT_OK(tfr_multiply(s, x[0], x[1], &t1));
        TFR_ASSERT_OK(tfr_add(s, t1, x[2], &t2));
        TFR_ASSERT_OK(tfr_exp(s, t2, &t3));
        TFR_ASSERT_OK(tfr_multiply(s, t3, x[0], &t4));
        TFR_ASSERT_OK(tfr_subtract(s, t4, x[1], &r[0]));
        tfr_tensor_release(t1);
        tfr_tensor_release(t2);
        tfr_tensor_release(t3);
        tfr_tensor_release(t4);
      }
      tfr_tensor_release(tfr_test_download(s, d1));
      double t = fu_now() - t0;
      if (t < best[fused]) best[fused] = t;
      tfr_tensor_release(last[fused]);
      last[fused] = r[0];
    }
  tfr_tensor *a = tfr_test_download(s, last[0]), *b = tfr_test_download(s, last[1]);
  tfr_test_end(s);
  fu_failures = 0;
  fu_same_bytes(b, a, "chain5 fused vs unfused");
  assert_int_equal(fu_failures, 0);
  print_message("  chain5 exp(a*b+c)*a-b, 2^%d f32: fused %.2f ms (%.2f GB/s of 4 tensors), "
                "unfused %.2f ms (5 ops)\n",
                log2n, 1e3 * best[1], 16.0 * (double)n / best[1] * 1e-9, 1e3 * best[0]);
  for (int i = 0; i < 3; i++) {
    tfr_tensor_release(h[i]);
    tfr_tensor_release(x[i]);
  }
  tfr_tensor *objs[] = {last[0], last[1], a, b, h1, d1};
  for (int i = 0; i < 6; i++) tfr_tensor_release(objs[i]);
  tfr_fusion_plan_release(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_unsupported_dtypes, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_kernel_table, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_kinds_and_layouts, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_shared_buffers, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_many_inputs_and_instructions, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_pieces_and_grid_folding, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_every_op, tfr_test_teardown_session),
      cmocka_unit_test_teardown(test_chain5_timing, tfr_test_teardown_session),
  };
  return TFR_TEST_RUN_WEBGPU(tests);
}
