// The einsum's one-loop form on the cpu (backend_impl.h,
// tfr_sum_of_products_desc): numpy's sum_of_products for f32, f64, c64 and
// c128, on the calling thread. src/einsum/execute.c sends it only networks of
// a few thousand multiply-adds, whose pairwise steps cost more in per-op
// overhead (validation, intermediates, layout choices) than in arithmetic.
// Each output element sums its products in row-major order of the summed
// labels, in the dtype itself (as the pairwise GEMMs do); complex products use
// the plain formula (re = ac - bd, im = ad + bc), as BLAS does.
#include <string.h>

#include "cpu/cpu.h"

// Odometer over the first `rank` axes of extents `ext`: advances idx by one
// in row-major order and moves each operand's offset by its strides (st[i][j],
// elements). Returns false after the last index (idx and off back where they
// started).
static bool tfr_sop_next(int rank, const int64_t *ext, int64_t *idx, int n,
                         const int64_t (*st)[TFR_SOP_MAX_LABELS], int64_t *off) {
  for (int j = rank - 1; j >= 0; j--) {
    for (int i = 0; i < n; i++) off[i] += st[i][j];
    if (++idx[j] < ext[j]) return true;
    for (int i = 0; i < n; i++) off[i] -= ext[j] * st[i][j];
    idx[j] = 0;
  }
  return false;
}

// The loop nest: output elements outermost, then the summed labels; the
// last summed label (or, with none, a single term) runs as a plain loop
// with the operands' offsets in registers for two and three operands.
// MUL(acc_re, acc_im, x) multiplies the running product by element x;
// the real and complex forms differ only in T's arithmetic (macros below).
#define TFR_SOP_KERNEL(NAME, T, ZERO, LOAD, MUL, ADD, STORE)                                    \
  static void NAME(const tfr_sum_of_products_desc *d, const char *const *base, T *out,          \
                   int64_t nsum) {                                                              \
    int n = d->n, ns = d->num_sum > 0 ? d->num_sum - 1 : 0;                                     \
    int64_t inner = d->num_sum > 0 ? d->sum_extent[d->num_sum - 1] : 1;                         \
    int64_t step[TFR_SOP_MAX_OPERANDS];                                                         \
    for (int i = 0; i < n; i++) step[i] = d->num_sum > 0 ? d->sum_strides[i][d->num_sum - 1] : 0; \
    const T *op[TFR_SOP_MAX_OPERANDS];                                                          \
    for (int i = 0; i < n; i++) op[i] = (const T *)base[i];                                     \
    int64_t oidx[TFR_SOP_MAX_LABELS] = {0}, sidx[TFR_SOP_MAX_LABELS] = {0};                     \
    int64_t off[TFR_SOP_MAX_OPERANDS] = {0};                                                    \
    int64_t o = 0;                                                                              \
    do {                                                                                        \
      T acc = ZERO;                                                                             \
      if (nsum > 0) do {                                                                        \
          if (n == 2) {                                                                         \
            const T *x = op[0] + off[0], *y = op[1] + off[1];                                   \
            for (int64_t e = 0; e < inner; e++) {                                               \
              T p = LOAD(x, e * step[0]);                                                       \
              MUL(p, LOAD(y, e * step[1]));                                                     \
              ADD(acc, p);                                                                      \
            }                                                                                   \
          } else if (n == 3) {                                                                  \
            const T *x = op[0] + off[0], *y = op[1] + off[1], *z = op[2] + off[2];              \
            for (int64_t e = 0; e < inner; e++) {                                               \
              T p = LOAD(x, e * step[0]);                                                       \
              MUL(p, LOAD(y, e * step[1]));                                                     \
              MUL(p, LOAD(z, e * step[2]));                                                     \
              ADD(acc, p);                                                                      \
            }                                                                                   \
          } else {                                                                              \
            for (int64_t e = 0; e < inner; e++) {                                               \
              T p = LOAD(op[0] + off[0], e * step[0]);                                          \
              for (int i = 1; i < n; i++) MUL(p, LOAD(op[i] + off[i], e * step[i]));            \
              ADD(acc, p);                                                                      \
            }                                                                                   \
          }                                                                                     \
        } while (tfr_sop_next(ns, d->sum_extent, sidx, n, d->sum_strides, off));                \
      STORE(out, o, acc);                                                                       \
      o++;                                                                                      \
    } while (tfr_sop_next(d->num_out, d->out_extent, oidx, n, d->out_strides, off));            \
  }

