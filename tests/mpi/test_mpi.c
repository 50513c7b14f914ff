// tenferro_mpi on the ranks mpirun starts (ctest runs it with -np 2 and 4):
// sliced plans contracted across ranks against the single-process executor
// on random networks, every dtype, open and closed outputs, both schedules;
// --deterministic bitwise against a one-rank run; plans shared from rank 0;
// failures (differing plans, a bad root, a slice failing on one rank) come
// back on every rank.
//
// Not cmocka: a failed check must not leave the other ranks waiting in a
// collective, so checks are counted, every rank runs every case, and the
// counts are summed at the end.
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"  // tfr_alloc_fail_after (test hook)
#include "tenferro/mpi.h"
#include "tenferro/ops.h"
#include "tenferro/tenferro.h"

static int g_rank, g_size, g_failures, g_checks;
// Executions per combination (tfr_mpi_combination) and determinism.
static int g_combined[3][2];
static tfr_session *g_s;

#define CHECK(cond, ...)                                                          \
  do {                                                                            \
    g_checks++;                                                                   \
    if (!(cond)) {                                                                \
      g_failures++;                                                               \
      fprintf(stderr, "rank %d: %s:%d: check failed: %s: ", g_rank, __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                               \
      fprintf(stderr, "\n");                                                      \
    }                                                                             \
  } while (0)

static uint64_t g_rng;
static uint64_t next_u64(void) {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return g_rng;
}

// An operand of `dtype` with values from a seeded generator (the same on
// every rank): small integers (never 0), so that every dtype's sums stay
// exact or nearly so; made in f64 or c128 and converted.
static tfr_tensor *make_operand(tfr_dtype dtype, int rank, const int64_t *shape, uint64_t seed) {
  int64_t n = 1;
  for (int k = 0; k < rank; k++) n *= shape[k];
  bool cplx = tfr_dtype_get_info(dtype)->kind == TFR_KIND_COMPLEX;
  bool uns = tfr_dtype_get_info(dtype)->kind == TFR_KIND_UINT || dtype == TFR_BOOL;
  int parts = cplx ? 2 : 1;
  double *v = malloc(sizeof(double) * (size_t)(n * parts + 1));
  g_rng = seed * 2654435761u + 12345;
  for (int64_t i = 0; i < n * parts; i++) {
    int x = (int)(next_u64() % 3) + 1;
    v[i] = uns ? (dtype == TFR_BOOL ? (double)(next_u64() % 2) : x) : (next_u64() % 2 ? x : -x);
  }
  tfr_tensor *w = NULL, *t = NULL;
  if (tfr_tensor_from_host(cplx ? TFR_C128 : TFR_F64, rank, shape, v, &w) != TFR_OK ||
      tfr_convert(g_s, w, dtype, &t) != TFR_OK)
    t = NULL;
  tfr_tensor_release(w);
  free(v);
  return t;
}

// The values of `t` widened to c128 (re, im pairs): a new buffer.
static double *widen(const tfr_tensor *t, int64_t *n) {
  tfr_tensor *w = NULL;
  *n = tfr_tensor_numel(t);
  double *v = malloc(sizeof(double) * (size_t)(2 * *n + 2));
  if (tfr_convert(g_s, t, TFR_C128, &w) != TFR_OK ||
      tfr_tensor_read(w, v, sizeof(double) * (size_t)(2 * *n)) != TFR_OK) {
    free(v);
    v = NULL;
  }
  tfr_tensor_release(w);
  return v;
}

static double tolerance(tfr_dtype d) {
  switch (d) {
    case TFR_F16: case TFR_BF16: return 2e-2;
    case TFR_F32: case TFR_C64: return 1e-5;
    case TFR_F64: case TFR_C128: return 1e-12;
    default: return 0;  // integers and bool: exact
  }
}

// a and b agree to the dtype's tolerance, relative to the largest |a|.
static bool close_enough(const tfr_tensor *a, const tfr_tensor *b, tfr_dtype d, char *why, size_t len) {
  int64_t na, nb;
  double *x = widen(a, &na), *y = widen(b, &nb);
  bool ok = x && y && na == nb;
  double scale = 1, worst = 0;
  for (int64_t i = 0; ok && i < 2 * na; i++) scale = fmax(scale, fabs(x[i]));
  for (int64_t i = 0; ok && i < 2 * na; i++) worst = fmax(worst, fabs(x[i] - y[i]));
  ok = ok && worst <= tolerance(d) * scale;
  snprintf(why, len, "dtype %s, %" PRId64 " elements, worst difference %g (scale %g)",
           tfr_dtype_name(d), na, worst, scale);
  free(x);
  free(y);
  return ok;
}

static bool same_bytes(const tfr_tensor *a, const tfr_tensor *b) {
  size_t n = tfr_tensor_nbytes(a);
  if (n != tfr_tensor_nbytes(b)) return false;
  char *x = malloc(n + 1), *y = malloc(n + 1);
  bool ok = x && y && tfr_tensor_read(a, x, n) == TFR_OK && tfr_tensor_read(b, y, n) == TFR_OK &&
            memcmp(x, y, n) == 0;
  free(x);
  free(y);
  return ok;
}

// A random network: n operands over labels a.., extents 2-3, each label on
// one to three operands; `open` of the labels kept in the output.
typedef struct network {
  char eq[256];
  int n;
  int ranks[8];
  int64_t shapes[8][8];
} network;

static void random_network(uint64_t seed, int n, int num_labels, int open, network *net) {
  g_rng = seed * 7919 + 1;
  int64_t extent[26];
  char ops[8][16];
  int len[8] = {0};
  for (int l = 0; l < num_labels; l++) {
    extent[l] = 2 + (int64_t)(next_u64() % 2);
    int copies = 1 + (int)(next_u64() % 3);
    for (int c = 0; c < copies; c++) {
      int i = (int)(next_u64() % (uint64_t)n);
      if (len[i] < 5 && !memchr(ops[i], 'a' + l, (size_t)len[i])) ops[i][len[i]++] = (char)('a' + l);
    }
  }
  net->n = n;
  char *p = net->eq;
  for (int i = 0; i < n; i++) {
    if (len[i] == 0) ops[i][len[i]++] = 'a';  // no scalar operands
    net->ranks[i] = len[i];
    for (int k = 0; k < len[i]; k++) {
      *p++ = ops[i][k];
      net->shapes[i][k] = extent[ops[i][k] - 'a'];
    }
    *p++ = i + 1 < n ? ',' : '-';
  }
  *p++ = '>';
  *p = '\0';
  // The output: the first `open` labels that occur somewhere.
  int taken = 0;
  for (int l = 0; l < num_labels && taken < open; l++) {
    const char *at = strchr(net->eq, 'a' + l);
    if (at && at < p - 2) *p++ = (char)('a' + l), *p = '\0', taken++;
  }
}

// One network, one dtype: plan on rank 0 (greedy), slice it (`how`: 0 a
// summed label, 1 up to two output labels, 2 an output label and a summed
// one, 3 none), share, contract on the
// ranks three ways, compare.
static void check_network(const network *net, tfr_dtype dtype, int how, uint64_t seed) {
  const int64_t *shapes[8];
  for (int i = 0; i < net->n; i++) shapes[i] = net->shapes[i];
  tfr_einsum_plan *plan = NULL;
  if (g_rank == 0) {
    tfr_einsum_options o;
    memset(&o, 0, sizeof o);
    o.path_kind = TFR_EINSUM_PATH_GREEDY;
    CHECK(tfr_einsum_plan_create(net->eq, net->n, net->ranks, shapes, &o, &plan) == TFR_OK, "%s: plan: %s",
          net->eq, tfr_last_error_message());
    const char *arrow = strchr(net->eq, '>');
    char labels[4] = {0}, *l = labels;
    if ((how == 1 || how == 2) && arrow[1]) *l++ = arrow[1];
    // Two output labels: blocks enough to gather on 4 ranks.
    if (how == 1 && arrow[1] && arrow[2]) *l++ = arrow[2];
    for (char c = 'a'; (how == 0 || how == 2) && c <= 'z'; c++)
      if (memchr(net->eq, c, (size_t)(arrow - net->eq)) && !strchr(arrow, c)) {
        *l++ = c;
        break;
      }
    if (plan && l > labels)
      CHECK(tfr_einsum_plan_slice(plan, labels) == TFR_OK, "%s: slice %s: %s", net->eq, labels,
            tfr_last_error_message());
  }
  tfr_status st = tfr_mpi_einsum_plan_share(MPI_COMM_WORLD, 0, net->eq, net->n, net->ranks, shapes, &plan);
  CHECK(st == TFR_OK, "%s: share: %s", net->eq, tfr_mpi_last_error_message());
  if (st != TFR_OK) return;
  tfr_tensor *ops[8] = {0};
  for (int i = 0; i < net->n; i++) ops[i] = make_operand(dtype, net->ranks[i], net->shapes[i], seed + (uint64_t)i);
  tfr_tensor *ref = NULL, *one = NULL;
  if (g_rank == 0) CHECK(tfr_einsum_plan_execute(g_s, plan, (const tfr_tensor *const *)ops, &ref) == TFR_OK,
                         "%s: single-process execute: %s", net->eq, tfr_last_error_message());
  // The one-rank deterministic result, on rank 0 alone.
  MPI_Comm self;
  MPI_Comm_split(MPI_COMM_WORLD, g_rank == 0 ? 0 : MPI_UNDEFINED, 0, &self);
  if (g_rank == 0) {
    tfr_mpi_options o = {TFR_MPI_SCHEDULE_STATIC, true, 0};
    CHECK(tfr_mpi_plan_execute(self, g_s, plan, (const tfr_tensor *const *)ops, &o, &one, NULL) == TFR_OK,
          "%s: one rank: %s", net->eq, tfr_mpi_last_error_message());
    MPI_Comm_free(&self);
  }
  for (int variant = 0; variant < 3; variant++) {
    tfr_mpi_options o = {variant == 1 ? TFR_MPI_SCHEDULE_DYNAMIC : TFR_MPI_SCHEDULE_STATIC, variant == 2,
                         g_size - 1 - (variant % g_size)};
    tfr_tensor *out = NULL;
    tfr_mpi_report rep;
    st = tfr_mpi_plan_execute(MPI_COMM_WORLD, g_s, plan, (const tfr_tensor *const *)ops, &o, &out, &rep);
    CHECK(st == TFR_OK, "%s %s variant %d: %s", net->eq, tfr_dtype_name(dtype), variant,
          tfr_mpi_last_error_message());
    if (st != TFR_OK) continue;
    // The combination the header promises, the same on every rank.
    int64_t B = tfr_einsum_plan_num_blocks(plan), S = tfr_einsum_plan_num_slices(plan);
    int64_t C = S < 64 ? S : 64;
    tfr_mpi_combination want = B >= 2 && B >= (o.deterministic ? C : g_size) ? TFR_MPI_COMBINE_GATHER
                               : o.deterministic                              ? TFR_MPI_COMBINE_CHUNKS
                                                                              : TFR_MPI_COMBINE_REDUCE;
    CHECK(rep.combination == want, "%s variant %d: combination %d, expected %d", net->eq, variant,
          (int)rep.combination, (int)want);
    g_combined[rep.combination][o.deterministic]++;
    // Gathered blocks: the ranks other than the root send their share of
    // the output once, no more.
    if (g_rank == o.root && rep.combination == TFR_MPI_COMBINE_GATHER)
      CHECK(rep.total_bytes_sent <= (double)tfr_tensor_nbytes(out), "%s: %.0f bytes sent for %zu", net->eq,
            rep.total_bytes_sent, tfr_tensor_nbytes(out));
    // Every rank's slices add up to the plan's.
    int64_t total = 0;
    MPI_Allreduce(&rep.slices, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    CHECK(total == tfr_einsum_plan_num_slices(plan), "%s: %" PRId64 " slices contracted of %" PRId64,
          net->eq, total, tfr_einsum_plan_num_slices(plan));
    CHECK((g_rank == o.root) == (out != NULL), "%s: result on rank %d, root %d", net->eq, g_rank, o.root);
    // The root's result against rank 0's references.
    if (o.root != 0) {
      size_t bytes = 0;
      if (g_rank == o.root) bytes = tfr_tensor_nbytes(out);
      MPI_Bcast(&bytes, sizeof bytes, MPI_BYTE, o.root, MPI_COMM_WORLD);
      char *buf = malloc(bytes + 1);
      if (g_rank == o.root) CHECK(tfr_tensor_read(out, buf, bytes) == TFR_OK, "read");
      if (g_rank == o.root || g_rank == 0) {
        if (g_rank == o.root) MPI_Send(buf, (int)bytes, MPI_BYTE, 0, 7, MPI_COMM_WORLD);
        else MPI_Recv(buf, (int)bytes, MPI_BYTE, o.root, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
      if (g_rank == 0) {
        int64_t shape[64];
        int r = tfr_einsum_plan_output_shape(plan, shape);
        tfr_tensor_release(out);
        out = NULL;
        CHECK(tfr_tensor_from_host(dtype, r, shape, buf, &out) == TFR_OK, "from_host");
      } else {
        tfr_tensor_release(out);
        out = NULL;
      }
      free(buf);
    }
    if (g_rank == 0 && out && ref && one) {
      char why[256];
      CHECK(close_enough(ref, out, dtype, why, sizeof why), "%s variant %d: %s", net->eq, variant, why);
      if (variant == 2) CHECK(same_bytes(one, out), "%s %s: deterministic result differs from one rank's",
                              net->eq, tfr_dtype_name(dtype));
    }
    tfr_tensor_release(out);
  }
  tfr_tensor_release(ref);
  tfr_tensor_release(one);
  for (int i = 0; i < net->n; i++) tfr_tensor_release(ops[i]);
  tfr_einsum_plan_release(plan);
}

static void check_random_networks(void) {
  static const tfr_dtype dtypes[] = {TFR_F64, TFR_F32, TFR_C128, TFR_C64, TFR_I64, TFR_I32, TFR_I16,
                                     TFR_I8, TFR_U64, TFR_U32, TFR_U16, TFR_U8, TFR_BOOL, TFR_F16,
                                     TFR_BF16};
  for (int t = 0; t < 30; t++) {
    network net;
    int n = 3 + t % 5, open = t % 4 == 0 ? 0 : 1 + t % 3;
    random_network(100 + (uint64_t)t, n, 5 + t % 4, open, &net);
    tfr_dtype d = dtypes[t % 15];
    check_network(&net, d, t % 4, 1000 + (uint64_t)t);
  }
  // Each way of combining ran: gathering blocks with and without
  // determinism, adding chunks, reducing (on one rank nothing reduces).
  CHECK(g_combined[TFR_MPI_COMBINE_GATHER][0] > 0 && g_combined[TFR_MPI_COMBINE_GATHER][1] > 0 &&
            g_combined[TFR_MPI_COMBINE_CHUNKS][1] > 0 && g_combined[TFR_MPI_COMBINE_REDUCE][0] > 0,
        "combinations run: gather %d/%d, chunks %d, reduce %d", g_combined[1][0], g_combined[1][1],
        g_combined[2][1], g_combined[0][0]);
}

// Empty outputs: blocks of no elements gathered, and a sliced label of
// extent 0 (no slices, no blocks): the right empty shape on the root.
static void check_empty_outputs(void) {
  const char *eq = "ab,bc->ac";
  int ranks[2] = {2, 2};
  int64_t s0[2] = {4, 3}, s1[2] = {3, 0}, s2[2] = {0, 3}, s3[2] = {3, 5};
  const int64_t *cases[2][2] = {{s0, s1}, {s2, s3}};
  const char *sliced[2] = {"a", "a"};
  for (int c = 0; c < 2; c++) {
    tfr_einsum_plan *plan = NULL;
    if (g_rank == 0) {
      CHECK(tfr_einsum_plan_create(eq, 2, ranks, cases[c], NULL, &plan) == TFR_OK, "empty %d: plan", c);
      CHECK(plan && tfr_einsum_plan_slice(plan, sliced[c]) == TFR_OK, "empty %d: slice", c);
    }
    tfr_status st = tfr_mpi_einsum_plan_share(MPI_COMM_WORLD, 0, eq, 2, ranks, cases[c], &plan);
    CHECK(st == TFR_OK, "empty %d: share: %s", c, tfr_mpi_last_error_message());
    if (st != TFR_OK) continue;
    CHECK(tfr_einsum_plan_num_blocks(plan) == (c == 0 ? 4 : 0), "empty %d: blocks", c);
    tfr_tensor *ops[2];
    for (int i = 0; i < 2; i++) ops[i] = make_operand(TFR_F64, 2, cases[c][i], (uint64_t)i);
    for (int det = 0; det < 2; det++) {
      tfr_mpi_options o = {TFR_MPI_SCHEDULE_STATIC, det == 1, 0};
      tfr_tensor *out = NULL;
      tfr_mpi_report rep;
      st = tfr_mpi_plan_execute(MPI_COMM_WORLD, g_s, plan, (const tfr_tensor *const *)ops, &o, &out, &rep);
      CHECK(st == TFR_OK, "empty %d: execute: %s", c, tfr_mpi_last_error_message());
      if (c == 0 && g_size <= 4)
        CHECK(rep.combination == TFR_MPI_COMBINE_GATHER, "empty %d: combination %d", c, (int)rep.combination);
      if (g_rank == 0 && out) {
        int64_t want0 = c == 0 ? 4 : 0, want1 = c == 0 ? 0 : 5;
        CHECK(tfr_tensor_rank(out) == 2 && tfr_tensor_shape(out)[0] == want0 &&
                  tfr_tensor_shape(out)[1] == want1,
              "empty %d: result shape", c);
      }
      tfr_tensor_release(out);
    }
    for (int i = 0; i < 2; i++) tfr_tensor_release(ops[i]);
    tfr_einsum_plan_release(plan);
  }
}

// A rank holding a different plan fails on every rank.
static void check_different_plans(void) {
  const char *eq = "ab,bc,cd->ad";
  int ranks[3] = {2, 2, 2};
  int64_t s0[2] = {3, 4}, s1[2] = {4, 5}, s2[2] = {5, 2};
  const int64_t *shapes[3] = {s0, s1, s2};
  tfr_einsum_options o;
  memset(&o, 0, sizeof o);
  o.path_kind = TFR_EINSUM_PATH_GIVEN;
  int32_t p0[4] = {0, 1, 0, 1}, p1[4] = {1, 2, 0, 1};
  o.path = g_rank == g_size - 1 ? p1 : p0;
  o.path_len = 2;
  tfr_einsum_plan *plan = NULL;
  CHECK(tfr_einsum_plan_create(eq, 3, ranks, shapes, &o, &plan) == TFR_OK, "plan");
  tfr_tensor *ops[3];
  for (int i = 0; i < 3; i++) ops[i] = make_operand(TFR_F64, 2, shapes[i], (uint64_t)i);
  tfr_tensor *out = NULL;
  tfr_status st = tfr_mpi_plan_execute(MPI_COMM_WORLD, g_s, plan, (const tfr_tensor *const *)ops, NULL, &out, NULL);
  if (g_size > 1) {  // one rank: nothing differs
    CHECK(st == TFR_ERR_INVALID_ARGUMENT && out == NULL, "different plans: status %d", (int)st);
    CHECK(strstr(tfr_mpi_last_error_message(), "different plans") != NULL, "message: %s",
          tfr_mpi_last_error_message());
  }
  tfr_tensor_release(out);
  out = NULL;
  // A root that is not a rank.
  tfr_mpi_options bad = {TFR_MPI_SCHEDULE_STATIC, false, g_size};
  st = tfr_mpi_plan_execute(MPI_COMM_WORLD, g_s, plan, (const tfr_tensor *const *)ops, &bad, &out, NULL);
  CHECK(st == TFR_ERR_INVALID_ARGUMENT && out == NULL, "bad root: status %d", (int)st);
  // The root passes no plan to share.
  tfr_einsum_plan *none = NULL;
  st = tfr_mpi_einsum_plan_share(MPI_COMM_WORLD, 0, eq, 3, ranks, shapes, &none);
  CHECK(st == TFR_ERR_INVALID_ARGUMENT && none == NULL, "share without a plan: status %d", (int)st);
  // A network the root's path does not fit on one rank.
  tfr_einsum_plan *shared = g_rank == 0 ? plan : NULL;
  const char *eq_last = g_rank == g_size - 1 && g_size > 1 ? "ab,bc->ac" : eq;
  st = tfr_mpi_einsum_plan_share(MPI_COMM_WORLD, 0, eq_last, g_rank == g_size - 1 && g_size > 1 ? 2 : 3,
                                 ranks, shapes, &shared);
  if (g_size > 1) CHECK(st == TFR_ERR_INVALID_ARGUMENT, "share onto a different network: status %d", (int)st);
  if (g_rank != 0) tfr_einsum_plan_release(shared);
  for (int i = 0; i < 3; i++) tfr_tensor_release(ops[i]);
  tfr_einsum_plan_release(plan);
}

// A slice that fails on the last rank (an allocation made to fail there)
// fails the call on every rank with that rank's message.
static void check_failing_rank(void) {
  const char *eq = "abc,cde->abe";
  int ranks[2] = {3, 3};
  int64_t s0[3] = {4, 4, 4}, s1[3] = {4, 4, 4};
  const int64_t *shapes[2] = {s0, s1};
  tfr_einsum_plan *plan = NULL;
  if (g_rank == 0) {
    CHECK(tfr_einsum_plan_create(eq, 2, ranks, shapes, NULL, &plan) == TFR_OK, "plan");
    CHECK(tfr_einsum_plan_slice(plan, "ac") == TFR_OK, "slice");
  }
  CHECK(tfr_mpi_einsum_plan_share(MPI_COMM_WORLD, 0, eq, 2, ranks, shapes, &plan) == TFR_OK, "share");
  tfr_tensor *ops[2] = {make_operand(TFR_F64, 3, s0, 1), make_operand(TFR_F64, 3, s1, 2)};
  // Every allocation of one rank's library calls fails in turn (k = 1,
  // 2, ... until the execution succeeds), for each combination: static and
  // dynamic gathered blocks (a is an output label: 4 blocks on up to 4
  // ranks), chunks (deterministic) and a reduction (on more ranks than
  // blocks the gather gives way: N > 4 only). Every rank fails with the
  // failing rank's message, the root holds no result, nothing leaks (LSan).
  for (int variant = 0; variant < 3; variant++) {
    tfr_mpi_options o = {variant == 1 ? TFR_MPI_SCHEDULE_DYNAMIC : TFR_MPI_SCHEDULE_STATIC, variant == 2, 0};
    // Under the dynamic schedule the last rank may get no block at all: the
    // root fails there (it always allocates the result).
    int failing = variant == 1 ? 0 : g_size - 1, failures = 0;
    for (int k = 1; k <= 5000; k++) {
      if (g_rank == failing) tfr_alloc_fail_after(k);
      tfr_tensor *out = NULL;
      tfr_mpi_report rep;
      tfr_status st =
          tfr_mpi_plan_execute(MPI_COMM_WORLD, g_s, plan, (const tfr_tensor *const *)ops, &o, &out, &rep);
      tfr_alloc_fail_after(-1);
      if (st == TFR_OK) {
        CHECK((g_rank == 0) == (out != NULL), "variant %d, allocation %d: result on rank %d", variant, k,
              g_rank);
        tfr_tensor_release(out);
        break;
      }
      failures++;
      char want[32];
      snprintf(want, sizeof want, "rank %d: ", failing);
      CHECK(st == TFR_ERR_OUT_OF_MEMORY && out == NULL, "variant %d, allocation %d: status %d", variant, k,
            (int)st);
      CHECK(g_size == 1 || strncmp(tfr_mpi_last_error_message(), want, strlen(want)) == 0,
            "variant %d, allocation %d: message: %s", variant, k, tfr_mpi_last_error_message());
    }
    CHECK(failures >= 3, "variant %d: only %d allocations failed", variant, failures);
  }
  for (int i = 0; i < 2; i++) tfr_tensor_release(ops[i]);
  tfr_einsum_plan_release(plan);
}

int main(int argc, char **argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  tfr_cpu_options co;
  memset(&co, 0, sizeof co);
  co.num_threads = 1;
  tfr_backend *b = NULL;
  if (tfr_backend_create_cpu(&co, &b) != TFR_OK || tfr_session_begin(b, &g_s) != TFR_OK) {
    fprintf(stderr, "rank %d: no cpu session: %s\n", g_rank, tfr_last_error_message());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  check_random_networks();
  check_empty_outputs();
  check_different_plans();
  check_failing_rank();
  if (tfr_session_end(g_s) != TFR_OK) g_failures++;
  tfr_backend_release(b);
  int failures = 0, checks = 0;
  MPI_Allreduce(&g_failures, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&g_checks, &checks, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0) printf("test_mpi: %d ranks, %d checks, %d failed\n", g_size, checks, failures);
  MPI_Finalize();
  return failures ? 1 : 0;
}
