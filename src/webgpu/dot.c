// dot_general on the webgpu backend: f32, i32 and c64 (vec2<f32>); u32, i8,
// i16, u8 and u16 in i32, f16 and bf16 in f32 (tfr_dot_widened: converted
// copies); f64, i64, u64 and c128 in software (dot_f64.wgsl: one invocation
// per output, a chain of correctly rounded fmas in k order, of wrapping
// a * b + acc, or of the cpu's complex steps acc + a * b; the mapping below,
// without the GEMM's tiles).
//
// A dot_general is one batched GEMM C[b][m, n] = sum_k A[b][m, k] B[b][k, n]
// once its axis groups merge: lhs free axes into M, contracting axes into K
// (in each operand), rhs free axes into N, batch axes (jointly over lhs, rhs
// and out) into at most 4 axes the kernel walks itself. Then
//   * an operand whose groups do not merge is packed into a compact
//     [batch, M, K] / [batch, K, N] copy (tfr_dot_pack: the copy kernel);
//     for the GEMM also one with neither a unit m/n nor a unit k stride
//     (its reads would not coalesce, and a GEMM reads it N/BN times);
//   * an out whose M or N axes do not merge, or whose batch axes do not merge
//     with the operands' into 4, is computed into a compact temporary (after
//     copying out into it when beta is not zero) and copied back;
//   * K = 0 or alpha = 0 runs the GEMM kernel with K = 0 and a dummy operand
//     binding: out = 0 or beta * out (lhs and rhs are never read).
// M = 1 or N = 1 goes to gemv.wgsl (memory bound, operands in place with any
// strides); everything else to gemm.wgsl, whose register code this file
// generates per tile configuration (see the table below and docs/webgpu.md).
// A column-major out (unit m stride) is computed as C^T = B^T A^T so that
// stores run along the contiguous axis; conj flags travel with the operands.
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/half.h"
#include "core/validate.h"
#include "webgpu/binding.h"
#include "webgpu/capability.h"
#include "webgpu/copy.h"
#include "webgpu/wgpu.h"
#include "webgpu/wgsl_text.h"
#include "webgpu/wgsl_types.h"

#define TFR_GEMM_MAX_BATCH 4

// ---------------------------------------------------------------------------
// Tile configurations
// ---------------------------------------------------------------------------

// One GEMM tile configuration: a BM x BN tile of C per workgroup, steps of BK
// along k, a TM x TN register tile per invocation (elements: complex ones
// for c64).
typedef struct tfr_gemm_cfg {
  int bm, bn, bk, tm, tn;
} tfr_gemm_cfg;

// The table, per element kind, largest tiles first (measured on an NVIDIA
// H200: bench/webgpu_gemm.c --tune, bench/results/webgpu_gemm_h200.md). The
// first configuration whose tiles keep at least TFR_GEMM_MIN_WARPS warps busy
// without padding more than TFR_GEMM_MAX_WASTE of the work wins: large tiles
// are fastest per tile (34 TFLOP/s for 128x256 against 28 for 64x64 at
// 8192^3), but a device of ~132 multiprocessors needs ~16 warps on each to
// hide latency (1024^3: 64x64x16 at 24 TFLOP/s against 17 for 64x128).
// A deep k (see tfr_gemm_split) counts split into slices (split-K) in that
// test: 256x256x8192 c64 runs at 32 TFLOP/s on 128x64 tiles with 32 slices,
// 15 on 32x32 tiles with 8.
static const tfr_gemm_cfg tfr_gemm_table_real[] = {
    {128, 256, 8, 8, 8},
    {128, 128, 8, 8, 8},
    {128, 64, 16, 8, 4},
    {64, 128, 8, 4, 8},
    {64, 64, 16, 4, 4},
    {32, 32, 8, 4, 4},
};
static const tfr_gemm_cfg tfr_gemm_table_complex[] = {
    {128, 64, 8, 8, 4},
    {64, 128, 8, 4, 8},
    {64, 64, 8, 4, 4},
    {32, 64, 16, 2, 4},
    {32, 32, 8, 2, 2},
};
#define TFR_GEMM_MIN_WARPS 2048
#define TFR_GEMM_MAX_WASTE 1.3
// Split-K: only for K of at least this, slices of at least TFR_GEMM_SPLIT_MIN_K.
#define TFR_GEMM_SPLIT_K 1024
#define TFR_GEMM_SPLIT_MIN_K 256
#define TFR_GEMM_MAX_SPLIT 64

// The element kinds the kernels know.
typedef struct tfr_dot_type {
  tfr_dtype dtype;
  const char *tag;
  const char *t;  // WGSL element type
  const char *v;  // 16-byte vector of EPV elements
  int epv;
  bool complex;
  bool integer;
} tfr_dot_type;

// The dtype's entry (from the WGSL type layer), or false where dot_general
// does not compute on it.
static bool tfr_dot_type_of(tfr_dtype dt, tfr_dot_type *ty) {
  if (!tfr_wgpu_dtype_computes(TFR_WGPU_DOT, dt)) return false;
  const tfr_wgsl_type *w = tfr_wgsl_type_of(dt);
  tfr_dtype_kind kind = tfr_dtype_get_info(dt)->kind;
  *ty = (tfr_dot_type){dt,         w->tag, w->value, w->vec, w->per_vec, kind == TFR_KIND_COMPLEX,
                       kind == TFR_KIND_INT || kind == TFR_KIND_UINT};
  return true;
}

static bool tfr_gemm_cfg_parse(const char *s, tfr_gemm_cfg *c) {
  char tail;
  return s && sscanf(s, "%dx%dx%d:%dx%d%c", &c->bm, &c->bn, &c->bk, &c->tm, &c->tn, &tail) == 5;
}

// Whether `c` is a valid configuration for `ty` on `b` (else a message in
// why[cap], unless why is NULL).
static bool tfr_gemm_cfg_valid(const tfr_wgpu_backend *b, const tfr_dot_type *ty,
                               const tfr_gemm_cfg *c, char *why, size_t cap) {
  int e = ty->epv;
  if (c->tm <= 0 || c->tn <= 0 || c->bk <= 0 || c->bm <= 0 || c->bn <= 0 || c->tm % e ||
      c->tn % e || c->bk % e || c->bm % c->tm || c->bn % c->tn || c->tm * c->tn > 128 ||
      c->bk > 64) {
    if (why)
      snprintf(why, cap, "register tiles must be multiples of %d dividing the block tile", e);
    return false;
  }
  long wg = (long)(c->bm / c->tm) * (c->bn / c->tn);
  if (wg > (long)b->limits.maxComputeInvocationsPerWorkgroup || wg < 32) {
    if (why)
      snprintf(why, cap, "%ld invocations per workgroup (32..%u)", wg,
               b->limits.maxComputeInvocationsPerWorkgroup);
    return false;
  }
  if ((long)c->bm * c->bk / e > 8 * wg || (long)c->bn * c->bk / e > 8 * wg) {
    if (why) snprintf(why, cap, "more than 8 16-byte loads per invocation and tile");
    return false;
  }
  long shared = 2L * (c->bm + c->bn) * c->bk * 16 / e;
  if (shared > (long)b->limits.maxComputeWorkgroupStorageSize) {
    if (why)
      snprintf(why, cap, "%ld bytes of workgroup memory (the device has %u)", shared,
               b->limits.maxComputeWorkgroupStorageSize);
    return false;
  }
  return true;
}

// Slices of k for a problem whose tiles keep `warps` warps busy: enough to
// reach TFR_GEMM_MIN_WARPS, when k is deep (K >= TFR_GEMM_SPLIT_K and at
// least twice the smaller of M and N: medium square problems measured faster
// on smaller tiles than split), slices of at least TFR_GEMM_SPLIT_MIN_K.
static int64_t tfr_gemm_split(int64_t M, int64_t N, int64_t K, int64_t warps) {
  if (warps >= TFR_GEMM_MIN_WARPS || K < TFR_GEMM_SPLIT_K || K < 2 * (M < N ? M : N)) return 1;
  int64_t sp = (TFR_GEMM_MIN_WARPS + warps - 1) / (warps > 0 ? warps : 1);
  if (sp > K / TFR_GEMM_SPLIT_MIN_K) sp = K / TFR_GEMM_SPLIT_MIN_K;
  if (sp > TFR_GEMM_MAX_SPLIT) sp = TFR_GEMM_MAX_SPLIT;
  return sp > 1 ? sp : 1;
}