// Real: T is the element type. Complex: T is a pair of reals (re, im), as
// stored; products by the plain formula.
#define TFR_SOP_R_LOAD(ptr, k) ((ptr)[k])
#define TFR_SOP_R_MUL(p, x) ((p) *= (x))
#define TFR_SOP_R_ADD(acc, p) ((acc) += (p))
#define TFR_SOP_R_STORE(out, o, acc) ((out)[o] = (acc))
TFR_SOP_KERNEL(tfr_sop_f32, float, 0.0f, TFR_SOP_R_LOAD, TFR_SOP_R_MUL, TFR_SOP_R_ADD, TFR_SOP_R_STORE)
TFR_SOP_KERNEL(tfr_sop_f64, double, 0.0, TFR_SOP_R_LOAD, TFR_SOP_R_MUL, TFR_SOP_R_ADD, TFR_SOP_R_STORE)

typedef struct tfr_sop_z64 {
  float re, im;
} tfr_sop_z64;
typedef struct tfr_sop_z128 {
  double re, im;
} tfr_sop_z128;
static inline tfr_sop_z64 tfr_sop_mul_z64(tfr_sop_z64 a, tfr_sop_z64 b) {
  return (tfr_sop_z64){a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
static inline tfr_sop_z128 tfr_sop_mul_z128(tfr_sop_z128 a, tfr_sop_z128 b) {
  return (tfr_sop_z128){a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
#define TFR_SOP_C_LOAD(ptr, k) ((ptr)[k])
#define TFR_SOP_Z64_MUL(p, x) ((p) = tfr_sop_mul_z64((p), (x)))
#define TFR_SOP_Z128_MUL(p, x) ((p) = tfr_sop_mul_z128((p), (x)))
#define TFR_SOP_C_ADD(acc, p) ((acc).re += (p).re, (acc).im += (p).im)
#define TFR_SOP_C_STORE(out, o, acc) ((out)[o] = (acc))
TFR_SOP_KERNEL(tfr_sop_c64, tfr_sop_z64, ((tfr_sop_z64){0, 0}), TFR_SOP_C_LOAD, TFR_SOP_Z64_MUL,
               TFR_SOP_C_ADD, TFR_SOP_C_STORE)
TFR_SOP_KERNEL(tfr_sop_c128, tfr_sop_z128, ((tfr_sop_z128){0, 0}), TFR_SOP_C_LOAD, TFR_SOP_Z128_MUL,
               TFR_SOP_C_ADD, TFR_SOP_C_STORE)

tfr_status tfr_cpu_sum_of_products(tfr_backend *b, const tfr_sum_of_products_desc *d) {
  (void)b;
  if (d->dtype != TFR_F32 && d->dtype != TFR_F64 && d->dtype != TFR_C64 && d->dtype != TFR_C128)
    return TFR_ERR_UNSUPPORTED_DTYPE;  // the einsum's pairwise steps run it
  int64_t nout = 1, nsum = 1;
  for (int j = 0; j < d->num_out; j++) nout *= d->out_extent[j];
  for (int j = 0; j < d->num_sum; j++) nsum *= d->sum_extent[j];
  if (nout == 0) return TFR_OK;
  const char *base[TFR_SOP_MAX_OPERANDS];
  for (int i = 0; i < d->n; i++) base[i] = tfr_tensor_host_ptr(d->operands[i]);
  void *out = tfr_tensor_host_ptr(d->out);
  switch (d->dtype) {
    case TFR_F32: tfr_sop_f32(d, base, out, nsum); break;
    case TFR_F64: tfr_sop_f64(d, base, out, nsum); break;
    case TFR_C64: tfr_sop_c64(d, base, out, nsum); break;
    default: tfr_sop_c128(d, base, out, nsum); break;
  }
  return TFR_OK;
}
