// Batched small GEMM kernels (small_gemm.h).
//
// Per batch element, the columns are taken in panels of at most
// TFR_SG_PANEL: the panel of B is copied into a zero-padded block of width
// 4, 8, 16 or 32 (complex: real and imaginary parts in two planes, B's
// conjugation applied), so that every row's accumulators have a width known
// at compile time and stay in vector registers; two rows of A at a time share
// each row of the block. The copy costs K x N per panel against M x N x K
// multiply-adds, and the kernels never read past an operand's elements.
//
// Each kernel is compiled three times: for the baseline ISA, for AVX2 and
// for AVX-512 (the level vector_math.h's detection picks), from one C body:
// the compiler vectorises the fixed-width loops.
#include "cpu/small_gemm.h"

#include <string.h>

#include "core/validate.h"
#include "cpu/vector_math.h"

#define TFR_SG_PANEL 32
// B's copy: K x N elements and a zeroed panel's width past them.
#define TFR_SG_COPY (TFR_DOT_SMALL_GEMM_MAX_SIDE * TFR_DOT_SMALL_GEMM_MAX_SIDE + TFR_SG_PANEL)

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TFR_SG_X86 1
#define TFR_SG_AVX2 __attribute__((target("avx2,fma")))
#define TFR_SG_AVX512 __attribute__((target("avx512f,avx512dq,fma")))
#endif

// ---------------------------------------------------------------------------
// Real: rows of C, W (the panel width) a compile-time constant. bp is B's
// copy, ldb elements a row; lanes at and past nn read whatever follows
// (the next row, or the copy's zeroed tail) and are never stored.
// MAC(x, y, acc) is acc + x * y: fused on the AVX2 and AVX-512 levels.
// ---------------------------------------------------------------------------

// Stores row `acc` (nn valid lanes) into c (stride osn) under g's form.
#define TFR_SG_STORE_REAL(c, acc, nn, osn, g, alpha, beta)                          \
  do {                                                                              \
    if ((g)->form == TFR_SMALL_GEMM_PLAIN) {                                        \
      if ((osn) == 1)                                                               \
        for (int64_t n_ = 0; n_ < (nn); n_++) (c)[n_] = (acc)[n_];                  \
      else                                                                          \
        for (int64_t n_ = 0; n_ < (nn); n_++) (c)[n_ * (osn)] = (acc)[n_];          \
    } else if ((g)->form == TFR_SMALL_GEMM_ALPHA) {                                 \
      for (int64_t n_ = 0; n_ < (nn); n_++) (c)[n_ * (osn)] = (alpha) * (acc)[n_];  \
    } else {                                                                        \
      for (int64_t n_ = 0; n_ < (nn); n_++)                                         \
        (c)[n_ * (osn)] = (alpha) * (acc)[n_] + (beta) * (c)[n_ * (osn)];           \
    }                                                                               \
  } while (0)

#define TFR_SG_ROWS_REAL(NAME, T, W, ATTR, MAC)                                                 \
  ATTR static void NAME(const tfr_small_gemm *g, const T *A, const T *bp, int64_t ldb,          \
                        const T *blast, T *C, int64_t nn) {                                     \
    T alpha, beta;                                                                              \
    memcpy(&alpha, g->alpha, sizeof alpha);                                                     \
    memcpy(&beta, g->beta, sizeof beta);                                                        \
    int64_t M = g->M, K = g->K - 1, lsm = g->lsm, lsk = g->lsk, osn = g->osn, m = 0;            \
    for (; m + 2 <= M; m += 2) {                                                                \
      T acc0[W], acc1[W];                                                                       \
      for (int n = 0; n < (W); n++) acc0[n] = acc1[n] = 0;                                      \
      const T *a0 = A + m * lsm, *a1 = a0 + lsm;                                                \
      for (int64_t k = 0; k < K; k++) {                                                         \
        T x0 = a0[k * lsk], x1 = a1[k * lsk];                                                   \
        const T *b = bp + k * ldb;                                                              \
        for (int n = 0; n < (W); n++) {                                                         \
          acc0[n] = MAC(x0, b[n], acc0[n]);                                                     \
          acc1[n] = MAC(x1, b[n], acc1[n]);                                                     \
        }                                                                                       \
      }                                                                                         \
      T x0 = a0[K * lsk], x1 = a1[K * lsk];                                                     \
      for (int n = 0; n < (W); n++) {                                                           \
        acc0[n] = MAC(x0, blast[n], acc0[n]);                                                   \
        acc1[n] = MAC(x1, blast[n], acc1[n]);                                                   \
      }                                                                                         \
      T *c0 = C + m * g->osm, *c1 = c0 + g->osm;                                                \
      TFR_SG_STORE_REAL(c0, acc0, nn, osn, g, alpha, beta);                                     \
      TFR_SG_STORE_REAL(c1, acc1, nn, osn, g, alpha, beta);                                     \
    }                                                                                           \
    if (m < M) {                                                                                \
      T acc0[W];                                                                                \
      for (int n = 0; n < (W); n++) acc0[n] = 0;                                                \
      const T *a0 = A + m * lsm;                                                                \
      for (int64_t k = 0; k < K; k++) {                                                         \
        T x0 = a0[k * lsk];                                                                     \
        const T *b = bp + k * ldb;                                                              \
        for (int n = 0; n < (W); n++) acc0[n] = MAC(x0, b[n], acc0[n]);                         \
      }                                                                                         \
      T x0 = a0[K * lsk];                                                                       \
      for (int n = 0; n < (W); n++) acc0[n] = MAC(x0, blast[n], acc0[n]);                       \
      T *c0 = C + m * g->osm;                                                                   \
      TFR_SG_STORE_REAL(c0, acc0, nn, osn, g, alpha, beta);                                     \
    }                                                                                           \
  }