// The configuration for an M x N x K (x batch) problem of `ty`, and the
// number of slices of k (1: no split-K).
static tfr_status tfr_gemm_pick(const tfr_wgpu_backend *b, const tfr_dot_type *ty, int64_t M,
                                int64_t N, int64_t K, int64_t nbatch, tfr_gemm_cfg *out,
                                int64_t *nsplit) {
  char why[160];
  const char *env = getenv("TFR_WEBGPU_GEMM_TILE");
  *nsplit = 1;
  if (env && env[0]) {
    if (!tfr_gemm_cfg_parse(env, out))
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "dot_general: webgpu: TFR_WEBGPU_GEMM_TILE=\"%s\" is not BMxBNxBK:TMxTN",
                       env);
    if (!tfr_gemm_cfg_valid(b, ty, out, why, sizeof why))
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "dot_general: webgpu: TFR_WEBGPU_GEMM_TILE=\"%s\" does not fit %s: %s", env,
                       ty->tag, why);
  } else {
    const tfr_gemm_cfg *table = ty->complex ? tfr_gemm_table_complex : tfr_gemm_table_real;
    int n = ty->complex ? (int)(sizeof tfr_gemm_table_complex / sizeof table[0])
                        : (int)(sizeof tfr_gemm_table_real / sizeof table[0]);
    int pick = -1;
    int64_t pick_split = 1;
    for (int i = 0; i < n; i++) {
      if (!tfr_gemm_cfg_valid(b, ty, &table[i], NULL, 0)) continue;
      pick = i;
      int64_t tiles = nbatch * ((M + table[i].bm - 1) / table[i].bm) *
                      ((N + table[i].bn - 1) / table[i].bn);
      double waste = (double)tiles * table[i].bm * table[i].bn / ((double)nbatch * M * N);
      int64_t wg = (table[i].bm / table[i].tm) * (table[i].bn / table[i].tn);
      pick_split = tfr_gemm_split(M, N, K, tiles * wg / 32);
      if (waste <= TFR_GEMM_MAX_WASTE && pick_split * tiles * wg / 32 >= TFR_GEMM_MIN_WARPS)
        break;
    }
    if (pick < 0)
      return tfr_error(TFR_ERR_UNSUPPORTED_DTYPE,
                       "dot_general: webgpu: no GEMM tile configuration fits %s on %s", ty->tag,
                       b->info.name);
    *out = table[pick];
    *nsplit = pick_split;
    return TFR_OK;
  }
  int64_t tiles = nbatch * ((M + out->bm - 1) / out->bm) * ((N + out->bn - 1) / out->bn);
  *nsplit = tfr_gemm_split(M, N, K, tiles * (out->bm / out->tm) * (out->bn / out->tn) / 32);
  return TFR_OK;
}

// ---------------------------------------------------------------------------
// Generating the GEMM's register code
// ---------------------------------------------------------------------------

// How one operand of the GEMM is read.
typedef struct tfr_gemm_side {
  bool fcontig;  // quads along the free axis (m for A, n for B), else along k
  bool vec;      // quads as 16-byte loads
} tfr_gemm_side;

static const char *const tfr_dot_lanes = "xyzw";

// load_x / store_x of one operand: `x` "a" or "b", array `X` "A" or "B",
// shared `Xs`, free extent constant `BF` ("BM"/"BN"), bound `F` ("P.M"/"P.N"),
// strides `sf`, `sk` ("P.sam", "P.sak").
static void tfr_gemm_gen_loader(tfr_wgsl_text *t, const tfr_dot_type *ty, const tfr_gemm_side *s,
                                const char *x, const char *X, const char *BF, const char *F,
                                const char *sf, const char *sk) {
  int e = ty->epv;
  tfr_wgsl_put(t, "fn load_%s(base: u32, f0: u32, k0: u32, kend: u32, q: u32) -> %s {\n", x,
                 ty->v);
  if (s->fcontig)
    tfr_wgsl_put(t,
                   "  let k = k0 + q / (%s / EPV);\n"
                   "  let f = f0 + (q %% (%s / EPV)) * EPV;\n",
                   BF, BF);
  else
    tfr_wgsl_put(t,
                   "  let f = f0 + q / (BK / EPV);\n"
                   "  let k = k0 + (q %% (BK / EPV)) * EPV;\n");
  tfr_wgsl_put(t, "  var v = %s();\n", ty->v);
  if (s->vec) {
    // The whole quad is in or out: the contiguous extent is a multiple of EPV.
    tfr_wgsl_put(t, "  if (f < %s && k < kend) {\n    v = %s[(base + f * %s + k * %s) / EPV];\n  }\n",
                   F, X, sf, sk);
  } else {
    for (int l = 0; l < e; l++) tfr_wgsl_put(t, "  var e%d = %s();\n", l, ty->t);
    if (s->fcontig)
      tfr_wgsl_put(t, "  if (k < kend) {\n    let o = base + f * %s + k * %s;\n", sf, sk);
    else
      tfr_wgsl_put(t, "  if (f < %s) {\n    let o = base + f * %s + k * %s;\n", F, sf, sk);
    for (int l = 0; l < e; l++) {
      if (s->fcontig)
        tfr_wgsl_put(t, "    if (f + %du < %s) { e%d = %s[o + %du * %s]; }\n", l, F, l, X, l, sf);
      else
        tfr_wgsl_put(t, "    if (k + %du < kend) { e%d = %s[o + %du * %s]; }\n", l, l, X, l, sk);
    }
    tfr_wgsl_put(t, "  }\n");
    if (ty->complex)
      tfr_wgsl_put(t, "  v = %s(e0.x, e0.y, e1.x, e1.y);\n", ty->v);
    else
      tfr_wgsl_put(t, "  v = %s(e0, e1, e2, e3);\n", ty->v);
  }
  if (ty->complex) tfr_wgsl_put(t, "  v = v * P.sign_%s;\n", x);
  tfr_wgsl_put(t, "  return v;\n}\n\n");

  // Stores into the k-major tile.
  tfr_wgsl_put(t, "fn store_%s(buf: u32, q: u32, v: %s) {\n", x, ty->v);
  if (s->fcontig) {
    tfr_wgsl_put(t, "  %ss[buf * (BK * (%s / EPV)) + q] = v;\n", X, BF);
  } else {
    tfr_wgsl_put(t,
                   "  let fr = q / (BK / EPV);\n"
                   "  let i = buf * (BK * (%s / EPV)) + (q %% (BK / EPV)) * EPV * (%s / EPV) + "
                   "fr / EPV;\n"
                   "  let c = fr %% EPV;\n",
                   BF, BF);
    for (int l = 0; l < e; l++) {
      if (ty->complex) {
        tfr_wgsl_put(t, "  %ss[i + %du * (%s / EPV)][2u * c] = v.%c;\n", X, l, BF,
                       tfr_dot_lanes[2 * l]);
        tfr_wgsl_put(t, "  %ss[i + %du * (%s / EPV)][2u * c + 1u] = v.%c;\n", X, l, BF,
                       tfr_dot_lanes[2 * l + 1]);
      } else {
        tfr_wgsl_put(t, "  %ss[i + %du * (%s / EPV)][c] = v.%c;\n", X, l, BF, tfr_dot_lanes[l]);
      }
    }
  }
  tfr_wgsl_put(t, "}\n\n");
}

// fn epi(x: T, idx: u32) -> T for the kernels' array C.
static void tfr_dot_gen_epi(tfr_wgsl_text *t, const tfr_dot_type *ty) {
  tfr_wgsl_put(t, "fn epi(x: %s, idx: u32) -> %s {\n  if (P.epi == 0u) {\n    return x;\n  }\n",
                 ty->t, ty->t);
  if (ty->complex) {
    tfr_wgsl_put(t,
                   "  let al = bitcast<vec2<f32>>(P.alpha.xy);\n"
                   "  var r = vec2<f32>(al.x * x.x - al.y * x.y, al.x * x.y + al.y * x.x);\n"
                   "  if (P.epi == 2u) {\n"
                   "    let be = bitcast<vec2<f32>>(P.beta.xy);\n"
                   "    let c = C[idx];\n"
                   "    r = r + vec2<f32>(be.x * c.x - be.y * c.y, be.x * c.y + be.y * c.x);\n"
                   "  }\n");
  } else {
    tfr_wgsl_put(t,
                   "  var r = bitcast<%s>(P.alpha.x) * x;\n"
                   "  if (P.epi == 2u) {\n    r = r + bitcast<%s>(P.beta.x) * C[idx];\n  }\n",
                   ty->t, ty->t);
  }
  tfr_wgsl_put(t, "  return r;\n}\n");
}

