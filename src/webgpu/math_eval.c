// tfr_wgpu_math_eval: one function of the WGSL math library over device
// tensors (see math_eval.h). The kernel is kernels/math_eval.wgsl with the
// library's snippets placed before it.
#include "webgpu/binding.h"
#include "webgpu/math_eval.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cpu/scalar_math.h"
#include "cpu/special_math.h"
#include "webgpu/wgpu.h"

static const tfr_wgpu_math_fn tfr_wgpu_math_table[] = {
    {"exp_f32", 1, TFR_F32, TFR_F32, NULL},       {"expm1_f32", 1, TFR_F32, TFR_F32, NULL},
    {"log_f32", 1, TFR_F32, TFR_F32, NULL},       {"log1p_f32", 1, TFR_F32, TFR_F32, NULL},
    {"sin_f32", 1, TFR_F32, TFR_F32, NULL},       {"cos_f32", 1, TFR_F32, TFR_F32, NULL},
    {"tan_f32", 1, TFR_F32, TFR_F32, NULL},       {"tanh_f32", 1, TFR_F32, TFR_F32, NULL},
    {"sinh_f32", 1, TFR_F32, TFR_F32, NULL},      {"cosh_f32", 1, TFR_F32, TFR_F32, NULL},
    {"asin_f32", 1, TFR_F32, TFR_F32, NULL},      {"acos_f32", 1, TFR_F32, TFR_F32, NULL},
    {"atan_f32", 1, TFR_F32, TFR_F32, NULL},      {"asinh_f32", 1, TFR_F32, TFR_F32, NULL},
    {"acosh_f32", 1, TFR_F32, TFR_F32, NULL},     {"atanh_f32", 1, TFR_F32, TFR_F32, NULL},
    {"sqrt_f32", 1, TFR_F32, TFR_F32, NULL},      {"rsqrt_f32", 1, TFR_F32, TFR_F32, NULL},
    {"cbrt_f32", 1, TFR_F32, TFR_F32, NULL},      {"erf_f32", 1, TFR_F32, TFR_F32, NULL},
    {"erfc_f32", 1, TFR_F32, TFR_F32, NULL},      {"logistic_f32", 1, TFR_F32, TFR_F32, NULL},
    {"pow_f32", 2, TFR_F32, TFR_F32, NULL},       {"atan2_f32", 2, TFR_F32, TFR_F32, NULL},
    // common/math_special_f32.wgsl
    {"lgamma_f32", 1, TFR_F32, TFR_F32, NULL},    {"digamma_f32", 1, TFR_F32, TFR_F32, NULL},
    {"erf_inv_f32", 1, TFR_F32, TFR_F32, NULL},   {"bessel_i1e_f32", 1, TFR_F32, TFR_F32, NULL},
    {"div_f32", 2, TFR_F32, TFR_F32, NULL},       {"fmod_f32", 2, TFR_F32, TFR_F32, NULL},
    {"exp_c64", 1, TFR_C64, TFR_C64, NULL},       {"expm1_c64", 1, TFR_C64, TFR_C64, NULL},
    {"log_c64", 1, TFR_C64, TFR_C64, NULL},       {"log1p_c64", 1, TFR_C64, TFR_C64, NULL},
    {"sin_c64", 1, TFR_C64, TFR_C64, NULL},       {"cos_c64", 1, TFR_C64, TFR_C64, NULL},
    {"tan_c64", 1, TFR_C64, TFR_C64, NULL},       {"tanh_c64", 1, TFR_C64, TFR_C64, NULL},
    {"sinh_c64", 1, TFR_C64, TFR_C64, NULL},      {"cosh_c64", 1, TFR_C64, TFR_C64, NULL},
    {"asin_c64", 1, TFR_C64, TFR_C64, NULL},      {"acos_c64", 1, TFR_C64, TFR_C64, NULL},
    {"atan_c64", 1, TFR_C64, TFR_C64, NULL},      {"asinh_c64", 1, TFR_C64, TFR_C64, NULL},
    {"acosh_c64", 1, TFR_C64, TFR_C64, NULL},     {"atanh_c64", 1, TFR_C64, TFR_C64, NULL},
    {"sqrt_c64", 1, TFR_C64, TFR_C64, NULL},      {"rsqrt_c64", 1, TFR_C64, TFR_C64, NULL},
    {"logistic_c64", 1, TFR_C64, TFR_C64, NULL},  {"sign_c64", 1, TFR_C64, TFR_C64, NULL},
    {"abs_c64", 1, TFR_C64, TFR_F32, NULL},       {"mul_c64", 2, TFR_C64, TFR_C64, NULL},
    {"div_c64", 2, TFR_C64, TFR_C64, NULL},       {"pow_c64", 2, TFR_C64, TFR_C64, NULL},
    // A probe, not a library function: fma(x, x, -x * x), the rounding error
    // of x * x where fma is fused, 0 where it is not.
    {"fma_residual_f32", 1, TFR_F32, TFR_F32, NULL},
    // Probes of the double-f32 helpers: the exact error of 1 + x, and of x * x.
    {"two_sum_err_f32", 1, TFR_F32, TFR_F32, NULL},
    {"two_prod_err_f32", 1, TFR_F32, TFR_F32, NULL},
    // WGSL's built-ins, measured against the same references (not used by
    // the library: docs/accuracy.md says why).
    {"wgsl_exp_f32", 1, TFR_F32, TFR_F32, "exp(a)"},
    {"wgsl_log_f32", 1, TFR_F32, TFR_F32, "log(a)"},
    {"wgsl_sin_f32", 1, TFR_F32, TFR_F32, "sin(a)"},
    {"wgsl_cos_f32", 1, TFR_F32, TFR_F32, "cos(a)"},
    {"wgsl_tan_f32", 1, TFR_F32, TFR_F32, "tan(a)"},
    {"wgsl_tanh_f32", 1, TFR_F32, TFR_F32, "tanh(a)"},
    {"wgsl_sinh_f32", 1, TFR_F32, TFR_F32, "sinh(a)"},
    {"wgsl_cosh_f32", 1, TFR_F32, TFR_F32, "cosh(a)"},
    {"wgsl_asin_f32", 1, TFR_F32, TFR_F32, "asin(a)"},
    {"wgsl_acos_f32", 1, TFR_F32, TFR_F32, "acos(a)"},
    {"wgsl_atan_f32", 1, TFR_F32, TFR_F32, "atan(a)"},
    {"wgsl_asinh_f32", 1, TFR_F32, TFR_F32, "asinh(a)"},
    {"wgsl_acosh_f32", 1, TFR_F32, TFR_F32, "acosh(a)"},
    {"wgsl_atanh_f32", 1, TFR_F32, TFR_F32, "atanh(a)"},
    {"wgsl_sqrt_f32", 1, TFR_F32, TFR_F32, "sqrt(a)"},
    {"wgsl_rsqrt_f32", 1, TFR_F32, TFR_F32, "inverseSqrt(a)"},
    {"wgsl_pow_f32", 2, TFR_F32, TFR_F32, "pow(a, b)"},
    {"wgsl_atan2_f32", 2, TFR_F32, TFR_F32, "atan2(a, b)"},
    {"wgsl_div_f32", 2, TFR_F32, TFR_F32, "a / b"},
};

