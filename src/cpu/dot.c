// cpu dot_general. Floats and complex run through OpenBLAS GEMM, one call
// per batch element, or, for small products (a few dozen per side:
// small_gemm.h), through our own kernels, which read every operand through
// its strides; integers through a blocked loop of our own; tiny problems (up
// to TFR_DOT_SMALL_MNK multiply-adds per batch element, e.g. the
// Hadamard-like contractions einsum produces) through a strided loop that
// needs no packing and no BLAS call.
//
// Threads: a single GEMM runs on OpenBLAS's own threads (their count is
// OpenBLAS's setting: OPENBLAS_NUM_THREADS or OMP_NUM_THREADS, not the
// backend's num_threads). A batch of GEMMs small enough that OpenBLAS runs
// each on one thread is spread over the backend's OpenMP threads; this is
// also what keeps a multi-threaded OpenBLAS call out of an OpenMP region
// (the pthreads build warns about and oversubscribes on that).
//
// Layout: an operand whose free and contracting axes each merge into one
// stride, one of them unit, is handed to BLAS in place (a [K, M] row-major
// view of lhs is CblasTrans); any other is packed once into a compact
// [batch, M, K] (lhs) or [batch, K, N] (rhs) copy by the convert kernel.
// Conjugation is a CBLAS flag: OpenBLAS accepts CblasConjNoTrans besides
// CblasConjTrans, so no conjugated copy is ever needed. An output BLAS cannot
// write (the accumulating form takes any strided view) is computed into a
// compact temporary and combined.
#include <cblas.h>
#include <limits.h>
#include <string.h>

#include "core/half.h"
#include "core/validate.h"
#include "cpu/cpu.h"
#include "cpu/small_gemm.h"

#ifdef _OPENMP
#include <omp.h>
#endif

// TFR_DOT_SMALL_MNK (validate.h, 128): per batch element, problems of at most
// this many multiply-adds run in the strided loop; below it a BLAS call
// (about 90 ns) costs more than the work (measured on batches of n x n x n
// f32/f64/c128 products: the loop wins at n = 4, BLAS from n = 6).

// Threads: OpenBLAS always runs single-threaded here (the process-wide
// setting is lowered for the call and restored); the GEMMs of a step are
// spread over the backend's own OpenMP threads instead: batch elements, and
// a GEMM too big for one thread split into blocks of columns (or rows) of
// its result. With OpenBLAS's pthreads next to our OpenMP team the two
// pools spun on the same cores (2 threads on 2 cores: 70% of the time in
// libgomp's spin-wait, str_mps_varying_inner_product_200 17 ms on 1 thread
// and 134 ms on 2); one pool gives one thread budget. A thread gets at
// least this many multiply-adds (about 10 us of work), so small steps run
// on one thread without starting a team. (2^20 kept the skinny GEMMs of
// str_matrix_chain_multiplication_100, M x 21 x K with M, K ~ 400, on 3-4
// threads; they are bound by reading A from memory, and at 2^18 the
// instance took 7.4-8.3 ms instead of 12.2-12.5 on 4 of the GPU machine's
// cores, lm_batch_likelihood_sentence_3_12d 11-12 instead of 19-21.)
#define TFR_DOT_MNK_PER_THREAD ((int64_t)1 << 18)
// A block of a split GEMM keeps at least this many columns (rows).
#define TFR_DOT_SPLIT_MIN 32

// Integer kernel tiles: MB x NB accumulators (32 KiB of u64, in L1/L2) and
// KB x NB rhs blocks (128 KiB, in L2).
#define TFR_DOT_INT_MB 64
#define TFR_DOT_INT_NB 64
#define TFR_DOT_INT_KB 256