// Every generated piece of gemm.wgsl for one variant.
typedef struct tfr_gemm_gen {
  tfr_wgsl_text consts, loaders, epi, decls, load, store, compute, epilogue;
} tfr_gemm_gen;

static void tfr_gemm_gen_free(tfr_gemm_gen *g) {
  tfr_free(g->consts.buf);
  tfr_free(g->loaders.buf);
  tfr_free(g->epi.buf);
  tfr_free(g->decls.buf);
  tfr_free(g->load.buf);
  tfr_free(g->store.buf);
  tfr_free(g->compute.buf);
  tfr_free(g->epilogue.buf);
}

static bool tfr_gemm_generate(const tfr_dot_type *ty, const tfr_gemm_cfg *c,
                              const tfr_gemm_side *sa, const tfr_gemm_side *sb, tfr_gemm_gen *g) {
  memset(g, 0, sizeof *g);
  int e = ty->epv;
  int tx = c->bn / c->tn, tyy = c->bm / c->tm, wg = tx * tyy;
  int gm = c->tm / e, gn = c->tn / e;
  // 16-byte quads of the A and B tiles, and per invocation (the last round
  // guarded when they do not divide evenly).
  int nqa = c->bm * c->bk / e, nqb = c->bn * c->bk / e;
  int la = (nqa + wg - 1) / wg, lb = (nqb + wg - 1) / wg;
  tfr_wgsl_put(&g->consts,
                 "const BM = %du;\nconst BN = %du;\nconst BK = %du;\nconst TM = %du;\n"
                 "const TN = %du;\nconst EPV = %du;\nconst TX = %du;\nconst TY = %du;\n"
                 "const WG = %du;\n",
                 c->bm, c->bn, c->bk, c->tm, c->tn, e, tx, tyy, wg);
  tfr_gemm_gen_loader(&g->loaders, ty, sa, "a", "A", "BM", "P.M", "P.sam", "P.sak");
  tfr_gemm_gen_loader(&g->loaders, ty, sb, "b", "B", "BN", "P.N", "P.sbn", "P.sbk");
  tfr_dot_gen_epi(&g->epi, ty);

  for (int i = 0; i < c->tm; i++)
    for (int h = 0; h < gn; h++) tfr_wgsl_put(&g->decls, "  var c%d_%d = %s();\n", i, h, ty->v);
  for (int j = 0; j < la; j++) tfr_wgsl_put(&g->decls, "  var ra%d = %s();\n", j, ty->v);
  for (int j = 0; j < lb; j++) tfr_wgsl_put(&g->decls, "  var rb%d = %s();\n", j, ty->v);

  for (int j = 0; j < la; j++) {
    const char *guard = (j + 1) * wg > nqa ? "if (q < BM * BK / EPV) " : "";
    tfr_wgsl_put(&g->load, "    { let q = lid + %du; %s{ ra%d = load_a(a_base, m0, k0, kend, q); } }\n",
                   j * wg, guard, j);
    tfr_wgsl_put(&g->store, "    { let q = lid + %du; %s{ store_a(nb, q, ra%d); } }\n", j * wg,
                   guard, j);
  }
  for (int j = 0; j < lb; j++) {
    const char *guard = (j + 1) * wg > nqb ? "if (q < BN * BK / EPV) " : "";
    tfr_wgsl_put(&g->load, "    { let q = lid + %du; %s{ rb%d = load_b(b_base, n0, k0, kend, q); } }\n",
                   j * wg, guard, j);
    tfr_wgsl_put(&g->store, "    { let q = lid + %du; %s{ store_b(nb, q, rb%d); } }\n", j * wg,
                   guard, j);
  }

  // One step along k: TM/EPV + TN/EPV reads of workgroup memory, TM*TN
  // multiply-adds.
  for (int gi = 0; gi < gm; gi++)
    tfr_wgsl_put(&g->compute, "      let a%d = As[ai + %du];\n", gi, gi * tyy);
  for (int h = 0; h < gn; h++) {
    tfr_wgsl_put(&g->compute, "      let b%d = Bs[bj + %du];\n", h, h * tx);
    if (ty->complex)  // i * b, per complex lane: (-b.im, b.re)
      tfr_wgsl_put(&g->compute, "      let s%d = vec4<f32>(-b%d.y, b%d.x, -b%d.w, b%d.z);\n", h,
                     h, h, h, h);
  }
  for (int gi = 0; gi < gm; gi++)
    for (int l = 0; l < e; l++) {
      int i = gi * e + l;
      for (int h = 0; h < gn; h++) {
        if (ty->complex)
          tfr_wgsl_put(&g->compute,
                         "      c%d_%d = fma(vec4<f32>(a%d.%c), s%d, fma(vec4<f32>(a%d.%c), b%d, "
                         "c%d_%d));\n",
                         i, h, gi, tfr_dot_lanes[2 * l + 1], h, gi, tfr_dot_lanes[2 * l], h, i, h);
        else if (ty->integer)
          tfr_wgsl_put(&g->compute, "      c%d_%d = c%d_%d + vec4<i32>(a%d.%c) * b%d;\n", i, h,
                         i, h, gi, tfr_dot_lanes[l], h);
        else
          tfr_wgsl_put(&g->compute, "      c%d_%d = fma(vec4<f32>(a%d.%c), b%d, c%d_%d);\n", i,
                         h, gi, tfr_dot_lanes[l], h, i, h);
      }
    }

  // Stores: element (i, h, lane) of the register tile.
  for (int gi = 0; gi < gm; gi++)
    for (int l = 0; l < e; l++) {
      int i = gi * e + l;
      tfr_wgsl_put(&g->epilogue, "  {\n    let m = m0 + %du + ty * EPV;\n", gi * tyy * e + l);
      tfr_wgsl_put(&g->epilogue, "    if (m < P.M) {\n      let row = c_base + m * P.scm;\n");
      for (int h = 0; h < gn; h++)
        for (int q = 0; q < e; q++) {
          tfr_wgsl_put(&g->epilogue, "      {\n        let n = n0 + %du + tx * EPV;\n",
                         h * tx * e + q);
          tfr_wgsl_put(&g->epilogue,
                         "        if (n < P.N) {\n          let idx = row + n * P.scn;\n");
          if (ty->complex)
            tfr_wgsl_put(&g->epilogue, "          C[idx] = epi(c%d_%d.%s, idx);\n", i, h,
                           q == 0 ? "xy" : "zw");
          else
            tfr_wgsl_put(&g->epilogue, "          C[idx] = epi(c%d_%d.%c, idx);\n", i, h,
                           tfr_dot_lanes[q]);
          tfr_wgsl_put(&g->epilogue, "        }\n      }\n");
        }
      tfr_wgsl_put(&g->epilogue, "    }\n  }\n");
    }
  return !(g->consts.failed || g->loaders.failed || g->epi.failed || g->decls.failed ||
           g->load.failed || g->store.failed || g->compute.failed || g->epilogue.failed);
}

// ---------------------------------------------------------------------------
// Planning
// ---------------------------------------------------------------------------

// One batched GEMM on (window-relative) tensors.
typedef struct tfr_gemm_problem {
  const tfr_tensor *a, *b;  // NULL when K = 0 or alpha = 0 (not read)
  tfr_tensor *c;
  int64_t M, N, K;
  int64_t sam, sak, sbk, sbn, scm, scn;
  int nb;  // batch axes, innermost first
  int64_t bshape[TFR_GEMM_MAX_BATCH], ba[TFR_GEMM_MAX_BATCH], bb[TFR_GEMM_MAX_BATCH],
      bc[TFR_GEMM_MAX_BATCH];
  bool conj_a, conj_b;
} tfr_gemm_problem;