#define TFR_WGPU_MATH_COUNT ((int)(sizeof tfr_wgpu_math_table / sizeof tfr_wgpu_math_table[0]))
#define TFR_WGPU_MATH_WG 256
// Elements per dispatch: keeps each bound window far below every device's
// maxStorageBufferBindingSize (128 MiB on lavapipe).
#define TFR_WGPU_MATH_CHUNK ((int64_t)1 << 22)

const tfr_wgpu_math_fn *tfr_wgpu_math_functions(int *count) {
  *count = TFR_WGPU_MATH_COUNT;
  return tfr_wgpu_math_table;
}

const tfr_wgpu_math_fn *tfr_wgpu_math_find(const char *name) {
  for (int i = 0; i < TFR_WGPU_MATH_COUNT; i++)
    if (name && strcmp(tfr_wgpu_math_table[i].name, name) == 0) return &tfr_wgpu_math_table[i];
  return NULL;
}

typedef struct tfr_wgpu_math_params {
  uint32_t n, x_off, y_off, out_off;
} tfr_wgpu_math_params;

static bool tfr_wgpu_math_operand_ok(tfr_backend *backend, const tfr_tensor *t, tfr_dtype dt,
                                     int64_t numel) {
  return t && t->storage && t->storage->backend == backend && !t->storage->host &&
         t->dtype == dt && t->numel == numel && tfr_tensor_is_contiguous(t);
}