// The width of the panel that holds nn (<= TFR_SG_PANEL) columns.
static inline int64_t tfr_sg_width(int64_t nn) {
  return nn <= 4 ? 4 : nn <= 8 ? 8 : nn <= 12 ? 12 : nn <= 16 ? 16 : nn <= 24 ? 24 : 32;
}

// Whether B's rows (N elements, unit stride, rsk apart) are read in place:
// the lanes a row's last panel reads past its end (up to the panel's width)
// must lie before the next row, inside B's storage.
static inline bool tfr_sg_rows_in_place(int64_t N, int64_t rsk) {
  int64_t nn = N - (N - 1) / TFR_SG_PANEL * TFR_SG_PANEL;
  return rsk >= N && rsk >= tfr_sg_width(nn) - nn;
}

// One batch element: panels of columns, each at the smallest width that
// holds it. B is read in place when its rows have unit stride and lie
// forward in memory with room for a panel's lanes past a row's end (those
// lanes read into the gap or the next row), except its last row, which is
// copied into a zero-padded one (nothing is read past B); any other B is
// copied whole.
#define TFR_SG_REAL(NAME, T, ATTR, MAC)                                                         \
  TFR_SG_ROWS_REAL(NAME##_w4, T, 4, ATTR, MAC)                                                  \
  TFR_SG_ROWS_REAL(NAME##_w8, T, 8, ATTR, MAC)                                                  \
  TFR_SG_ROWS_REAL(NAME##_w12, T, 12, ATTR, MAC)                                                \
  TFR_SG_ROWS_REAL(NAME##_w16, T, 16, ATTR, MAC)                                                \
  TFR_SG_ROWS_REAL(NAME##_w24, T, 24, ATTR, MAC)                                                \
  TFR_SG_ROWS_REAL(NAME##_w32, T, 32, ATTR, MAC)                                                \
  ATTR static void NAME(const tfr_small_gemm *g, const char *a, const char *b, char *c) {       \
    const T *A = (const T *)a, *B = (const T *)b;                                               \
    T *C = (T *)c;                                                                              \
    T bp[TFR_SG_COPY];                                                                          \
    int64_t N = g->N, K = g->K, ldb = N;                                                        \
    const T *src = bp, *last = bp + (K - 1) * N;                                                \
    if (g->rsn == 1 && tfr_sg_rows_in_place(N, g->rsk)) {                                      \
      src = B;                                                                                  \
      ldb = g->rsk;                                                                             \
      for (int64_t n = 0; n < N; n++) bp[n] = B[(K - 1) * g->rsk + n];                          \
      last = bp;                                                                                \
      for (int n = 0; n < TFR_SG_PANEL; n++) bp[N + n] = 0;                                     \
    } else {                                                                                    \
      for (int64_t k = 0; k < K; k++)                                                           \
        for (int64_t n = 0; n < N; n++) bp[k * N + n] = B[k * g->rsk + n * g->rsn];             \
      for (int n = 0; n < TFR_SG_PANEL; n++) bp[K * N + n] = 0;                                 \
    }                                                                                           \
    for (int64_t n0 = 0; n0 < N; n0 += TFR_SG_PANEL) {                                          \
      int64_t nn = N - n0 < TFR_SG_PANEL ? N - n0 : TFR_SG_PANEL;                               \
      T *cp = C + n0 * g->osn;                                                                  \
      const T *p = src + n0, *q = last + n0;                                                    \
      switch (tfr_sg_width(nn)) {                                                               \
        case 4: NAME##_w4(g, A, p, ldb, q, cp, nn); break;                                      \
        case 8: NAME##_w8(g, A, p, ldb, q, cp, nn); break;                                      \
        case 12: NAME##_w12(g, A, p, ldb, q, cp, nn); break;                                    \
        case 16: NAME##_w16(g, A, p, ldb, q, cp, nn); break;                                    \
        case 24: NAME##_w24(g, A, p, ldb, q, cp, nn); break;                                    \
        default: NAME##_w32(g, A, p, ldb, q, cp, nn); break;                                    \
      }                                                                                         \
    }                                                                                           \
  }

// ---------------------------------------------------------------------------
// Complex: interleaved (re, im) elements; B's copy in two planes (real,
// imaginary) with its conjugation applied.
// ---------------------------------------------------------------------------

#define TFR_SG_STORE_COMPLEX(R, c, ar, ai, nn, osn, g, alpha, beta)             \
  do {                                                                          \
    for (int64_t n_ = 0; n_ < (nn); n_++) {                                     \
      R vr = (ar)[n_], vi = (ai)[n_];                                           \
      R *p_ = (c) + 2 * n_ * (osn);                                             \
      if ((g)->form != TFR_SMALL_GEMM_PLAIN) {                                  \
        R tr = (alpha)[0] * vr - (alpha)[1] * vi;                               \
        R ti = (alpha)[0] * vi + (alpha)[1] * vr;                               \
        if ((g)->form == TFR_SMALL_GEMM_ALPHA_BETA) {                           \
          tr += (beta)[0] * p_[0] - (beta)[1] * p_[1];                          \
          ti += (beta)[0] * p_[1] + (beta)[1] * p_[0];                          \
        }                                                                       \
        vr = tr;                                                                \
        vi = ti;                                                                \
      }                                                                         \
      p_[0] = vr;                                                               \
      p_[1] = vi;                                                               \
    }                                                                           \
  } while (0)

#define TFR_SG_ROWS_COMPLEX(NAME, R, W, ATTR, MAC)                                               \
  ATTR static void NAME(const tfr_small_gemm *g, const R *A, const R *br, const R *bi,           \
                        int64_t ldb, R *C, int64_t nn) {                                         \
    R alpha[2], beta[2];                                                                         \
    memcpy(alpha, g->alpha, sizeof alpha);                                                       \
    memcpy(beta, g->beta, sizeof beta);                                                          \
    R sa = g->a_conj ? -1 : 1;                                                                   \
    int64_t M = g->M, K = g->K, lsm = g->lsm, lsk = g->lsk, osn = g->osn;                        \
    for (int64_t m = 0; m < M; m++) {                                                            \
      R accr[W], acci[W];                                                                        \
      for (int n = 0; n < (W); n++) accr[n] = acci[n] = 0;                                       \
      const R *a = A + 2 * m * lsm;                                                              \
      for (int64_t k = 0; k < K; k++) {                                                          \
        R xr = a[2 * k * lsk], xi = sa * a[2 * k * lsk + 1], nxi = -xi;                          \
        const R *yr = br + k * ldb, *yi = bi + k * ldb;                                          \
        for (int n = 0; n < (W); n++) {                                                          \
          accr[n] = MAC(nxi, yi[n], MAC(xr, yr[n], accr[n]));                                    \
          acci[n] = MAC(xi, yr[n], MAC(xr, yi[n], acci[n]));                                     \
        }                                                                                        \
      }                                                                                          \
      R *c = C + 2 * m * g->osm;                                                                 \
      TFR_SG_STORE_COMPLEX(R, c, accr, acci, nn, osn, g, alpha, beta);                           \
    }                                                                                            \
  }

#define TFR_SG_COMPLEX(NAME, R, ATTR, MAC)                                                       \
  TFR_SG_ROWS_COMPLEX(NAME##_w4, R, 4, ATTR, MAC)                                                \
  TFR_SG_ROWS_COMPLEX(NAME##_w8, R, 8, ATTR, MAC)                                                \
  TFR_SG_ROWS_COMPLEX(NAME##_w12, R, 12, ATTR, MAC)                                              \
  TFR_SG_ROWS_COMPLEX(NAME##_w16, R, 16, ATTR, MAC)                                              \
  TFR_SG_ROWS_COMPLEX(NAME##_w24, R, 24, ATTR, MAC)                                              \
  TFR_SG_ROWS_COMPLEX(NAME##_w32, R, 32, ATTR, MAC)                                              \
  ATTR static void NAME(const tfr_small_gemm *g, const char *a, const char *b, char *c) {        \
    const R *A = (const R *)a, *B = (const R *)b;                                                \
    R *C = (R *)c;                                                                               \
    R pr[TFR_SG_COPY], pi[TFR_SG_COPY];                                                          \
    R sb = g->b_conj ? -1 : 1;                                                                   \
    int64_t N = g->N, K = g->K;                                                                  \
    if (g->rsn == 1 && g->rsk == N) {                                                            \
      for (int64_t i = 0; i < K * N; i++) {                                                      \
        pr[i] = B[2 * i];                                                                        \
        pi[i] = sb * B[2 * i + 1];                                                               \
      }                                                                                          \
    } else {                                                                                     \
      for (int64_t k = 0; k < K; k++)                                                            \
        for (int64_t n = 0; n < N; n++) {                                                        \
          const R *src = B + 2 * (k * g->rsk + n * g->rsn);                                      \
          pr[k * N + n] = src[0];                                                                \
          pi[k * N + n] = sb * src[1];                                                           \
        }                                                                                        \
    }                                                                                            \
    for (int n = 0; n < TFR_SG_PANEL; n++) pr[K * N + n] = pi[K * N + n] = 0;                    \
    for (int64_t n0 = 0; n0 < N; n0 += TFR_SG_PANEL) {                                           \
      int64_t nn = N - n0 < TFR_SG_PANEL ? N - n0 : TFR_SG_PANEL;                                \
      R *cp = C + 2 * n0 * g->osn;                                                               \
      const R *p = pr + n0, *q = pi + n0;                                                        \
      switch (tfr_sg_width(nn)) {                                                                \
        case 4: NAME##_w4(g, A, p, q, N, cp, nn); break;                                         \
        case 8: NAME##_w8(g, A, p, q, N, cp, nn); break;                                         \
        case 12: NAME##_w12(g, A, p, q, N, cp, nn); break;                                       \
        case 16: NAME##_w16(g, A, p, q, N, cp, nn); break;                                       \
        case 24: NAME##_w24(g, A, p, q, N, cp, nn); break;                                       \
        default: NAME##_w32(g, A, p, q, N, cp, nn); break;                                       \
      }                                                                                          \
    }                                                                                            \
  }

#define TFR_SG_MAC(x, y, acc) ((acc) + (x) * (y))
#define TFR_SG_FMA(x, y, acc) __builtin_fma((x), (y), (acc))
#define TFR_SG_FMAF(x, y, acc) __builtin_fmaf((x), (y), (acc))

#define TFR_SG_ALL(SUFFIX, ATTR, MAC, MACF)                    \
  TFR_SG_REAL(tfr_sg_f32_##SUFFIX, float, ATTR, MACF)          \
  TFR_SG_REAL(tfr_sg_f64_##SUFFIX, double, ATTR, MAC)          \
  TFR_SG_COMPLEX(tfr_sg_c64_##SUFFIX, float, ATTR, MACF)       \
  TFR_SG_COMPLEX(tfr_sg_c128_##SUFFIX, double, ATTR, MAC)

TFR_SG_ALL(base, , TFR_SG_MAC, TFR_SG_MAC)
#ifdef TFR_SG_X86
TFR_SG_ALL(avx2, TFR_SG_AVX2, TFR_SG_FMA, TFR_SG_FMAF)
TFR_SG_ALL(avx512, TFR_SG_AVX512, TFR_SG_FMA, TFR_SG_FMAF)
#endif

#define TFR_SG_PICK(SUFFIX)                       \
  switch (dtype) {                                \
    case TFR_F32: return tfr_sg_f32_##SUFFIX;     \
    case TFR_F64: return tfr_sg_f64_##SUFFIX;     \
    case TFR_C64: return tfr_sg_c64_##SUFFIX;     \
    case TFR_C128: return tfr_sg_c128_##SUFFIX;   \
    default: return NULL;                         \
  }

tfr_small_gemm_fn tfr_small_gemm_kernel(tfr_dtype dtype) {
#ifdef TFR_SG_X86
  switch (tfr_vm_cpu_level()) {
    case TFR_VM_AVX512: TFR_SG_PICK(avx512)
    case TFR_VM_AVX2: TFR_SG_PICK(avx2)
    default: break;
  }
#endif
  TFR_SG_PICK(base)
}