// Parameters of gemm.wgsl.
typedef struct tfr_gemm_params {
  uint32_t M, N, K, batch_rank;
  uint32_t tiles_m, tiles_n, ntiles, group_m;
  uint32_t a_off, b_off, c_off, klen;
  uint32_t sam, sak, sbk, sbn;
  uint32_t scm, scn, nbatch, epi;
  uint32_t alpha[4], beta[4];
  uint32_t batch_shape[4], batch_a[4], batch_b[4], batch_c[4];
  float sign_a[4], sign_b[4];
  uint32_t nsplit, split_c, pad2, pad3;
} tfr_gemm_params;
_Static_assert(sizeof(tfr_gemm_params) == 224, "gemm Params layout");

// Parameters of gemv.wgsl.
typedef struct tfr_gemv_params {
  uint32_t M, K, batch_rank, nbatch;
  uint32_t a_off, x_off, y_off, groups_m;
  uint32_t sam, sak, sx, sy;
  uint32_t alpha[4], beta[4];
  uint32_t batch_shape[4], batch_a[4], batch_x[4], batch_y[4];
  float sign_a[2], sign_x[2];
  uint32_t epi, pad[3];
} tfr_gemv_params;
_Static_assert(sizeof(tfr_gemv_params) == 176, "gemv Params layout");