tfr_status tfr_wgpu_math_eval(tfr_backend *backend, const char *name, const tfr_tensor *x,
                              const tfr_tensor *y, tfr_tensor *out) {
  const char *op = "math_eval";
  const tfr_wgpu_math_fn *fn = tfr_wgpu_math_find(name);
  if (!fn)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: no function %s", op, name ? name : "(null)");
  if (!backend || backend->kind != TFR_BACKEND_WEBGPU)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: %s: not a webgpu backend", op, name);
  if (!x || !out || (fn->arity == 2) != (y != NULL))
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: %s takes %d operand(s)", op, name, fn->arity);
  int64_t n = x->numel;
  if (!tfr_wgpu_math_operand_ok(backend, x, fn->in, n) ||
      (y && !tfr_wgpu_math_operand_ok(backend, y, fn->in, n)) ||
      !tfr_wgpu_math_operand_ok(backend, out, fn->out, n))
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "%s: %s needs compact device tensors of this backend (%s in, %s out) with "
                     "one element count",
                     op, name, tfr_dtype_name(fn->in), tfr_dtype_name(fn->out));
  tfr_wgpu_backend *b = tfr_wgpu_cast(backend);
  TFR_RETURN_IF_ERROR(tfr_wgpu_check(b, op));
  if (n == 0) return TFR_OK;

  char variant[64], expr[96];
  snprintf(variant, sizeof variant, "math_eval[%s]", name);
  if (fn->expr) snprintf(expr, sizeof expr, "%s", fn->expr);
  else if (fn->arity == 1) snprintf(expr, sizeof expr, "tfr_%s(a)", name);
  else snprintf(expr, sizeof expr, "tfr_%s(a, b)", name);
  const char *in_t = fn->in == TFR_F32 ? "f32" : "vec2<f32>";
  const char *out_t = fn->out == TFR_F32 ? "f32" : "vec2<f32>";
  static const char *const snippets_f32[] = {"common/u64.wgsl", "common/math_f32.wgsl",
                                             "common/math_special_f32.wgsl", NULL};
  static const char *const snippets_c64[] = {"common/u64.wgsl", "common/math_f32.wgsl",
                                             "common/math_c64.wgsl", NULL};
  tfr_wgsl_subst subst[] = {{"IN_T", in_t}, {"OUT_T", out_t}, {"EXPR", expr}};
  tfr_wgsl_override overrides[] = {{"WG", TFR_WGPU_MATH_WG}};
  tfr_wgsl_variant v = {variant, "math_eval.wgsl",
                        fn->in == TFR_F32 && fn->out == TFR_F32 ? snippets_f32 : snippets_c64,
                        subst, 3, overrides, 1, 2, 1};
  WGPUComputePipeline pipeline;
  TFR_RETURN_IF_ERROR(tfr_wgpu_pipeline_get(b, &v, &pipeline));

  int64_t ies = (int64_t)tfr_dtype_size(fn->in), oes = (int64_t)tfr_dtype_size(fn->out);
  for (int64_t start = 0; start < n; start += TFR_WGPU_MATH_CHUNK) {
    int64_t len = n - start < TFR_WGPU_MATH_CHUNK ? n - start : TFR_WGPU_MATH_CHUNK;
    tfr_wgpu_binding bind[3];
    tfr_wgpu_math_params p;
    TFR_RETURN_IF_ERROR(tfr_wgpu_window(b, op, "x", x, ies, x->offset + start, 0, len - 1,
                                        &bind[0], &p.x_off));
    const tfr_tensor *yy = y ? y : x;
    TFR_RETURN_IF_ERROR(tfr_wgpu_window(b, op, "y", yy, ies, yy->offset + start, 0, len - 1,
                                        &bind[1], &p.y_off));
    TFR_RETURN_IF_ERROR(tfr_wgpu_window(b, op, "out", out, oes, out->offset + start, 0, len - 1,
                                        &bind[2], &p.out_off));
    p.n = (uint32_t)len;
    uint64_t groups = ((uint64_t)len + TFR_WGPU_MATH_WG - 1) / TFR_WGPU_MATH_WG;
    TFR_RETURN_IF_ERROR(tfr_wgpu_dispatch_n(b, pipeline, &p, sizeof p, bind, 2, 1, groups));
  }
  return tfr_wgpu_check(b, op);
}

// ---------------------------------------------------------------------------
// Host reference
// ---------------------------------------------------------------------------

static double tfr_wgpu_ref_f64(const char *n, double x, double y) {
  if (!strcmp(n, "exp")) return exp(x);
  if (!strcmp(n, "expm1")) return expm1(x);
  if (!strcmp(n, "log")) return log(x);
  if (!strcmp(n, "log1p")) return log1p(x);
  if (!strcmp(n, "sin")) return sin(x);
  if (!strcmp(n, "cos")) return cos(x);
  if (!strcmp(n, "tan")) return tan(x);
  if (!strcmp(n, "tanh")) return tanh(x);
  if (!strcmp(n, "sinh")) return sinh(x);
  if (!strcmp(n, "cosh")) return cosh(x);
  if (!strcmp(n, "asin")) return asin(x);
  if (!strcmp(n, "acos")) return acos(x);
  if (!strcmp(n, "atan")) return atan(x);
  if (!strcmp(n, "asinh")) return asinh(x);
  if (!strcmp(n, "acosh")) return acosh(x);
  if (!strcmp(n, "atanh")) return atanh(x);
  if (!strcmp(n, "sqrt")) return sqrt(x);
  if (!strcmp(n, "rsqrt")) return 1.0 / sqrt(x);
  if (!strcmp(n, "cbrt")) return cbrt(x);
  if (!strcmp(n, "erf")) return erf(x);
  if (!strcmp(n, "erfc")) return erfc(x);
  if (!strcmp(n, "logistic")) return tfr_sm_logistic_f64(x);
  if (!strcmp(n, "pow")) return pow(x, y);
  if (!strcmp(n, "atan2")) return atan2(x, y);
  if (!strcmp(n, "div")) return x / y;
  if (!strcmp(n, "fmod")) return fmod(x, y);
  if (!strcmp(n, "fma") || !strcmp(n, "two")) return NAN;  // probes: no reference
  return NAN;
}