static int64_t tfr_dot_mul_sat(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

// ---------------------------------------------------------------------------
// Axis walks
// ---------------------------------------------------------------------------

// A group of axes walked as one row-major index: extents (> 1 only) and the
// strides, in elements, of up to three tensors.
typedef struct tfr_dot_walk {
  int n;
  int64_t total;
  int64_t ext[TFR_MAX_RANK];
  int64_t st[3][TFR_MAX_RANK];
} tfr_dot_walk;

// Adds the axes of a group: axes0/1/2 are the group's axis numbers in
// tensors t0/t1/t2 (t2 may be NULL).
static void tfr_dot_walk_init(tfr_dot_walk *w, int n, const tfr_tensor *t0, const int64_t *axes0,
                              const tfr_tensor *t1, const int64_t *axes1, const tfr_tensor *t2,
                              const int64_t *axes2) {
  w->n = 0;
  w->total = 1;
  for (int i = 0; i < n; i++) {
    int64_t e = t0->shape[axes0[i]];
    w->total *= e;
    if (e == 1) continue;
    w->ext[w->n] = e;
    w->st[0][w->n] = t0->strides[axes0[i]];
    w->st[1][w->n] = t1->strides[axes1[i]];
    w->st[2][w->n] = t2 ? t2->strides[axes2[i]] : 0;
    w->n++;
  }
}

// Consecutive axis numbers first, first + 1, ...
static void tfr_dot_iota(int n, int64_t first, int64_t *axes) {
  for (int i = 0; i < n; i++) axes[i] = first + i;
}

typedef struct tfr_dot_cursor {
  int64_t idx[TFR_MAX_RANK];
  int64_t off[3];
} tfr_dot_cursor;

static void tfr_dot_cursor_init(const tfr_dot_walk *w, tfr_dot_cursor *c, int64_t i) {
  c->off[0] = c->off[1] = c->off[2] = 0;
  for (int a = w->n - 1; a >= 0; a--) {
    int64_t q = i % w->ext[a];
    i /= w->ext[a];
    c->idx[a] = q;
    for (int t = 0; t < 3; t++) c->off[t] += q * w->st[t][a];
  }
}

static void tfr_dot_cursor_next(const tfr_dot_walk *w, tfr_dot_cursor *c) {
  for (int a = w->n - 1; a >= 0; a--) {
    for (int t = 0; t < 3; t++) c->off[t] += w->st[t][a];
    if (++c->idx[a] < w->ext[a]) return;
    for (int t = 0; t < 3; t++) c->off[t] -= w->ext[a] * w->st[t][a];
    c->idx[a] = 0;
  }
}

// Offsets of every index of a group in two tensors: o0[i], o1[i].
static void tfr_dot_walk_table(const tfr_dot_walk *w, int64_t *o0, int64_t *o1) {
  tfr_dot_cursor c;
  tfr_dot_cursor_init(w, &c, 0);
  for (int64_t i = 0; i < w->total; i++) {
    o0[i] = c.off[0];
    o1[i] = c.off[1];
    tfr_dot_cursor_next(w, &c);
  }
}

// Batch axes of d: strides of lhs, rhs, out.
static void tfr_dot_batch_walk(const tfr_dot_desc *d, tfr_dot_walk *w) {
  int64_t oax[TFR_MAX_RANK];
  tfr_dot_iota(d->nbatch, 0, oax);
  tfr_dot_walk_init(w, d->nbatch, d->lhs, d->lhs_batch, d->rhs, d->rhs_batch, d->out, oax);
}

static int tfr_dot_threads(const tfr_cpu_backend *cpu, int64_t work) {
  return tfr_cpu_threads_for(cpu->num_threads, work);
}

// Runs fn(ctx, begin, end) over [0, items) in nt equal chunks, one per
// thread (nt <= 1: on the calling thread, without a team).
typedef void (*tfr_dot_range_fn)(const void *ctx, int64_t begin, int64_t end);

static void tfr_dot_split(int nt, int64_t items, tfr_dot_range_fn fn, const void *ctx) {
  if (nt > items) nt = (int)items;
  if (nt <= 1) {
    if (items > 0) fn(ctx, 0, items);
    return;
  }
#ifdef _OPENMP
#pragma omp parallel num_threads(nt)
  {
    int t = omp_get_thread_num(), n = omp_get_num_threads();
    int64_t chunk = (items + n - 1) / n, begin = (int64_t)t * chunk;
    int64_t end = begin + chunk < items ? begin + chunk : items;
    if (begin < end) fn(ctx, begin, end);
  }
#else
  fn(ctx, 0, items);
#endif
}

// ---------------------------------------------------------------------------
// out = beta * out (K = 0, alpha = 0) and out = tmp + beta * out (temporaries)
// ---------------------------------------------------------------------------

typedef struct tfr_dot_combine_ctx {
  unsigned char beta[16];
  bool beta_zero;
  bool has_src;  // operand 1 is the temporary; else it counts as zero
} tfr_dot_combine_ctx;

#define TFR_DOT_COMBINE_REAL(NAME, T, U)                                                           \
  static void NAME(int64_t n, char *const *p, const int64_t *s, const void *vctx) {                \
    const tfr_dot_combine_ctx *c = vctx;                                                           \
    T beta;                                                                                        \
    memcpy(&beta, c->beta, sizeof beta);                                                           \
    char *o = p[0];                                                                                \
    const char *t = c->has_src ? p[1] : NULL;                                                      \
    for (int64_t i = 0; i < n; i++, o += s[0]) {                                                   \
      T v = 0, cur;                                                                                \
      if (t) {                                                                                     \
        memcpy(&v, t, sizeof v);                                                                   \
        t += s[1];                                                                                 \
      }                                                                                            \
      if (!c->beta_zero) {                                                                         \
        memcpy(&cur, o, sizeof cur);                                                               \
        v = (T)((U)v + (U)beta * (U)cur);                                                          \
      }                                                                                            \
      memcpy(o, &v, sizeof v);                                                                     \
    }                                                                                              \
  }

#define TFR_DOT_COMBINE_COMPLEX(NAME, R)                                                           \
  static void NAME(int64_t n, char *const *p, const int64_t *s, const void *vctx) {                \
    const tfr_dot_combine_ctx *c = vctx;                                                           \
    R beta[2];                                                                                     \
    memcpy(beta, c->beta, sizeof beta);                                                            \
    char *o = p[0];                                                                                \
    const char *t = c->has_src ? p[1] : NULL;                                                      \
    for (int64_t i = 0; i < n; i++, o += s[0]) {                                                   \
      R v[2] = {0, 0}, cur[2];                                                                     \
      if (t) {                                                                                     \
        memcpy(v, t, sizeof v);                                                                    \
        t += s[1];                                                                                 \
      }                                                                                            \
      if (!c->beta_zero) {                                                                         \
        memcpy(cur, o, sizeof cur);                                                                \
        v[0] += beta[0] * cur[0] - beta[1] * cur[1];                                               \
        v[1] += beta[0] * cur[1] + beta[1] * cur[0];                                               \
      }                                                                                            \
      memcpy(o, v, sizeof v);                                                                      \
    }                                                                                              \
  }

// Integers: T and the unsigned type of at least 32 bits the arithmetic runs
// in (wrapping; 8/16-bit values would otherwise multiply as int).
#define TFR_DOT_INT_TYPES(X, P)                                                        \
  X(P##_i8, int8_t, uint32_t) X(P##_i16, int16_t, uint32_t) X(P##_i32, int32_t, uint32_t) \
  X(P##_i64, int64_t, uint64_t) X(P##_u8, uint8_t, uint32_t) X(P##_u16, uint16_t, uint32_t) \
  X(P##_u32, uint32_t, uint32_t) X(P##_u64, uint64_t, uint64_t)
#define TFR_DOT_INT_CASES(P)                                                           \
  case TFR_I8: return P##_i8;                                                          \
  case TFR_I16: return P##_i16;                                                        \
  case TFR_I32: return P##_i32;                                                        \
  case TFR_I64: return P##_i64;                                                        \
  case TFR_U8: return P##_u8;                                                          \
  case TFR_U16: return P##_u16;                                                        \
  case TFR_U32: return P##_u32;                                                        \
  case TFR_U64: return P##_u64;

TFR_DOT_INT_TYPES(TFR_DOT_COMBINE_REAL, tfr_dot_combine)
TFR_DOT_COMBINE_REAL(tfr_dot_combine_f32, float, float)
TFR_DOT_COMBINE_REAL(tfr_dot_combine_f64, double, double)
TFR_DOT_COMBINE_COMPLEX(tfr_dot_combine_c64, float)
TFR_DOT_COMBINE_COMPLEX(tfr_dot_combine_c128, double)

static tfr_cpu_inner_fn tfr_dot_combine_fn(tfr_dtype dt) {
  switch (dt) {
    TFR_DOT_INT_CASES(tfr_dot_combine)
    case TFR_F32: return tfr_dot_combine_f32;
    case TFR_F64: return tfr_dot_combine_f64;
    case TFR_C64: return tfr_dot_combine_c64;
    case TFR_C128: return tfr_dot_combine_c128;
    default: return NULL;
  }
}

// out = tmp + beta * out, or out = beta * out when tmp is NULL; beta zero
// never reads out.
static void tfr_dot_combine(tfr_cpu_backend *cpu, const tfr_dot_desc *d, tfr_tensor *out,
                            const tfr_tensor *tmp) {
  if (!d->accumulate && !tmp) {  // the plain form's out is compact: just zeros
    memset(tfr_tensor_host_ptr(out), 0, (size_t)out->numel * tfr_dtype_size(out->dtype));
    return;
  }
  tfr_dot_combine_ctx c;
  memcpy(c.beta, d->beta, sizeof c.beta);
  c.beta_zero = d->beta_zero;
  c.has_src = tmp != NULL;
  const tfr_tensor *ops[2] = {out, tmp};
  tfr_cpu_iter it;
  tfr_cpu_iter_init(&it, tmp ? 2 : 1, ops);
  tfr_cpu_iter_run(&it, tfr_dot_combine_fn(d->dtype), &c, cpu->num_threads);
}

// ---------------------------------------------------------------------------
// The strided loop (tiny problems, and the fallback for extents beyond BLAS's
// `int`): any strides, no packing. Work items are (batch, row) pairs.
// ---------------------------------------------------------------------------

typedef struct tfr_dot_naive {
  const tfr_dot_desc *d;
  const char *L, *R;
  char *O;
  tfr_dot_walk batch;
  int64_t M, N, K;
  const int64_t *lm, *om, *rn, *on, *lk, *rk;  // offset tables, elements
  // When both operands' contracting axes merge: their single strides (the
  // inner loop then needs no table).
  bool kmerged;
  int64_t lks, rks;
} tfr_dot_naive;

#define TFR_DOT_NAIVE_REAL(NAME, T, U)                                                             \
  static void NAME(const void *vc, int64_t begin, int64_t end) {                                   \
    const tfr_dot_naive *c = vc;                                                                   \
    const T *L = (const T *)c->L, *R = (const T *)c->R;                                            \
    T *O = (T *)c->O;                                                                              \
    T ta, tb;                                                                                      \
    memcpy(&ta, c->d->alpha, sizeof ta);                                                           \
    memcpy(&tb, c->d->beta, sizeof tb);                                                            \
    U alpha = (U)ta, beta = (U)tb;                                                                 \
    bool acc_form = c->d->accumulate, bz = c->d->beta_zero;                                        \
    tfr_dot_cursor cur;                                                                            \
    tfr_dot_cursor_init(&c->batch, &cur, begin / c->M);                                            \
    int64_t m = begin % c->M;                                                                      \
    for (int64_t it = begin; it < end; it++) {                                                     \
      const T *l = L + cur.off[0] + c->lm[m];                                                      \
      const T *r = R + cur.off[1];                                                                 \
      T *o = O + cur.off[2] + c->om[m];                                                            \
      for (int64_t n = 0; n < c->N; n++) {                                                         \
        const T *rr = r + c->rn[n];                                                                \
        U acc = 0;                                                                                 \
        if (c->kmerged)                                                                            \
          for (int64_t k = 0; k < c->K; k++) acc += (U)l[k * c->lks] * (U)rr[k * c->rks];          \
        else                                                                                       \
          for (int64_t k = 0; k < c->K; k++) acc += (U)l[c->lk[k]] * (U)rr[c->rk[k]];              \
        T *p = o + c->on[n];                                                                       \
        if (!acc_form)                                                                             \
          *p = (T)acc;                                                                             \
        else if (bz)                                                                               \
          *p = (T)(alpha * acc);                                                                   \
        else                                                                                       \
          *p = (T)(alpha * acc + beta * (U)*p);                                                    \
      }                                                                                            \
      if (++m == c->M) {                                                                           \
        m = 0;                                                                                     \
        tfr_dot_cursor_next(&c->batch, &cur);                                                      \
      }                                                                                            \
    }                                                                                              \
  }

// Complex: offsets count complex elements; RT is the component type.
#define TFR_DOT_NAIVE_COMPLEX(NAME, RT)                                                            \
  static void NAME(const void *vc, int64_t begin, int64_t end) {                                   \
    const tfr_dot_naive *c = vc;                                                                   \
    const RT *L = (const RT *)c->L, *Rp = (const RT *)c->R;                                        \
    RT *O = (RT *)c->O;                                                                            \
    RT alpha[2], beta[2];                                                                          \
    memcpy(alpha, c->d->alpha, sizeof alpha);                                                      \
    memcpy(beta, c->d->beta, sizeof beta);                                                         \
    RT sl = c->d->lhs_conj ? -1 : 1, sr = c->d->rhs_conj ? -1 : 1;                                 \
    bool acc_form = c->d->accumulate, bz = c->d->beta_zero;                                        \
    tfr_dot_cursor cur;                                                                            \
    tfr_dot_cursor_init(&c->batch, &cur, begin / c->M);                                            \
    int64_t m = begin % c->M;                                                                      \
    for (int64_t it = begin; it < end; it++) {                                                     \
      const RT *l = L + 2 * (cur.off[0] + c->lm[m]);                                               \
      const RT *r = Rp + 2 * cur.off[1];                                                           \
      RT *o = O + 2 * (cur.off[2] + c->om[m]);                                                     \
      for (int64_t n = 0; n < c->N; n++) {                                                         \
        const RT *rr = r + 2 * c->rn[n];                                                           \
        RT are = 0, aim = 0;                                                                       \
        for (int64_t k = 0; k < c->K; k++) {                                                       \
          const RT *x = l + 2 * (c->kmerged ? k * c->lks : c->lk[k]);                              \
          const RT *y = rr + 2 * (c->kmerged ? k * c->rks : c->rk[k]);                             \
          RT xr = x[0], xi = sl * x[1], yr = y[0], yi = sr * y[1];                                 \
          are += xr * yr - xi * yi;                                                                \
          aim += xr * yi + xi * yr;                                                                \
        }                                                                                          \
        RT *p = o + 2 * c->on[n];                                                                  \
        if (acc_form) {                                                                            \
          RT vr = alpha[0] * are - alpha[1] * aim, vi = alpha[0] * aim + alpha[1] * are;           \
          if (!bz) {                                                                               \
            vr += beta[0] * p[0] - beta[1] * p[1];                                                 \
            vi += beta[0] * p[1] + beta[1] * p[0];                                                 \
          }                                                                                        \
          are = vr;                                                                                \
          aim = vi;                                                                                \
        }                                                                                          \
        p[0] = are;                                                                                \
        p[1] = aim;                                                                                \
      }                                                                                            \
      if (++m == c->M) {                                                                           \
        m = 0;                                                                                     \
        tfr_dot_cursor_next(&c->batch, &cur);                                                      \
      }                                                                                            \
    }                                                                                              \
  }

TFR_DOT_INT_TYPES(TFR_DOT_NAIVE_REAL, tfr_dot_naive)
TFR_DOT_NAIVE_REAL(tfr_dot_naive_f32, float, float)
TFR_DOT_NAIVE_REAL(tfr_dot_naive_f64, double, double)
TFR_DOT_NAIVE_COMPLEX(tfr_dot_naive_c64, float)
TFR_DOT_NAIVE_COMPLEX(tfr_dot_naive_c128, double)

static tfr_dot_range_fn tfr_dot_naive_kernel(tfr_dtype dt) {
  switch (dt) {
    TFR_DOT_INT_CASES(tfr_dot_naive)
    case TFR_F32: return tfr_dot_naive_f32;
    case TFR_F64: return tfr_dot_naive_f64;
    case TFR_C64: return tfr_dot_naive_c64;
    case TFR_C128: return tfr_dot_naive_c128;
    default: return NULL;
  }
}

static tfr_status tfr_dot_run_naive(tfr_cpu_backend *cpu, const tfr_dot_desc *d) {
  // Field by field: a zeroing initialiser cleared the 2 KB batch walk, which
  // tfr_dot_batch_walk writes up to its axis count (a tenth of a tiny
  // contraction's instructions, with the descriptor's own clearing).
  tfr_dot_naive c;
  c.d = d;
  c.lks = c.rks = 0;
  c.L = tfr_tensor_host_ptr(d->lhs);
  c.R = tfr_tensor_host_ptr(d->rhs);
  c.O = tfr_tensor_host_ptr(d->out);
  tfr_dot_batch_walk(d, &c.batch);
  int64_t om_ax[TFR_MAX_RANK], on_ax[TFR_MAX_RANK];
  tfr_dot_iota(d->nlhs_free, d->nbatch, om_ax);
  tfr_dot_iota(d->nrhs_free, d->nbatch + d->nlhs_free, on_ax);
  tfr_dot_walk wm, wn, wk;
  tfr_dot_walk_init(&wm, d->nlhs_free, d->lhs, d->lhs_free, d->out, om_ax, NULL, NULL);
  tfr_dot_walk_init(&wn, d->nrhs_free, d->rhs, d->rhs_free, d->out, on_ax, NULL, NULL);
  tfr_dot_walk_init(&wk, d->ncontract, d->lhs, d->lhs_contract, d->rhs, d->rhs_contract, NULL,
                    NULL);
  c.M = wm.total;
  c.N = wn.total;
  c.K = wk.total;
  size_t count = 2 * (size_t)(c.M + c.N + c.K);
  int64_t *tab = tfr_alloc(count * sizeof(int64_t));
  if (!tab) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "cpu dot_general: out of host memory");
  int64_t *lm = tab, *om = lm + c.M, *rn = om + c.M, *on = rn + c.N, *lk = on + c.N, *rk = lk + c.K;
  tfr_dot_walk_table(&wm, lm, om);
  tfr_dot_walk_table(&wn, rn, on);
  tfr_dot_walk_table(&wk, lk, rk);
  int64_t ke;
  c.kmerged = tfr_dot_merge_axes(d->ncontract, d->lhs_contract, d->lhs->shape, d->lhs->strides, &ke,
                                 &c.lks) &&
              tfr_dot_merge_axes(d->ncontract, d->rhs_contract, d->rhs->shape, d->rhs->strides, &ke,
                                 &c.rks);
  c.lm = lm;
  c.om = om;
  c.rn = rn;
  c.on = on;
  c.lk = lk;
  c.rk = rk;
  int64_t items = c.batch.total * c.M;
  int nt = tfr_dot_threads(cpu, tfr_dot_mul_sat(items, tfr_dot_mul_sat(c.N, c.K + 1)));
  tfr_dot_split(nt, items, tfr_dot_naive_kernel(d->dtype), &c);
  tfr_free(tab);
  return TFR_OK;
}

// ---------------------------------------------------------------------------
// Integers: a blocked loop. lhs elements are read one by one (any strides),
// rhs rows [K, N] and out rows [M, N] are contiguous along N. Unsigned
// arithmetic gives the two's complement wrap without undefined behaviour.
// ---------------------------------------------------------------------------

typedef struct tfr_dot_intk {
  const tfr_dot_desc *d;
  const char *L, *R;
  char *O;
  tfr_dot_walk batch;
  int64_t M, N, K;
  int64_t lsm, lsk, rsk, osm;  // strides in elements
} tfr_dot_intk;

#define TFR_DOT_INT_TILE(NAME, T, U)                                                               \
  static void NAME(const tfr_dot_intk *c, int64_t b, int64_t i0, int64_t j0) {                     \
    U acc[TFR_DOT_INT_MB][TFR_DOT_INT_NB];                                                         \
    tfr_dot_cursor cur;                                                                            \
    tfr_dot_cursor_init(&c->batch, &cur, b);                                                       \
    const T *A = (const T *)c->L + cur.off[0];                                                     \
    const T *B = (const T *)c->R + cur.off[1];                                                     \
    T *C = (T *)c->O + cur.off[2];                                                                 \
    int64_t mi = c->M - i0 < TFR_DOT_INT_MB ? c->M - i0 : TFR_DOT_INT_MB;                          \
    int64_t nj = c->N - j0 < TFR_DOT_INT_NB ? c->N - j0 : TFR_DOT_INT_NB;                          \
    for (int64_t i = 0; i < mi; i++)                                                               \
      for (int64_t j = 0; j < nj; j++) acc[i][j] = 0;                                              \
    for (int64_t k0 = 0; k0 < c->K; k0 += TFR_DOT_INT_KB) {                                        \
      int64_t k1 = c->K - k0 < TFR_DOT_INT_KB ? c->K : k0 + TFR_DOT_INT_KB;                        \
      for (int64_t i = 0; i < mi; i++) {                                                           \
        const T *a = A + (i0 + i) * c->lsm;                                                        \
        U *restrict row = acc[i];                                                                  \
        for (int64_t k = k0; k < k1; k++) {                                                        \
          U av = (U)a[k * c->lsk];                                                                 \
          const T *restrict br = B + k * c->rsk + j0;                                              \
          for (int64_t j = 0; j < nj; j++) row[j] += av * (U)br[j];                                \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
    T ta, tb;                                                                                      \
    memcpy(&ta, c->d->alpha, sizeof ta);                                                           \
    memcpy(&tb, c->d->beta, sizeof tb);                                                            \
    U alpha = (U)ta, beta = (U)tb;                                                                 \
    for (int64_t i = 0; i < mi; i++) {                                                             \
      T *o = C + (i0 + i) * c->osm + j0;                                                           \
      if (!c->d->accumulate)                                                                       \
        for (int64_t j = 0; j < nj; j++) o[j] = (T)acc[i][j];                                      \
      else if (c->d->beta_zero)                                                                    \
        for (int64_t j = 0; j < nj; j++) o[j] = (T)(alpha * acc[i][j]);                            \
      else                                                                                         \
        for (int64_t j = 0; j < nj; j++) o[j] = (T)(alpha * acc[i][j] + beta * (U)o[j]);           \
    }                                                                                              \
  }

TFR_DOT_INT_TYPES(TFR_DOT_INT_TILE, tfr_dot_int_tile)

typedef void (*tfr_dot_int_tile_fn)(const tfr_dot_intk *, int64_t, int64_t, int64_t);

static tfr_dot_int_tile_fn tfr_dot_int_tile_kernel(tfr_dtype dt) {
  switch (dt) {
    TFR_DOT_INT_CASES(tfr_dot_int_tile)
    default: return NULL;
  }
}

static void tfr_dot_run_int(tfr_cpu_backend *cpu, const tfr_dot_desc *d, int64_t M, int64_t N,
                            int64_t K, int64_t lsm, int64_t lsk, int64_t rsk, int64_t osm) {
  tfr_dot_intk c = {.d = d, .M = M, .N = N, .K = K, .lsm = lsm, .lsk = lsk, .rsk = rsk, .osm = osm};
  c.L = tfr_tensor_host_ptr(d->lhs);
  c.R = tfr_tensor_host_ptr(d->rhs);
  c.O = tfr_tensor_host_ptr(d->out);
  tfr_dot_batch_walk(d, &c.batch);
  int64_t ti = (M + TFR_DOT_INT_MB - 1) / TFR_DOT_INT_MB;
  int64_t tj = (N + TFR_DOT_INT_NB - 1) / TFR_DOT_INT_NB;
  int64_t tiles = c.batch.total * ti * tj;
  tfr_dot_int_tile_fn tile = tfr_dot_int_tile_kernel(d->dtype);
  int nt = tfr_dot_threads(cpu, tfr_dot_mul_sat(c.batch.total, tfr_dot_mul_sat(M, N * K)));
  if (nt > tiles) nt = (int)tiles;
  (void)nt;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
#endif
  for (int64_t t = 0; t < tiles; t++) {
    int64_t j = t % tj, rest = t / tj;
    tile(&c, rest / ti, (rest % ti) * TFR_DOT_INT_MB, j * TFR_DOT_INT_NB);
  }
}

// ---------------------------------------------------------------------------
// BLAS
// ---------------------------------------------------------------------------

// One operand matrix as BLAS sees it.
typedef struct tfr_dot_mat {
  const char *base;  // element (0,..,0) of the tensor
  bool trans;
  bool conj;
  int ld;
} tfr_dot_mat;

static CBLAS_TRANSPOSE tfr_dot_op(const tfr_dot_mat *m) {
  if (m->trans) return m->conj ? CblasConjTrans : CblasTrans;
  return m->conj ? CblasConjNoTrans : CblasNoTrans;
}

static void tfr_dot_gemm(tfr_dtype dt, const tfr_dot_mat *a, const tfr_dot_mat *b, int M, int N,
                         int K, const unsigned char *alpha, const unsigned char *beta, int64_t aoff,
                         int64_t boff, char *c, int ldc) {
  CBLAS_TRANSPOSE ta = tfr_dot_op(a), tb = tfr_dot_op(b);
  size_t es = tfr_dtype_size(dt);
  const void *A = a->base + aoff * (int64_t)es, *B = b->base + boff * (int64_t)es;
  // Matrix-vector products (N = 1 or M = 1) through ?gemv: OpenBLAS's gemm
  // with one column runs several times slower than its gemv (bench/ gemv case).
  if ((dt == TFR_F32 || dt == TFR_F64) && (N == 1 || M == 1) && K > 0) {
    CBLAS_TRANSPOSE t;
    int rows, cols, lda, incx, incy;
    const void *mat, *vec;
    if (N == 1) {  // c[m] = sum_k op(A)[m, k] * op(B)[k, 0]
      t = a->trans ? CblasTrans : CblasNoTrans;
      rows = a->trans ? K : M;
      cols = a->trans ? M : K;
      mat = A;
      lda = a->ld;
      vec = B;
      incx = b->trans ? 1 : b->ld;
      incy = ldc;
    } else {  // c[0, n] = sum_k op(A)[0, k] * op(B)[k, n]: gemv on B's transpose
      t = b->trans ? CblasNoTrans : CblasTrans;
      rows = b->trans ? N : K;
      cols = b->trans ? K : N;
      mat = B;
      lda = b->ld;
      vec = A;
      incx = a->trans ? a->ld : 1;
      incy = 1;
    }
    if (dt == TFR_F32) {
      float al, be;
      memcpy(&al, alpha, sizeof al);
      memcpy(&be, beta, sizeof be);
      cblas_sgemv(CblasRowMajor, t, rows, cols, al, mat, lda, vec, incx, be, (float *)c, incy);
    } else {
      double al, be;
      memcpy(&al, alpha, sizeof al);
      memcpy(&be, beta, sizeof be);
      cblas_dgemv(CblasRowMajor, t, rows, cols, al, mat, lda, vec, incx, be, (double *)c, incy);
    }
    return;
  }
  switch (dt) {
    case TFR_F32: {
      float al, be;
      memcpy(&al, alpha, sizeof al);
      memcpy(&be, beta, sizeof be);
      cblas_sgemm(CblasRowMajor, ta, tb, M, N, K, al, A, a->ld, B, b->ld, be, (float *)c, ldc);
      break;
    }
    case TFR_F64: {
      double al, be;
      memcpy(&al, alpha, sizeof al);
      memcpy(&be, beta, sizeof be);
      cblas_dgemm(CblasRowMajor, ta, tb, M, N, K, al, A, a->ld, B, b->ld, be, (double *)c, ldc);
      break;
    }
    case TFR_C64:
      cblas_cgemm(CblasRowMajor, ta, tb, M, N, K, alpha, A, a->ld, B, b->ld, beta, c, ldc);
      break;
    case TFR_C128:
      cblas_zgemm(CblasRowMajor, ta, tb, M, N, K, alpha, A, a->ld, B, b->ld, beta, c, ldc);
      break;
    default: break;
  }
}

// Runs d (operands and out BLAS-compatible, checked by the caller) through
// one GEMM per batch element.
static void tfr_dot_run_blas(tfr_cpu_backend *cpu, const tfr_dot_desc *d) {
  int64_t oax_m[TFR_MAX_RANK], oax_n[TFR_MAX_RANK];
  tfr_dot_iota(d->nlhs_free, d->nbatch, oax_m);
  tfr_dot_iota(d->nrhs_free, d->nbatch + d->nlhs_free, oax_n);
  const tfr_tensor *l = d->lhs, *r = d->rhs, *o = d->out;
  int64_t M, K, N, lsm, lsk, rsk, rsn, osm, osn, ld;
  // The caller made sure each group merges.
  tfr_dot_merge_axes(d->nlhs_free, d->lhs_free, l->shape, l->strides, &M, &lsm);
  tfr_dot_merge_axes(d->ncontract, d->lhs_contract, l->shape, l->strides, &K, &lsk);
  tfr_dot_merge_axes(d->ncontract, d->rhs_contract, r->shape, r->strides, &K, &rsk);
  tfr_dot_merge_axes(d->nrhs_free, d->rhs_free, r->shape, r->strides, &N, &rsn);
  tfr_dot_merge_axes(d->nlhs_free, oax_m, o->shape, o->strides, &M, &osm);
  tfr_dot_merge_axes(d->nrhs_free, oax_n, o->shape, o->strides, &N, &osn);
  bool tc, t;
  tfr_dot_blas_matrix(M, N, osm, osn, &tc, &ld);
  int ldc = (int)ld;
  tfr_dot_mat a = {.base = tfr_tensor_host_ptr(l), .conj = d->lhs_conj};
  tfr_dot_mat b = {.base = tfr_tensor_host_ptr(r), .conj = d->rhs_conj};
  int side_a = 0;  // which tensor's batch offset feeds `a`: 0 lhs, 1 rhs
  int m = (int)M, n = (int)N;
  if (!tc) {
    tfr_dot_blas_matrix(M, K, lsm, lsk, &t, &ld);
    a.trans = t;
    a.ld = (int)ld;
    tfr_dot_blas_matrix(K, N, rsk, rsn, &t, &ld);
    b.trans = t;
    b.ld = (int)ld;
  } else {
    // out is column-major: compute out^T = rhs^T lhs^T, row-major.
    tfr_dot_mat tmp = a;
    a = b;
    b = tmp;
    side_a = 1;
    tfr_dot_blas_matrix(N, K, rsn, rsk, &t, &ld);
    a.trans = t;
    a.ld = (int)ld;
    tfr_dot_blas_matrix(K, M, lsk, lsm, &t, &ld);
    b.trans = t;
    b.ld = (int)ld;
    m = (int)N;
    n = (int)M;
  }
  tfr_dot_walk bw;
  tfr_dot_batch_walk(d, &bw);
  char *obase = tfr_tensor_host_ptr(o);
  int64_t es = (int64_t)tfr_dtype_size(d->dtype);
  int64_t mnk = tfr_dot_mul_sat(M, tfr_dot_mul_sat(N, K));
  int64_t total_mnk = tfr_dot_mul_sat(bw.total, mnk);
  int nt = tfr_cpu_threads_per(cpu->num_threads, total_mnk, TFR_DOT_MNK_PER_THREAD);
  // Blocks per GEMM: enough for every thread to have work when the batch
  // is smaller than the team; along the longer of the result's two sides.
  bool split_n = n >= m;
  int side = split_n ? n : m, parts = 1;
  if (nt > bw.total) {
    int64_t p = (nt + bw.total - 1) / bw.total;
    int64_t most = side / TFR_DOT_SPLIT_MIN;
    parts = (int)(p < most ? p : most > 1 ? most : 1);
  }
  int64_t units = bw.total * parts;
  if (nt > units) nt = (int)units;
  int blas_threads = openblas_get_num_threads();
  if (blas_threads != 1) openblas_set_num_threads(1);
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
#endif
  for (int64_t u = 0; u < units; u++) {
    tfr_dot_cursor cur;
    tfr_dot_cursor_init(&bw, &cur, u / parts);
    int p = (int)(u % parts);
    // Block p of `side`: [lo, hi), multiples of 8 except the last end.
    int lo = (int)((int64_t)side * p / parts) & ~7, hi = p + 1 == parts ? side
                                                          : (int)((int64_t)side * (p + 1) / parts) & ~7;
    int64_t aoff = cur.off[side_a], boff = cur.off[1 - side_a], coff = cur.off[2];
    if (split_n) {  // columns [lo, hi) of op(B) and of C
      boff += b.trans ? (int64_t)lo * b.ld : lo;
      coff += lo;
      tfr_dot_gemm(d->dtype, &a, &b, m, hi - lo, (int)K, d->alpha, d->beta, aoff, boff,
                   obase + coff * es, ldc);
    } else {  // rows [lo, hi) of op(A) and of C
      aoff += a.trans ? lo : (int64_t)lo * a.ld;
      coff += (int64_t)lo * ldc;
      tfr_dot_gemm(d->dtype, &a, &b, hi - lo, n, (int)K, d->alpha, d->beta, aoff, boff,
                   obase + coff * es, ldc);
    }
  }
  if (blas_threads != 1) openblas_set_num_threads(blas_threads);
}

// ---------------------------------------------------------------------------
// Small products (small_gemm.h): our kernels, one batch element per call,
// every operand read and written through its strides (no packing, no
// temporary) as long as each of its axis groups merges into one stride.
// ---------------------------------------------------------------------------

// A small product's run: the problem, its kernel, the batch walk and, for a
// looped product (tfr_dot_loop_contracting), the walk of the looped
// contracting axes: the first outer index in g's form, each further one
// added with `more` (alpha times its sum plus 1 times out).
typedef struct tfr_dot_small {
  tfr_small_gemm g, more;
  tfr_small_gemm_fn fn;
  tfr_dot_walk bw, kw;
  const char *L, *R;
  char *O;
  int64_t es;
} tfr_dot_small;

// Batch elements [begin, end) of a small product.
static void tfr_dot_small_range(const void *vc, int64_t begin, int64_t end) {
  const tfr_dot_small *c = vc;
  tfr_dot_cursor cur, kc;
  tfr_dot_cursor_init(&c->bw, &cur, begin);
  for (int64_t i = begin; i < end; i++) {
    const char *l = c->L + cur.off[0] * c->es, *r = c->R + cur.off[1] * c->es;
    char *o = c->O + cur.off[2] * c->es;
    c->fn(&c->g, l, r, o);
    if (c->kw.total > 1) {
      tfr_dot_cursor_init(&c->kw, &kc, 1);
      for (int64_t k = 1; k < c->kw.total; k++) {
        c->fn(&c->more, l + kc.off[0] * c->es, r + kc.off[1] * c->es, o);
        tfr_dot_cursor_next(&c->kw, &kc);
      }
    }
    tfr_dot_cursor_next(&c->bw, &cur);
  }
}

// Runs d through the small kernels when every group merges, the first
// `outer` contracting pairs excepted, which are walked (false: nothing
// done, the caller packs).
static bool tfr_dot_run_small(tfr_cpu_backend *cpu, const tfr_dot_desc *d, int outer) {
  int64_t oax_m[TFR_MAX_RANK], oax_n[TFR_MAX_RANK];
  tfr_dot_iota(d->nlhs_free, d->nbatch, oax_m);
  tfr_dot_iota(d->nrhs_free, d->nbatch + d->nlhs_free, oax_n);
  const tfr_tensor *l = d->lhs, *r = d->rhs, *o = d->out;
  tfr_dot_small c = {.g = {.a_conj = d->lhs_conj, .b_conj = d->rhs_conj}};
  tfr_small_gemm *g = &c.g;
  int nk = d->ncontract - outer;
  if (!tfr_dot_merge_axes(d->nlhs_free, d->lhs_free, l->shape, l->strides, &g->M, &g->lsm) ||
      !tfr_dot_merge_axes(nk, d->lhs_contract + outer, l->shape, l->strides, &g->K, &g->lsk) ||
      !tfr_dot_merge_axes(nk, d->rhs_contract + outer, r->shape, r->strides, &g->K, &g->rsk) ||
      !tfr_dot_merge_axes(d->nrhs_free, d->rhs_free, r->shape, r->strides, &g->N, &g->rsn) ||
      !tfr_dot_merge_axes(d->nlhs_free, oax_m, o->shape, o->strides, &g->M, &g->osm) ||
      !tfr_dot_merge_axes(d->nrhs_free, oax_n, o->shape, o->strides, &g->N, &g->osn))
    return false;
  g->form = !d->accumulate ? TFR_SMALL_GEMM_PLAIN
            : d->beta_zero ? TFR_SMALL_GEMM_ALPHA
                           : TFR_SMALL_GEMM_ALPHA_BETA;
  memcpy(g->alpha, d->alpha, sizeof g->alpha);
  memcpy(g->beta, d->beta, sizeof g->beta);
  c.more = *g;
  c.more.form = TFR_SMALL_GEMM_ALPHA_BETA;
  tfr_scalar_set(d->dtype, 1.0, 1, c.more.beta);
  tfr_dot_walk_init(&c.kw, outer, l, d->lhs_contract, r, d->rhs_contract, NULL, NULL);
  c.fn = tfr_small_gemm_kernel(d->dtype);
  tfr_dot_batch_walk(d, &c.bw);
  c.L = tfr_tensor_host_ptr(l);
  c.R = tfr_tensor_host_ptr(r);
  c.O = tfr_tensor_host_ptr(o);
  c.es = (int64_t)tfr_dtype_size(d->dtype);
  // One thread per 32768 multiply-adds up to TFR_CPU_NARROW_TEAM, wider
  // teams only for more (one per 32768 woke 15 threads for 0.2 ms of work,
  // which on the GPU machine's 16 threads took up to 7 ms).
  int64_t per = tfr_dot_mul_sat(c.kw.total, g->M * g->N * g->K);
  int nt = tfr_dot_threads(cpu, tfr_dot_mul_sat(c.bw.total, per));
  tfr_dot_split(nt, c.bw.total, tfr_dot_small_range, &c);
  return true;
}

// Whether out can be written in place: by BLAS (row- or column-major rows
// of unit stride) or by the integer kernel (rows contiguous along N).
static bool tfr_dot_out_direct(const tfr_dot_desc *d, bool blas) {
  int64_t oax_m[TFR_MAX_RANK], oax_n[TFR_MAX_RANK];
  tfr_dot_iota(d->nlhs_free, d->nbatch, oax_m);
  tfr_dot_iota(d->nrhs_free, d->nbatch + d->nlhs_free, oax_n);
  const tfr_tensor *o = d->out;
  int64_t M, N, rs, cs, ld;
  bool t;
  if (!tfr_dot_merge_axes(d->nlhs_free, oax_m, o->shape, o->strides, &M, &rs) ||
      !tfr_dot_merge_axes(d->nrhs_free, oax_n, o->shape, o->strides, &N, &cs))
    return false;
  if (blas) return tfr_dot_blas_matrix(M, N, rs, cs, &t, &ld);
  return N <= 1 || cs == 1;
}

// ---------------------------------------------------------------------------
// Entry
// ---------------------------------------------------------------------------

// Packs what the kernels cannot read in place, computes into a temporary
// when they cannot write out, runs `blas` or the integer kernel.
static tfr_status tfr_dot_run_general(tfr_cpu_backend *cpu, const tfr_dot_desc *d, bool blas,
                                      int64_t M, int64_t N, int64_t K) {
  tfr_backend *b = &cpu->base;
  tfr_dot_desc w = *d;
  tfr_tensor *packed[2] = {NULL, NULL}, *tmp = NULL;
  tfr_status st = TFR_OK;
  for (int side = 0; side < 2 && !st; side++) {
    const tfr_tensor *t = side == TFR_DOT_SIDE_LHS ? w.lhs : w.rhs;
    if (tfr_dot_operand_direct(&w, side, t->shape, t->strides)) continue;
    st = tfr_dot_pack(b, &w, side, &packed[side]);
    if (!st) tfr_dot_use_packed(&w, side, packed[side]);
  }
  if (!st && !tfr_dot_out_direct(&w, blas)) {
    st = tfr_tensor_alloc(b, w.dtype, d->out->rank, d->out->shape, false, &tmp);
    if (!st) {
      w.out = tmp;
      w.accumulate = true;  // tmp = alpha * dot
      w.beta_zero = true;
      memset(w.beta, 0, sizeof w.beta);
    }
  }
  if (!st) {
    if (blas && tfr_dot_small_gemm(d->dtype, M, N, K) && tfr_dot_run_small(cpu, &w, 0)) {
      // done (the packed operands and a temporary out merge)
    } else if (blas) {
      tfr_dot_run_blas(cpu, &w);
    } else {
      int64_t lsm, lsk, rsk, rsn, osm, osn;
      int64_t oax_m[TFR_MAX_RANK], oax_n[TFR_MAX_RANK];
      tfr_dot_iota(w.nlhs_free, w.nbatch, oax_m);
      tfr_dot_iota(w.nrhs_free, w.nbatch + w.nlhs_free, oax_n);
      tfr_dot_merge_axes(w.nlhs_free, w.lhs_free, w.lhs->shape, w.lhs->strides, &M, &lsm);
      tfr_dot_merge_axes(w.ncontract, w.lhs_contract, w.lhs->shape, w.lhs->strides, &K, &lsk);
      tfr_dot_merge_axes(w.ncontract, w.rhs_contract, w.rhs->shape, w.rhs->strides, &K, &rsk);
      tfr_dot_merge_axes(w.nrhs_free, w.rhs_free, w.rhs->shape, w.rhs->strides, &N, &rsn);
      tfr_dot_merge_axes(w.nlhs_free, oax_m, w.out->shape, w.out->strides, &M, &osm);
      tfr_dot_merge_axes(w.nrhs_free, oax_n, w.out->shape, w.out->strides, &N, &osn);
      tfr_dot_run_int(cpu, &w, M, N, K, lsm, lsk, rsk, osm);
    }
    if (tmp) tfr_dot_combine(cpu, d, d->out, tmp);
  }
  tfr_tensor_release(tmp);
  tfr_tensor_release(packed[0]);
  tfr_tensor_release(packed[1]);
  return st;
}

// f16 and bf16: lhs and rhs widened to f32 copies (exact), the product taken
// in f32 (BLAS sgemm or the small-problem loop), and each result element
// rounded once into out. The accumulating form combines alpha, beta and the
// old out in f32 too.
static tfr_status tfr_dot_half(tfr_backend *b, const tfr_dot_desc *d) {
  tfr_cpu_backend *cpu = tfr_cpu_cast(b);
  float (*widen)(uint16_t) = d->dtype == TFR_F16 ? tfr_f16_to_f32 : tfr_bf16_to_f32;
  tfr_dot_desc w = *d;
  w.dtype = TFR_F32;
  uint16_t h;
  float f;
  memcpy(&h, d->alpha, sizeof h);
  f = widen(h);
  memset(w.alpha, 0, sizeof w.alpha);
  memcpy(w.alpha, &f, sizeof f);
  memcpy(&h, d->beta, sizeof h);
  f = widen(h);
  memset(w.beta, 0, sizeof w.beta);
  memcpy(w.beta, &f, sizeof f);
  tfr_tensor *l = NULL, *r = NULL, *o = NULL;
  tfr_status st = TFR_OK;
  if (!d->alpha_zero) {
    st = tfr_tensor_alloc(b, TFR_F32, d->lhs->rank, d->lhs->shape, false, &l);
    if (!st) st = tfr_tensor_alloc(b, TFR_F32, d->rhs->rank, d->rhs->shape, false, &r);
    if (!st) st = tfr_cpu_convert(cpu, d->lhs, l);
    if (!st) st = tfr_cpu_convert(cpu, d->rhs, r);
    w.lhs = l;
    w.rhs = r;
  }
  if (!st) st = tfr_tensor_alloc(b, TFR_F32, d->out->rank, d->out->shape, false, &o);
  if (!st && d->accumulate && !d->beta_zero) st = tfr_cpu_convert(cpu, d->out, o);
  if (!st) {
    w.out = o;
    st = tfr_cpu_dot_general(b, &w);
  }
  if (!st) st = tfr_cpu_convert(cpu, o, d->out);
  tfr_tensor_release(l);
  tfr_tensor_release(r);
  tfr_tensor_release(o);
  return st;
}

tfr_status tfr_cpu_dot_general(tfr_backend *b, const tfr_dot_desc *d) {
  tfr_cpu_backend *cpu = tfr_cpu_cast(b);
  if (d->out->numel == 0) return TFR_OK;
  if (d->dtype == TFR_F16 || d->dtype == TFR_BF16) return tfr_dot_half(b, d);
  int64_t M = 1, N = 1, K = 1;
  // Saturating: an empty operand's other extents may be huge.
  for (int i = 0; i < d->nlhs_free; i++) M = tfr_dot_mul_sat(M, d->lhs->shape[d->lhs_free[i]]);
  for (int i = 0; i < d->nrhs_free; i++) N = tfr_dot_mul_sat(N, d->rhs->shape[d->rhs_free[i]]);
  for (int i = 0; i < d->ncontract; i++) K = tfr_dot_mul_sat(K, d->lhs->shape[d->lhs_contract[i]]);
  if (K == 0 || d->alpha_zero) {
    tfr_dot_combine(cpu, d, d->out, NULL);
    return TFR_OK;
  }
  int64_t mnk = tfr_dot_mul_sat(M, tfr_dot_mul_sat(N, K));
  tfr_dtype_kind kind = tfr_dtype_get_info(d->dtype)->kind;
  bool ints = kind == TFR_KIND_INT || kind == TFR_KIND_UINT;
  bool blas_fits = M <= INT_MAX && N <= INT_MAX && K <= INT_MAX;
  if (mnk <= TFR_DOT_SMALL_MNK || (!ints && !blas_fits)) return tfr_dot_run_naive(cpu, d);
  if (!ints && tfr_dot_small_gemm(d->dtype, M, N, K) && tfr_dot_run_small(cpu, d, 0)) return TFR_OK;
  if (!ints) {  // a looped product: small GEMMs over the outer contracting axes
    tfr_dot_desc w = *d;
    int outer = tfr_dot_loop_contracting(&w, d->lhs->shape, d->lhs->strides, d->rhs->shape,
                                          d->rhs->strides);
    if (outer > 0 && tfr_dot_run_small(cpu, &w, outer)) return TFR_OK;
  }
  return tfr_dot_run_general(cpu, d, !ints, M, N, K);
}