static int64_t tfr_dot_sat_mul(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

// Window of operand `t` read over the batch axes (strides `bst`), rows
// (extent r, stride rs) and columns (extent cc, stride cs).
static tfr_status tfr_dot_bind(tfr_wgpu_backend *b, const char *name, const tfr_tensor *t,
                               const tfr_gemm_problem *p, const int64_t *bst, int64_t r,
                               int64_t rs, int64_t cc, int64_t cs, tfr_wgpu_binding *bind,
                               uint32_t *rel) {
  int64_t shape[TFR_GEMM_MAX_BATCH + 2], st[TFR_GEMM_MAX_BATCH + 2];
  int n = 0;
  for (int i = 0; i < p->nb; i++) shape[n] = p->bshape[i], st[n++] = bst[i];
  shape[n] = r, st[n++] = rs;
  shape[n] = cc, st[n++] = cs;
  int64_t lo, hi;
  tfr_wgpu_reach(n, shape, st, &lo, &hi);
  return tfr_wgpu_window(b, "dot_general", name, t, (int64_t)tfr_dtype_size(t->dtype),
                         t->offset, lo, hi, bind, rel);
}

// Whether operand side `s` of matrix (f extent, f stride, k extent, k stride)
// with batch strides can be read as aligned 16-byte quads along its
// contiguous axis.
static bool tfr_dot_vec_ok(const tfr_dot_type *ty, const tfr_tensor *t, int nb, const int64_t *bst,
                           bool fcontig, int64_t F, int64_t sf, int64_t K, int64_t sk) {
  int64_t e = ty->epv;
  int64_t ext = fcontig ? F : K, unit = fcontig ? sf : sk, other = fcontig ? sk : sf;
  int64_t oext = fcontig ? K : F;
  if (unit != 1 || ext % e) return false;
  if (oext > 1 && other % e) return false;
  for (int i = 0; i < nb; i++)
    if (bst[i] % e) return false;
  return t->offset % e == 0;
}

// Parameters of gemm_reduce.wgsl.
typedef struct tfr_gemm_reduce_params {
  uint32_t count, nsplit, M, N;
  uint32_t batch_rank, c_off, scm, scn;
  uint32_t epi, pad[3];
  uint32_t alpha[4], beta[4];
  uint32_t batch_shape[4], batch_c[4];
} tfr_gemm_reduce_params;
_Static_assert(sizeof(tfr_gemm_reduce_params) == 112, "gemm_reduce Params layout");

// out = epi(sum over the nsplit slices of the workspace `ws`).
static tfr_status tfr_dot_splitk_reduce(tfr_wgpu_backend *b, const tfr_dot_desc *d,
                                        const tfr_dot_type *ty, const tfr_gemm_problem *p,
                                        const tfr_tensor *ws, int64_t count, int64_t nsplit,
                                        int epi) {
  char variant[64];
  snprintf(variant, sizeof variant, "gemm_reduce[%s]", ty->tag);
  tfr_wgsl_override ov[] = {{"WG", 256}};
  tfr_wgsl_variant v = {variant, "gemm_reduce.wgsl", NULL, NULL, 0, ov, 1, 1, 1};
  WGPUComputePipeline pipeline = tfr_wgpu_pipeline_cached(b, &v);
  if (!pipeline) {
    tfr_wgsl_text epit = {0};
    tfr_dot_gen_epi(&epit, ty);
    if (epit.failed) {
      tfr_free(epit.buf);
      return tfr_error(TFR_ERR_OUT_OF_MEMORY, "dot_general: webgpu: out of host memory");
    }
    tfr_wgsl_subst subst[] = {{"T", ty->t}, {"EPI_FN", epit.buf}};
    v.subst = subst;
    v.nsubst = 2;
    tfr_status st = tfr_wgpu_pipeline_get(b, &v, &pipeline);
    tfr_free(epit.buf);
    TFR_RETURN_IF_ERROR(st);
  }
  tfr_gemm_reduce_params P;
  memset(&P, 0, sizeof P);
  P.count = (uint32_t)count, P.nsplit = (uint32_t)nsplit;
  P.M = (uint32_t)p->M, P.N = (uint32_t)p->N, P.batch_rank = (uint32_t)p->nb;
  P.scm = (uint32_t)p->scm, P.scn = (uint32_t)p->scn, P.epi = (uint32_t)epi;
  memcpy(P.alpha, d->alpha, sizeof P.alpha);
  memcpy(P.beta, d->beta, sizeof P.beta);
  for (int i = 0; i < p->nb; i++) {
    P.batch_shape[i] = (uint32_t)p->bshape[i];
    P.batch_c[i] = (uint32_t)p->bc[i];
  }
  tfr_wgpu_binding wb = {ws->storage->device, 0,
                         (uint64_t)(count * nsplit) * tfr_dtype_size(d->dtype)};
  tfr_wgpu_binding cb;
  TFR_RETURN_IF_ERROR(
      tfr_dot_bind(b, "out", p->c, p, p->bc, p->M, p->scm, p->N, p->scn, &cb, &P.c_off));
  return tfr_wgpu_dispatch(b, pipeline, &P, sizeof P, wb, cb, (uint64_t)(count + 255) / 256);
}

static tfr_status tfr_dot_run_gemm(tfr_wgpu_backend *b, const tfr_dot_desc *d,
                                   const tfr_dot_type *ty, const tfr_gemm_problem *p0,
                                   tfr_tensor *dummy, int epi) {
  tfr_gemm_problem p = *p0;
  // Column-major out: C^T = B^T A^T, stores along the unit stride.
  if (p.a && p.M > 1 && p.N > 1 && llabs(p.scm) == 1 && llabs(p.scn) != 1) {
    tfr_gemm_problem q = p;
    q.a = p.b, q.b = p.a;
    q.M = p.N, q.N = p.M;
    q.sam = p.sbn, q.sak = p.sbk, q.sbk = p.sak, q.sbn = p.sam;
    q.scm = p.scn, q.scn = p.scm;
    memcpy(q.ba, p.bb, sizeof q.ba);
    memcpy(q.bb, p.ba, sizeof q.bb);
    q.conj_a = p.conj_b, q.conj_b = p.conj_a;
    p = q;
  }
  int64_t nbatch = 1;
  for (int i = 0; i < p.nb; i++) nbatch *= p.bshape[i];
  tfr_gemm_cfg cfg;
  int64_t nsplit = 1;
  TFR_RETURN_IF_ERROR(tfr_gemm_pick(b, ty, p.M, p.N, p.a ? p.K : 0, nbatch, &cfg, &nsplit));

  tfr_gemm_side sa = {false, false}, sb = {false, false};
  if (p.a) {
    // Quads along k when k has the unit stride, else along the free axis
    // (which then has it: operands are packed otherwise).
    sa.fcontig = p.K <= 1 || (p.M > 1 && llabs(p.sak) != 1);
    sb.fcontig = p.K <= 1 || (p.N > 1 && llabs(p.sbk) != 1);
    sa.vec = tfr_dot_vec_ok(ty, p.a, p.nb, p.ba, sa.fcontig, p.M, p.sam, p.K, p.sak);
    sb.vec = tfr_dot_vec_ok(ty, p.b, p.nb, p.bb, sb.fcontig, p.N, p.sbn, p.K, p.sbk);
  }

  // The pipeline's key: what determines the generated code, as integers
  // (looked up on every dispatch; the variant name is formatted only when
  // the kernel is generated).
  const int32_t key[] = {(int32_t)ty->dtype, cfg.bm, cfg.bn, cfg.bk, cfg.tm, cfg.tn,
                         (sa.fcontig ? 1 : 0) | (sa.vec ? 2 : 0) | (sb.fcontig ? 4 : 0) |
                             (sb.vec ? 8 : 0)};
  WGPUComputePipeline pipeline = tfr_wgpu_kernel_find(b, TFR_WGPU_KERNELS_GEMM, key, sizeof key);
  if (!pipeline) {
    char variant[160], arr_a[32], arr_b[32];
    snprintf(variant, sizeof variant, "gemm[%s,%dx%dx%d:%dx%d,a%c%c,b%c%c]", ty->tag, cfg.bm,
             cfg.bn, cfg.bk, cfg.tm, cfg.tn, sa.fcontig ? 'm' : 'k', sa.vec ? 'v' : 's',
             sb.fcontig ? 'n' : 'k', sb.vec ? 'v' : 's');
    snprintf(arr_a, sizeof arr_a, "array<%s>", sa.vec ? ty->v : ty->t);
    snprintf(arr_b, sizeof arr_b, "array<%s>", sb.vec ? ty->v : ty->t);
    tfr_gemm_gen g;
    if (!tfr_gemm_generate(ty, &cfg, &sa, &sb, &g)) {
      tfr_gemm_gen_free(&g);
      return tfr_error(TFR_ERR_OUT_OF_MEMORY, "dot_general: webgpu: out of host memory");
    }
    tfr_wgsl_subst subst[] = {
        {"T", ty->t},
        {"V", ty->v},
        {"A_ARRAY", arr_a},
        {"B_ARRAY", arr_b},
        {"CONSTS", g.consts.buf},
        {"LOADERS", g.loaders.buf},
        {"EPI_FN", g.epi.buf},
        {"DECLS", g.decls.buf},
        {"LOAD_NEXT", g.load.buf},
        {"STORE_NEXT", g.store.buf},
        {"COMPUTE", g.compute.buf},
        {"EPILOGUE", g.epilogue.buf},
    };
    tfr_wgsl_variant v = {variant, "gemm.wgsl", NULL, subst, (int)(sizeof subst / sizeof subst[0]),
                          NULL, 0, 2, 1};
    tfr_status st =
        tfr_wgpu_kernel_build(b, TFR_WGPU_KERNELS_GEMM, key, sizeof key, &v, &pipeline);
    tfr_gemm_gen_free(&g);
    TFR_RETURN_IF_ERROR(st);
  }

  tfr_gemm_params P;
  memset(&P, 0, sizeof P);
  int64_t tiles_m = (p.M + cfg.bm - 1) / cfg.bm, tiles_n = (p.N + cfg.bn - 1) / cfg.bn;
  int64_t ntiles = tiles_m * tiles_n;
  if (tfr_dot_sat_mul(tfr_dot_sat_mul(ntiles, nbatch), nsplit) >= (INT64_C(1) << 32) ||
      tfr_dot_sat_mul(tfr_dot_sat_mul(p.M, p.N), tfr_dot_sat_mul(nbatch, nsplit)) >=
          (INT64_C(1) << 32) ||
      p.M >= (INT64_C(1) << 32) ||
      p.N >= (INT64_C(1) << 32) || p.K >= (INT64_C(1) << 31))
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "dot_general: webgpu: %" PRId64 " x %" PRId64 " x %" PRId64
                     " (batch %" PRId64 ") exceeds the 2^32 tiles of one dispatch",
                     p.M, p.N, p.K, nbatch);
  P.M = (uint32_t)p.M, P.N = (uint32_t)p.N, P.K = p.a ? (uint32_t)p.K : 0;
  P.batch_rank = (uint32_t)p.nb;
  P.tiles_m = (uint32_t)tiles_m, P.tiles_n = (uint32_t)tiles_n, P.ntiles = (uint32_t)ntiles;
  P.group_m = 8;
  // Slices of k: multiples of BK (so vec4 quads never straddle a slice end).
  int64_t klen = (p.K + nsplit - 1) / nsplit;
  klen = (klen + cfg.bk - 1) / cfg.bk * cfg.bk;
  if (klen == 0) klen = cfg.bk;
  nsplit = p.a && p.K > 0 ? (p.K + klen - 1) / klen : 1;
  P.klen = (uint32_t)klen;
  P.nsplit = (uint32_t)nsplit;
  P.sam = (uint32_t)p.sam, P.sak = (uint32_t)p.sak, P.sbk = (uint32_t)p.sbk;
  P.sbn = (uint32_t)p.sbn, P.scm = (uint32_t)p.scm, P.scn = (uint32_t)p.scn;
  P.nbatch = (uint32_t)nbatch;
  P.epi = (uint32_t)epi;
  for (int i = 0; i < 4; i++) {
    P.sign_a[i] = i % 2 && p.conj_a ? -1.0f : 1.0f;
    P.sign_b[i] = i % 2 && p.conj_b ? -1.0f : 1.0f;
  }
  memcpy(P.alpha, d->alpha, sizeof P.alpha);
  memcpy(P.beta, d->beta, sizeof P.beta);
  for (int i = 0; i < p.nb; i++) {
    P.batch_shape[i] = (uint32_t)p.bshape[i];
    P.batch_a[i] = (uint32_t)p.ba[i];
    P.batch_b[i] = (uint32_t)p.bb[i];
    P.batch_c[i] = (uint32_t)p.bc[i];
  }
  tfr_wgpu_binding bind[3];
  if (p.a) {
    TFR_RETURN_IF_ERROR(
        tfr_dot_bind(b, "lhs", p.a, &p, p.ba, p.M, p.sam, p.K, p.sak, &bind[0], &P.a_off));
    TFR_RETURN_IF_ERROR(
        tfr_dot_bind(b, "rhs", p.b, &p, p.bb, p.K, p.sbk, p.N, p.sbn, &bind[1], &P.b_off));
  } else {
    int64_t zero[TFR_GEMM_MAX_BATCH] = {0};
    TFR_RETURN_IF_ERROR(
        tfr_dot_bind(b, "scratch", dummy, &p, zero, 1, 0, 1, 0, &bind[0], &P.a_off));
    bind[1] = bind[0];
    P.b_off = P.a_off;
    // Four elements: a vec4 array binding needs 16 bytes.
    bind[0].size = bind[1].size = 16 * (uint64_t)(ty->complex ? 2 : 1);
  }
  if (nsplit == 1) {
    TFR_RETURN_IF_ERROR(
        tfr_dot_bind(b, "out", p.c, &p, p.bc, p.M, p.scm, p.N, p.scn, &bind[2], &P.c_off));
    return tfr_wgpu_dispatch_n(b, pipeline, &P, sizeof P, bind, 2, 1,
                               (uint64_t)ntiles * (uint64_t)nbatch);
  }
  // Split-K: slice s of k into a compact workspace [s][batch][M][N], then
  // gemm_reduce.wgsl sums the slices into out with the epilogue.
  int64_t count = p.M * p.N * nbatch, wsn = count * nsplit;
  tfr_tensor *ws = NULL;
  TFR_RETURN_IF_ERROR(tfr_tensor_alloc(&b->base, d->dtype, 1, &wsn, false, &ws));
  tfr_gemm_problem pw = p;
  pw.c = ws;
  pw.scm = p.N, pw.scn = 1;
  int64_t span = p.M * p.N;
  for (int i = 0; i < p.nb; i++) {
    pw.bc[i] = span;
    span *= p.bshape[i];
  }
  P.scm = (uint32_t)p.N, P.scn = 1, P.epi = 0;
  P.split_c = (uint32_t)count;
  for (int i = 0; i < p.nb; i++) P.batch_c[i] = (uint32_t)pw.bc[i];
  bind[2].buffer = ws->storage->device;
  bind[2].offset = 0;
  bind[2].size = (uint64_t)wsn * tfr_dtype_size(d->dtype);
  P.c_off = 0;
  tfr_status st = tfr_wgpu_dispatch_n(b, pipeline, &P, sizeof P, bind, 2, 1,
                                      (uint64_t)ntiles * (uint64_t)nbatch * (uint64_t)nsplit);
  if (!st) st = tfr_dot_splitk_reduce(b, d, ty, &p, ws, count, nsplit, epi);
  tfr_tensor_release(ws);
  return st;
}