static tfr_sm_c128 tfr_wgpu_ref_c128(const char *n, tfr_sm_c128 a, tfr_sm_c128 b) {
  if (!strcmp(n, "exp")) return tfr_sm_exp_c128(a);
  if (!strcmp(n, "expm1")) return tfr_sm_expm1_c128(a);
  if (!strcmp(n, "log")) return tfr_sm_log_c128(a);
  if (!strcmp(n, "log1p")) return tfr_sm_log1p_c128(a);
  if (!strcmp(n, "sin")) return tfr_sm_sin_c128(a);
  if (!strcmp(n, "cos")) return tfr_sm_cos_c128(a);
  if (!strcmp(n, "tan")) return tfr_sm_tan_c128(a);
  if (!strcmp(n, "tanh")) return tfr_sm_tanh_c128(a);
  if (!strcmp(n, "sinh")) return tfr_sm_sinh_c128(a);
  if (!strcmp(n, "cosh")) return tfr_sm_cosh_c128(a);
  if (!strcmp(n, "asin")) return tfr_sm_asin_c128(a);
  if (!strcmp(n, "acos")) return tfr_sm_acos_c128(a);
  if (!strcmp(n, "atan")) return tfr_sm_atan_c128(a);
  if (!strcmp(n, "asinh")) return tfr_sm_asinh_c128(a);
  if (!strcmp(n, "acosh")) return tfr_sm_acosh_c128(a);
  if (!strcmp(n, "atanh")) return tfr_sm_atanh_c128(a);
  if (!strcmp(n, "sqrt")) return tfr_sm_sqrt_c128(a);
  if (!strcmp(n, "rsqrt")) return tfr_sm_rsqrt_c128(a);
  if (!strcmp(n, "logistic")) return tfr_sm_logistic_c128(a);
  if (!strcmp(n, "sign")) return tfr_sm_sign_c128(a);
  if (!strcmp(n, "abs")) return tfr_sm_mk_c128(tfr_sm_abs_c128(a), 0.0);
  if (!strcmp(n, "mul")) return tfr_sm_multiply_c128(a, b);
  if (!strcmp(n, "div")) return tfr_sm_divide_c128(a, b);
  if (!strcmp(n, "pow")) return tfr_sm_power_c128(a, b);
  return tfr_sm_mk_c128(NAN, NAN);
}

void tfr_wgpu_math_reference(const tfr_wgpu_math_fn *fn, const double *x, const double *y,
                             double *out) {
  // the special functions (math_special_f32.wgsl): the cpu backend's f64
  // functions (src/cpu/special_math.h, a few ulps of a double)
  static const struct {
    const char *name;
    double (*f)(double);
  } special[] = {{"lgamma_f32", tfr_sm_lgamma_f64},
                 {"digamma_f32", tfr_sm_digamma_f64},
                 {"erf_inv_f32", tfr_sm_erf_inv_f64},
                 {"bessel_i1e_f32", tfr_sm_bessel_i1e_f64}};
  for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
    if (!strcmp(fn->name, special[i].name)) {
      out[0] = special[i].f(x[0]);
      return;
    }
  char base[32];
  const char *name = strncmp(fn->name, "wgsl_", 5) == 0 ? fn->name + 5 : fn->name;
  size_t len = strcspn(name, "_");
  if (len >= sizeof base) len = sizeof base - 1;
  memcpy(base, name, len);
  base[len] = '\0';
  if (fn->in == TFR_F32) {
    out[0] = tfr_wgpu_ref_f64(base, x[0], y ? y[0] : 0.0);
    return;
  }
  tfr_sm_c128 a = tfr_sm_mk_c128(x[0], x[1]);
  tfr_sm_c128 b = y ? tfr_sm_mk_c128(y[0], y[1]) : tfr_sm_mk_c128(0.0, 0.0);
  tfr_sm_c128 r = tfr_wgpu_ref_c128(base, a, b);
  out[0] = creal(r);
  out[1] = cimag(r);
}