// Parameters of dot_f64.wgsl.
typedef struct tfr_dot_f64_params {
  uint32_t M, N, K, nbatch;
  uint32_t batch_rank, a_off, b_off, c_off;
  uint32_t sam, sak, sbk, sbn;
  uint32_t scm, scn, epi, conj;
  uint32_t alpha[4], beta[4];
  uint32_t batch_shape[4], batch_a[4], batch_b[4], batch_c[4];
} tfr_dot_f64_params;
_Static_assert(sizeof(tfr_dot_f64_params) == 160, "dot_f64 Params layout");

// f64, i64, u64, c128: dot_f64.wgsl, one invocation per element of out
// (`dummy` is bound in place of the operands when K = 0 or alpha = 0: p->a
// is NULL then). i64 and u64 share a pipeline: wrapping arithmetic is the
// same. c128 accumulates as the cpu's strided loop (src/cpu/dot.c):
// acc.re + (xr yr - xi yi), acc.im + (xr yi + xi yr), every product and sum
// rounded, conjugation a negated imaginary part.
static tfr_status tfr_dot_run_f64(tfr_wgpu_backend *b, const tfr_dot_desc *d,
                                  const tfr_gemm_problem *p, tfr_tensor *dummy, int epi) {
  bool f64 = d->dtype == TFR_F64, c128 = d->dtype == TFR_C128;
  const char *snippets[] = {"common/u64.wgsl", f64 || c128 ? "common/f64.wgsl" : NULL,
                            c128 ? "common/c128.wgsl" : NULL, NULL};
  tfr_wgsl_override ov[] = {{"WG", 256}};
  tfr_wgsl_subst subst[] = {
      {"ELEM_T", c128 ? "vec4<u32>" : "vec2<u32>"},
      {"ZERO", c128 ? "vec4<u32>(0u)" : "vec2<u32>(0u)"},
      {"LOAD_A", c128 ? "tfr_c128_conj_if(A[a], (P.conj & 1u) != 0u)" : "A[a]"},
      {"LOAD_B", c128 ? "tfr_c128_conj_if(B[b], (P.conj & 2u) != 0u)" : "B[b]"},
      {"FMA", c128 ? "tfr_c128_mul_add" : f64 ? "tfr_f64_fma" : "tfr_u64_mul_add"},
      {"MUL", c128 ? "tfr_c128_mul" : f64 ? "tfr_f64_mul" : "tfr_u64_mul_lo"},
      {"ADD", c128 ? "tfr_c128_add" : f64 ? "tfr_f64_add" : "tfr_u64_add"},
      {"ALPHA", c128 ? "P.alpha" : "P.alpha.xy"},
      {"BETA", c128 ? "P.beta" : "P.beta.xy"}};
  tfr_wgsl_variant v = {c128 ? "dot_c128" : f64 ? "dot_f64" : "dot_x64", "dot_f64.wgsl", snippets,
                        subst, 9, ov, 1, 2, 1};
  WGPUComputePipeline pipeline;
  TFR_RETURN_IF_ERROR(tfr_wgpu_pipeline_get(b, &v, &pipeline));
  int64_t nbatch = 1;
  for (int i = 0; i < p->nb; i++) nbatch *= p->bshape[i];
  int64_t total = tfr_dot_sat_mul(tfr_dot_sat_mul(p->M, p->N), nbatch);
  if (total >= (INT64_C(1) << 32) || p->K >= (INT64_C(1) << 32))
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "dot_general: webgpu: %" PRId64 " x %" PRId64 " x %" PRId64
                     " (batch %" PRId64 ") exceeds the 2^32 outputs of one dispatch",
                     p->M, p->N, p->K, nbatch);
  tfr_dot_f64_params P;
  memset(&P, 0, sizeof P);
  P.M = (uint32_t)p->M, P.N = (uint32_t)p->N, P.K = p->a ? (uint32_t)p->K : 0;
  P.nbatch = (uint32_t)nbatch, P.batch_rank = (uint32_t)p->nb;
  P.sam = (uint32_t)p->sam, P.sak = (uint32_t)p->sak, P.sbk = (uint32_t)p->sbk;
  P.sbn = (uint32_t)p->sbn, P.scm = (uint32_t)p->scm, P.scn = (uint32_t)p->scn;
  P.epi = (uint32_t)epi;
  P.conj = (p->conj_a ? 1u : 0u) | (p->conj_b ? 2u : 0u);
  memcpy(P.alpha, d->alpha, sizeof P.alpha);
  memcpy(P.beta, d->beta, sizeof P.beta);
  for (int i = 0; i < p->nb; i++) {
    P.batch_shape[i] = (uint32_t)p->bshape[i];
    P.batch_a[i] = (uint32_t)p->ba[i];
    P.batch_b[i] = (uint32_t)p->bb[i];
    P.batch_c[i] = (uint32_t)p->bc[i];
  }
  tfr_wgpu_binding bind[3];
  if (p->a) {
    TFR_RETURN_IF_ERROR(
        tfr_dot_bind(b, "lhs", p->a, p, p->ba, p->M, p->sam, p->K, p->sak, &bind[0], &P.a_off));
    TFR_RETURN_IF_ERROR(
        tfr_dot_bind(b, "rhs", p->b, p, p->bb, p->K, p->sbk, p->N, p->sbn, &bind[1], &P.b_off));
  } else {
    int64_t zero[TFR_GEMM_MAX_BATCH] = {0};
    TFR_RETURN_IF_ERROR(
        tfr_dot_bind(b, "scratch", dummy, p, zero, 1, 0, 1, 0, &bind[0], &P.a_off));
    bind[1] = bind[0];
    P.b_off = P.a_off;
  }
  TFR_RETURN_IF_ERROR(
      tfr_dot_bind(b, "out", p->c, p, p->bc, p->M, p->scm, p->N, p->scn, &bind[2], &P.c_off));
  return tfr_wgpu_dispatch_n(b, pipeline, &P, sizeof P, bind, 2, 1,
                             ((uint64_t)total + 255) / 256);
}

// y = A x with N = 1 (or M = 1, transposed).
static tfr_status tfr_dot_run_gemv(tfr_wgpu_backend *b, const tfr_dot_desc *d,
                                   const tfr_dot_type *ty, const tfr_gemm_problem *p, int epi) {
  // The matrix: lhs [M, K] when N = 1, else rhs^T [N, K].
  bool lhs_mat = p->N == 1;
  const tfr_tensor *A = lhs_mat ? p->a : p->b, *X = lhs_mat ? p->b : p->a;
  int64_t M = lhs_mat ? p->M : p->N;
  int64_t sam = lhs_mat ? p->sam : p->sbn, sak = lhs_mat ? p->sak : p->sbk;
  int64_t sx = lhs_mat ? p->sbk : p->sak, sy = lhs_mat ? p->scm : p->scn;
  const int64_t *ba = lhs_mat ? p->ba : p->bb, *bx = lhs_mat ? p->bb : p->ba;
  bool ca = lhs_mat ? p->conj_a : p->conj_b, cx = lhs_mat ? p->conj_b : p->conj_a;
  // Rows mode when A is contiguous (or closest to it) along k.
  bool rows = M == 1 || (p->K > 1 && llabs(sak) <= llabs(sam));
  uint32_t L = rows ? 32 : 4;
  uint32_t WG = 256;
  uint32_t R = WG / L;

  char variant[96];
  snprintf(variant, sizeof variant, "gemv[%s]", ty->tag);
  tfr_wgsl_override ov[] = {{"WG", WG}, {"L", L}, {"ROWS", rows ? 1u : 0u}};
  tfr_wgsl_variant v = {variant, "gemv.wgsl", NULL, NULL, 0, ov, 3, 2, 1};
  // The variant name and overrides determine the code: generate the
  // functions only when the pipeline is not cached yet.
  WGPUComputePipeline pipeline = tfr_wgpu_pipeline_cached(b, &v);
  if (!pipeline) {
    tfr_wgsl_text mad = {0}, epit = {0};
    if (ty->complex)
      tfr_wgsl_put(&mad,
                   "fn mad(a0: vec2<f32>, x0: vec2<f32>, acc: vec2<f32>) -> vec2<f32> {\n"
                   "  let a = a0 * P.sign_a;\n  let x = x0 * P.sign_x;\n"
                   "  return acc + vec2<f32>(a.x * x.x - a.y * x.y, a.x * x.y + a.y * x.x);\n}\n");
    else if (ty->integer)
      tfr_wgsl_put(&mad, "fn mad(a: i32, x: i32, acc: i32) -> i32 {\n  return acc + a * x;\n}\n");
    else
      tfr_wgsl_put(&mad,
                   "fn mad(a: f32, x: f32, acc: f32) -> f32 {\n  return fma(a, x, acc);\n}\n");
    tfr_dot_gen_epi(&epit, ty);
    if (mad.failed || epit.failed) {
      tfr_free(mad.buf);
      tfr_free(epit.buf);
      return tfr_error(TFR_ERR_OUT_OF_MEMORY, "dot_general: webgpu: out of host memory");
    }
    tfr_wgsl_subst subst[] = {{"T", ty->t}, {"MAD_FN", mad.buf}, {"EPI_FN", epit.buf}};
    v.subst = subst;
    v.nsubst = 3;
    tfr_status st = tfr_wgpu_pipeline_get(b, &v, &pipeline);
    tfr_free(mad.buf);
    tfr_free(epit.buf);
    TFR_RETURN_IF_ERROR(st);
  }

  int64_t nbatch = 1;
  for (int i = 0; i < p->nb; i++) nbatch *= p->bshape[i];
  int64_t groups_m = (M + R - 1) / R;
  if (tfr_dot_sat_mul(groups_m, nbatch) >= (INT64_C(1) << 32) || p->K >= (INT64_C(1) << 31))
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "dot_general: webgpu: %" PRId64 " rows (batch %" PRId64
                     ") exceed one dispatch",
                     M, nbatch);
  tfr_gemv_params P;
  memset(&P, 0, sizeof P);
  P.M = (uint32_t)M, P.K = (uint32_t)p->K, P.batch_rank = (uint32_t)p->nb;
  P.nbatch = (uint32_t)nbatch, P.groups_m = (uint32_t)groups_m;
  P.sam = (uint32_t)sam, P.sak = (uint32_t)sak, P.sx = (uint32_t)sx, P.sy = (uint32_t)sy;
  P.sign_a[0] = P.sign_x[0] = 1.0f;
  P.sign_a[1] = ca ? -1.0f : 1.0f;
  P.sign_x[1] = cx ? -1.0f : 1.0f;
  P.epi = (uint32_t)epi;
  memcpy(P.alpha, d->alpha, sizeof P.alpha);
  memcpy(P.beta, d->beta, sizeof P.beta);
  for (int i = 0; i < p->nb; i++) {
    P.batch_shape[i] = (uint32_t)p->bshape[i];
    P.batch_a[i] = (uint32_t)ba[i];
    P.batch_x[i] = (uint32_t)bx[i];
    P.batch_y[i] = (uint32_t)p->bc[i];
  }
  tfr_wgpu_binding bind[3];
  TFR_RETURN_IF_ERROR(tfr_dot_bind(b, lhs_mat ? "lhs" : "rhs", A, p, ba, M, sam, p->K, sak,
                                   &bind[0], &P.a_off));
  TFR_RETURN_IF_ERROR(tfr_dot_bind(b, lhs_mat ? "rhs" : "lhs", X, p, bx, 1, 0, p->K, sx, &bind[1],
                                   &P.x_off));
  TFR_RETURN_IF_ERROR(tfr_dot_bind(b, "out", p->c, p, p->bc, M, sy, 1, 0, &bind[2], &P.y_off));
  return tfr_wgpu_dispatch_n(b, pipeline, &P, sizeof P, bind, 2, 1,
                             (uint64_t)groups_m * (uint64_t)nbatch);
}

// Merges d's batch axes jointly over lhs, rhs (when `operands`) and out
// into p (innermost first); false when more than TFR_GEMM_MAX_BATCH remain.
static bool tfr_dot_merge_batch(const tfr_dot_desc *d, bool operands, const tfr_tensor *out,
                                tfr_gemm_problem *p) {
  p->nb = 0;
  for (int i = d->nbatch - 1; i >= 0; i--) {
    int64_t ext = out->shape[i];
    if (ext == 1) continue;
    int64_t sa = operands ? d->lhs->strides[d->lhs_batch[i]] : 0;
    int64_t sb = operands ? d->rhs->strides[d->rhs_batch[i]] : 0;
    int64_t sc = out->strides[i];
    if (p->nb > 0) {
      int j = p->nb - 1;
      int64_t e = p->bshape[j];
      if (sa == p->ba[j] * e && sb == p->bb[j] * e && sc == p->bc[j] * e) {
        p->bshape[j] *= ext;
        continue;
      }
    }
    if (p->nb == TFR_GEMM_MAX_BATCH) return false;
    p->bshape[p->nb] = ext;
    p->ba[p->nb] = sa;
    p->bb[p->nb] = sb;
    p->bc[p->nb] = sc;
    p->nb++;
  }
  return true;
}

// Whether the GEMM reads the merged operand matrix (rows x cols, strides rs,
// cs) well in place: one axis of unit stride (or of extent 1).
static bool tfr_dot_coalesced(int64_t rows, int64_t rs, int64_t cols, int64_t cs) {
  return rows <= 1 || cols <= 1 || llabs(rs) == 1 || llabs(cs) == 1;
}

// Groups of out: M axes and N axes merged.
static bool tfr_dot_out_groups(const tfr_dot_desc *d, const tfr_tensor *o, int64_t *M,
                               int64_t *scm, int64_t *N, int64_t *scn) {
  int64_t om[TFR_MAX_RANK], on[TFR_MAX_RANK];
  for (int i = 0; i < d->nlhs_free; i++) om[i] = d->nbatch + i;
  for (int i = 0; i < d->nrhs_free; i++) on[i] = d->nbatch + d->nlhs_free + i;
  return tfr_dot_merge_axes(d->nlhs_free, om, o->shape, o->strides, M, scm) &&
         tfr_dot_merge_axes(d->nrhs_free, on, o->shape, o->strides, N, scn);
}

// u32, i8, i16, u8 and u16 run in i32, f16 and bf16 in f32 (as the cpu:
// exact widening, an f32 dot_general, each result rounded once into out;
// the accumulating form combines alpha, beta and out in f32 too). For the
// integers: The cpu's sums and
// products wrap modulo 2^32 or finer, so i32's wrapping arithmetic holds
// every such result in its low bits (and u32's bits are i32's). The operands
// (and out where it is read) are converted to copies of the wider dtype, the
// result converted back into out.
static bool tfr_dot_narrow(tfr_dtype dt) {
  return dt == TFR_U32 || dt == TFR_I8 || dt == TFR_I16 || dt == TFR_U8 || dt == TFR_U16 ||
         dt == TFR_F16 || dt == TFR_BF16;
}

// A scalar of dtype `dt` (alpha, beta) in the wider dtype: the f32 value of
// f16/bf16, the i32 with the same low bits of an integer.
static void tfr_dot_scalar_wide(tfr_dtype dt, const unsigned char *v, unsigned char *out) {
  int32_t x = 0;
  if (dt == TFR_F16 || dt == TFR_BF16) {
    uint16_t h;
    memcpy(&h, v, sizeof h);
    float f = dt == TFR_F16 ? tfr_f16_to_f32(h) : tfr_bf16_to_f32(h);
    memset(out, 0, 16);
    memcpy(out, &f, sizeof f);
    return;
  }
  switch (dt) {
    case TFR_I8: x = (int8_t)v[0]; break;
    case TFR_U8: x = v[0]; break;
    case TFR_I16: {
      int16_t h;
      memcpy(&h, v, sizeof h);
      x = h;
      break;
    }
    case TFR_U16: {
      uint16_t h;
      memcpy(&h, v, sizeof h);
      x = h;
      break;
    }
    default: memcpy(&x, v, sizeof x); break;  // u32: the bits
  }
  memset(out, 0, 16);
  memcpy(out, &x, sizeof x);
}

static tfr_status tfr_dot_widened(tfr_backend *base, const tfr_dot_desc *d) {
  tfr_dtype wide_dt = d->dtype == TFR_F16 || d->dtype == TFR_BF16 ? TFR_F32 : TFR_I32;
  tfr_wgpu_backend *b = tfr_wgpu_cast(base);
  TFR_RETURN_IF_ERROR(tfr_wgpu_check(b, "dot_general"));
  if (d->out->numel == 0) return TFR_OK;
  const tfr_tensor *src[3] = {d->lhs, d->rhs, d->out};
  tfr_tensor *wide[3] = {NULL, NULL, NULL};
  bool read[3] = {!d->alpha_zero, !d->alpha_zero, d->accumulate && !d->beta_zero};
  tfr_status st = TFR_OK;
  for (int k = 0; k < 3 && !st; k++) {
    st = tfr_tensor_alloc(base, wide_dt, src[k]->rank, src[k]->shape, false, &wide[k]);
    if (!st && read[k] && src[k]->numel) st = tfr_wgpu_copy(b, "dot_general", src[k], wide[k]);
  }
  tfr_dot_desc w = *d;
  w.dtype = wide_dt;
  w.lhs = wide[0];
  w.rhs = wide[1];
  w.out = wide[2];
  tfr_dot_scalar_wide(d->dtype, d->alpha, w.alpha);
  tfr_dot_scalar_wide(d->dtype, d->beta, w.beta);
  if (!st) st = tfr_wgpu_dot_general(base, &w);
  if (!st) st = tfr_wgpu_copy(b, "dot_general", wide[2], d->out);
  for (int k = 0; k < 3; k++) tfr_tensor_release(wide[k]);
  return st;
}

tfr_status tfr_wgpu_dot_general(tfr_backend *base, const tfr_dot_desc *d) {
  tfr_wgpu_backend *b = tfr_wgpu_cast(base);
  tfr_dot_type type;
  const tfr_dot_type *ty = &type;
  if (tfr_dot_narrow(d->dtype)) return tfr_dot_widened(base, d);
  if (!tfr_dot_type_of(d->dtype, &type))
    return tfr_error(TFR_ERR_UNSUPPORTED_DTYPE,
                     "dot_general: dtype %s is not supported on the webgpu backend (it computes "
                     "the integers, f32, c64, f64 and c128)",
                     tfr_dtype_name(d->dtype));
  TFR_RETURN_IF_ERROR(tfr_wgpu_check(b, "dot_general"));
  if (d->out->numel == 0) return TFR_OK;
  int64_t K = 1;
  for (int i = 0; i < d->ncontract; i++)
    K = tfr_dot_sat_mul(K, d->lhs->shape[d->lhs_contract[i]]);
  bool no_dot = K == 0 || d->alpha_zero;  // out = beta * out (or zeros)
  int epi = !d->accumulate ? 0 : d->beta_zero ? 1 : 2;
  if (no_dot && epi == 1) epi = 0;  // alpha * 0: plain zeros

  tfr_dot_desc w = *d;
  tfr_tensor *packed[2] = {NULL, NULL}, *tmp = NULL, *dummy = NULL;
  tfr_status st = TFR_OK;
  tfr_gemm_problem p;
  memset(&p, 0, sizeof p);
  int64_t M = 1, N = 1, scm = 0, scn = 0;
  bool out_ok = tfr_dot_out_groups(d, d->out, &M, &scm, &N, &scn);
  M = N = 1;  // (whether or not out's groups merge)
  for (int i = 0; i < d->nlhs_free; i++) M *= d->lhs->shape[d->lhs_free[i]];
  for (int i = 0; i < d->nrhs_free; i++) N *= d->rhs->shape[d->rhs_free[i]];
  // f64, i64, u64: one kernel for every shape, operands in place.
  bool soft64 = tfr_wgsl_type_of(d->dtype)->emulated;
  bool gemv = !no_dot && (M == 1 || N == 1);

  if (!no_dot) {
    // Operands: merged groups, and (GEMM) a coalesced axis; else packed.
    for (int side = 0; side < 2 && !st; side++) {
      const tfr_tensor *t = side == TFR_DOT_SIDE_LHS ? w.lhs : w.rhs;
      int64_t fe, fs, ke, ks;
      bool merged =
          side == TFR_DOT_SIDE_LHS
              ? tfr_dot_merge_axes(w.nlhs_free, w.lhs_free, t->shape, t->strides, &fe, &fs) &&
                    tfr_dot_merge_axes(w.ncontract, w.lhs_contract, t->shape, t->strides, &ke,
                                       &ks)
              : tfr_dot_merge_axes(w.nrhs_free, w.rhs_free, t->shape, t->strides, &fe, &fs) &&
                    tfr_dot_merge_axes(w.ncontract, w.rhs_contract, t->shape, t->strides, &ke,
                                       &ks);
      if (merged && (gemv || soft64 || tfr_dot_coalesced(fe, fs, ke, ks))) continue;
      st = tfr_dot_pack(base, &w, side, &packed[side]);
      if (!st) tfr_dot_use_packed(&w, side, packed[side]);
    }
  }
  // Batch axes: jointly mergeable into TFR_GEMM_MAX_BATCH axes; else pack
  // both operands and compute into a compact temporary (all then merge).
  if (!st && !tfr_dot_merge_batch(&w, !no_dot, d->out, &p)) {
    for (int side = 0; side < 2 && !st && !no_dot; side++) {
      if (packed[side]) continue;
      st = tfr_dot_pack(base, &w, side, &packed[side]);
      if (!st) tfr_dot_use_packed(&w, side, packed[side]);
    }
    out_ok = false;
  }
  tfr_tensor *out = d->out;
  if (!st && !out_ok) {
    st = tfr_tensor_alloc(base, d->dtype, d->out->rank, d->out->shape, false, &tmp);
    if (!st && epi == 2) st = tfr_wgpu_copy(b, "dot_general", d->out, tmp);
    if (!st) {
      out = tmp;
      if (!tfr_dot_out_groups(d, out, &M, &scm, &N, &scn) ||
          !tfr_dot_merge_batch(&w, !no_dot, out, &p))
        st = tfr_error(TFR_ERR_INTERNAL, "dot_general: webgpu: a compact out does not merge");
    }
  }
  if (!st) {
    p.c = out;
    p.M = M, p.N = N, p.K = no_dot ? 0 : K;
    p.scm = scm, p.scn = scn;
    p.conj_a = w.lhs_conj, p.conj_b = w.rhs_conj;
    if (no_dot) {
      // The kernel reads no operand: bind a small scratch buffer.
      int64_t four = 4;
      st = tfr_tensor_alloc(base, d->dtype, 1, &four, true, &dummy);
      if (!st)
        st = soft64 ? tfr_dot_run_f64(b, d, &p, dummy, epi)
                    : tfr_dot_run_gemm(b, d, ty, &p, dummy, epi);
    } else {
      int64_t e;
      p.a = w.lhs, p.b = w.rhs;
      tfr_dot_merge_axes(w.nlhs_free, w.lhs_free, w.lhs->shape, w.lhs->strides, &e, &p.sam);
      tfr_dot_merge_axes(w.ncontract, w.lhs_contract, w.lhs->shape, w.lhs->strides, &e, &p.sak);
      tfr_dot_merge_axes(w.ncontract, w.rhs_contract, w.rhs->shape, w.rhs->strides, &e, &p.sbk);
      tfr_dot_merge_axes(w.nrhs_free, w.rhs_free, w.rhs->shape, w.rhs->strides, &e, &p.sbn);
      st = soft64 ? tfr_dot_run_f64(b, d, &p, NULL, epi)
           : gemv ? tfr_dot_run_gemv(b, d, ty, &p, epi)
                  : tfr_dot_run_gemm(b, d, ty, &p, NULL, epi);
    }
  }
  if (!st && tmp) st = tfr_wgpu_copy(b, "dot_general", tmp, d->out);
  tfr_tensor_release(tmp);
  tfr_tensor_release(dummy);
  tfr_tensor_release(packed[0]);
  tfr_tensor_release(packed[1]);
  return st;
}
