// Tests of the path optimisers (src/einsum/tree.c, greedy.c,
// random_greedy.c, dp.c, optimal.c): the trees against independent
// references written here (the quadratic greedy of before the priority
// queue, a brute force over every pair sequence) and numpy's einsum_path
// (tests/ref/gen_einsum_paths.py), dp against the exhaustive optimal,
// validity on generated networks of thousands of operands,
// determinism of random-greedy, treesa and partition over thread counts,
// treesa and subtree reconfiguration never worse than their start (subtree
// equal to optimal when it covers the whole network), partition on small,
// disconnected and lattice networks, and every bad option.
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "core/core.h"  // tfr_alloc_fail_after
#include "einsum/dp.h"
#include "einsum/einsum_impl.h"
#include "einsum/greedy.h"
#include "einsum/optimal.h"
#include "einsum/partition.h"
#include "einsum/subtree.h"
#include "einsum/tree.h"
#include "einsum/treesa.h"

// A generated network in integer labels.
typedef struct tnet {
  int n, nout, cap_rank;
  int *ranks;
  int32_t **lab;
  int64_t **shape;
  int32_t out[64];
} tnet;

static tnet tnet_new(int n, int cap_rank) {
  tnet t = {.n = n, .cap_rank = cap_rank};
  t.ranks = calloc((size_t)n, sizeof(int));
  t.lab = calloc((size_t)n, sizeof(int32_t *));
  t.shape = calloc((size_t)n, sizeof(int64_t *));
  assert_non_null(t.ranks);
  for (int i = 0; i < n; i++) {
    t.lab[i] = calloc((size_t)cap_rank, sizeof(int32_t));
    t.shape[i] = calloc((size_t)cap_rank, sizeof(int64_t));
    assert_true(t.lab[i] && t.shape[i]);
  }
  return t;
}

static void tnet_free(tnet *t) {
  for (int i = 0; i < t->n; i++) {
    free(t->lab[i]);
    free(t->shape[i]);
  }
  free(t->ranks);
  free(t->lab);
  free(t->shape);
}

static void tnet_axis(tnet *t, int i, int32_t label, int64_t extent) {
  assert_true(t->ranks[i] < t->cap_rank);
  t->lab[i][t->ranks[i]] = label;
  t->shape[i][t->ranks[i]++] = extent;
}

// The extent of label l in the random networks.
static int64_t tnet_extent(int32_t l) { return 2 + (l * 7 + 3) % 4; }

// n operands of rank 0..3 over `labels` labels; a label that ends up in one
// operand only is an output label half of the time, and one label shared
// by several is an output label (a batch index) a third of the time.
static tnet tnet_random(uint64_t *rng, int n, int labels) {
  tnet t = tnet_new(n, 4);
  int *count = calloc((size_t)labels, sizeof(int));
  for (int i = 0; i < n; i++) {
    int r = (int)(tfr_test_rand_u64(rng) % 4);
    for (int k = 0; k < r; k++) {
      int32_t l = (int32_t)(tfr_test_rand_u64(rng) % (uint64_t)labels);
      tnet_axis(&t, i, l, tnet_extent(l));
      count[l]++;
    }
  }
  for (int32_t l = 0; l < labels && t.nout < 60; l++) {
    uint64_t u = tfr_test_rand_u64(rng);
    if ((count[l] == 1 && u % 2 == 0) || (count[l] > 2 && u % 3 == 0)) t.out[t.nout++] = l;
  }
  free(count);
  return t;
}

// A closed R x C lattice, every bond of extent `bond`.
static tnet tnet_lattice(int R, int C, int64_t bond) {
  tnet t = tnet_new(R * C, 4);
  int32_t l = 0;
  for (int r = 0; r < R; r++)
    for (int c = 0; c < C; c++) {
      int v = r * C + c;
      if (c + 1 < C) {
        tnet_axis(&t, v, l, bond);
        tnet_axis(&t, v + 1, l++, bond);
      }
      if (r + 1 < R) {
        tnet_axis(&t, v, l, bond);
        tnet_axis(&t, v + C, l++, bond);
      }
    }
  return t;
}

// A random 3-regular multigraph on n (even) vertices: 3n stubs paired at
// random; a stub paired with its own vertex is dropped.
static tnet tnet_regular3(uint64_t *rng, int n) {
  tnet t = tnet_new(n, 3);
  int m = 3 * n;
  int *stub = malloc((size_t)m * sizeof(int));
  for (int i = 0; i < m; i++) stub[i] = i / 3;
  for (int i = m - 1; i > 0; i--) {
    int j = (int)(tfr_test_rand_u64(rng) % (uint64_t)(i + 1)), x = stub[i];
    stub[i] = stub[j];
    stub[j] = x;
  }
  for (int i = 0; i < m; i += 2)
    if (stub[i] != stub[i + 1]) {
      tnet_axis(&t, stub[i], i / 2, 2);
      tnet_axis(&t, stub[i + 1], i / 2, 2);
    }
  free(stub);
  return t;
}

static void tnet_expr(const tnet *t, tfr_einsum_expr *e) {
  TFR_ASSERT_OK(tfr_einsum_from_labels(t->n, t->ranks, (const int64_t *const *)t->shape,
                                       (const int32_t *const *)t->lab, t->nout, t->out, e));
}

static tfr_status tnet_plan(const tnet *t, const tfr_einsum_options *o, tfr_einsum_plan **p) {
  return tfr_einsum_plan_create_labels(t->n, t->ranks, (const int64_t *const *)t->shape,
                                       (const int32_t *const *)t->lab, t->nout, t->out, o, p);
}

// ---------------------------------------------------------------------------
// The greedy of before the priority queue, as the reference: every alive
// pair each step, cost = size(result) - size(a) - size(b) over pairs that
// share a label, ties by flops then by the first pair in id order; without
// connected pairs the least size(a) * size(b). Labels as bitsets of at most
// 64 labels; a label is kept when another alive tensor or the output has it.
typedef struct ref_tensor {
  uint64_t labels;
  bool alive;
} ref_tensor;

static double ref_prod(uint64_t set, const int64_t *extent) {
  double p = 1;
  for (int l = 0; l < 64; l++)
    if (set >> l & 1) p *= (double)extent[l];
  return p;
}

static void ref_greedy(const tfr_einsum_expr *e, int *ssa) {
  assert_true(e->num_labels <= 64);
  ref_tensor *t = calloc(2 * (size_t)e->n, sizeof *t);
  uint64_t outm = 0;
  for (int j = 0; j < e->num_out; j++) outm |= 1ull << e->out_labels[j];
  for (int i = 0; i < e->n; i++) {
    for (int k = 0; k < e->ranks[i]; k++) t[i].labels |= 1ull << e->labels[i][k];
    t[i].alive = true;
  }
  int num = e->n;
  for (int step = 0; step < e->n - 1; step++) {
    int ba = -1, bb = -1;
    double bcost = INFINITY, bflops = INFINITY;
    bool bconn = false;
    for (int a = 0; a < num; a++)
      for (int b = a + 1; b < num; b++) {
        if (!t[a].alive || !t[b].alive) continue;
        bool conn = (t[a].labels & t[b].labels) != 0;
        if (bconn && !conn) continue;
        uint64_t others = outm;
        for (int c = 0; c < num; c++)
          if (t[c].alive && c != a && c != b) others |= t[c].labels;
        uint64_t u = t[a].labels | t[b].labels;
        double sa = ref_prod(t[a].labels, e->extent), sb = ref_prod(t[b].labels, e->extent);
        double size = ref_prod(u & others, e->extent), flops = 2 * ref_prod(u, e->extent);
        double cost = conn ? size - sa - sb : sa * sb;
        if ((conn && !bconn) || cost < bcost || (cost == bcost && flops < bflops)) {
          ba = a, bb = b, bcost = cost, bflops = flops, bconn = conn;
        }
      }
    uint64_t others = outm;
    for (int c = 0; c < num; c++)
      if (t[c].alive && c != ba && c != bb) others |= t[c].labels;
    t[num].labels = (t[ba].labels | t[bb].labels) & others;
    t[num].alive = true;
    t[ba].alive = t[bb].alive = false;
    num++;
    ssa[2 * step] = ba;
    ssa[2 * step + 1] = bb;
  }
  free(t);
}

// Greedy (priority queue) makes the reference's choices, on random networks
// with hyperedges, output labels, scalars and disconnected parts.
static void test_greedy_matches_reference(void **state) {
  (void)state;
  uint64_t rng = 2024;
  for (int trial = 0; trial < 300; trial++) {
    int n = 2 + (int)(tfr_test_rand_u64(&rng) % 13);
    tnet t = tnet_random(&rng, n, 3 + (int)(tfr_test_rand_u64(&rng) % 12));
    tfr_einsum_expr e = {0};
    tnet_expr(&t, &e);
    int *want = calloc(2 * (size_t)n, sizeof(int));
    int32_t *want_pos = calloc(2 * (size_t)n, sizeof(int32_t));
    ref_greedy(&e, want);
    TFR_ASSERT_OK(tfr_ssa_to_positions(n, want, want_pos));
    tfr_einsum_plan *p = NULL;
    TFR_ASSERT_OK(tnet_plan(&t, &(tfr_einsum_options){0}, &p));  // greedy
    const int32_t *got = tfr_einsum_plan_path(p);
    for (int k = 0; k < 2 * (n - 1); k++)
      if (got[k] != want_pos[k]) {
        print_error("network %d (%d operands): step %d differs\n", trial, n, k / 2);
        fail();
      }
    tfr_einsum_plan_release(p);
    free(want);
    free(want_pos);
    tfr_einsum_expr_free(&e);
    tnet_free(&t);
  }
}

// ---------------------------------------------------------------------------
// Brute force: the least cost of every kind over every sequence of pairs.
static void brute(tfr_replay *r, const tfr_einsum_expr *e, int step, tfr_tree_cost acc,
                  double best[4]) {
  if (step == e->n - 1) {
    for (int m = 0; m < 4; m++)
      best[m] = fmin(best[m], tfr_cost_score((tfr_einsum_minimize)m, 64, &acc));
    return;
  }
  for (int a = 0; a < r->num_nodes; a++)
    for (int b = a + 1; b < r->num_nodes; b++) {
      if (!r->nodes[a].alive || !r->nodes[b].alive) continue;
      int *saved = malloc(((size_t)e->num_labels + 1) * sizeof(int));
      memcpy(saved, r->refs, (size_t)e->num_labels * sizeof(int));
      int id;
      double size, flops;
      TFR_ASSERT_OK(tfr_replay_contract(r, step, a, b, &id, &size, &flops));
      tfr_tree_cost next = {acc.flops + flops, fmax(acc.size, size), acc.write + size};
      brute(r, e, step + 1, next, best);
      // Undo the step.
      tfr_free(r->nodes[id].labels);
      r->nodes[id].labels = NULL;
      r->num_nodes--;
      r->nodes[a].alive = r->nodes[b].alive = true;
      memcpy(r->refs, saved, (size_t)e->num_labels * sizeof(int));
      free(saved);
    }
}

// optimal and dp reach the brute force's least cost for every cost kind;
// dp equals optimal on larger random networks too.
static void test_optimal_and_dp_exact(void **state) {
  (void)state;
  uint64_t rng = 77;
  for (int trial = 0; trial < 120; trial++) {
    int n = trial < 60 ? 2 + (int)(tfr_test_rand_u64(&rng) % 4)
                       : 6 + (int)(tfr_test_rand_u64(&rng) % 5);
    tnet t = tnet_random(&rng, n, 3 + (int)(tfr_test_rand_u64(&rng) % 8));
    tfr_einsum_expr e = {0};
    tnet_expr(&t, &e);
    double best[4] = {INFINITY, INFINITY, INFINITY, INFINITY};
    if (n <= 5) {
      tfr_replay r;
      TFR_ASSERT_OK(tfr_replay_init(&r, &e));
      brute(&r, &e, 0, (tfr_tree_cost){0, 0, 0}, best);
      tfr_replay_free(&r);
    }
    tfr_net net;
    TFR_ASSERT_OK(tfr_net_init(&net, &e));
    int *ssa = calloc(2 * (size_t)n, sizeof(int));
    for (int m = 0; m < 4; m++) {
      tfr_tree_cost co, cd;
      TFR_ASSERT_OK(tfr_optimal(&net, (tfr_einsum_minimize)m, 64, ssa));
      TFR_ASSERT_OK(tfr_ssa_cost(&e, ssa, &co));
      TFR_ASSERT_OK(tfr_dp(&net, (tfr_einsum_minimize)m, 64, 0, ssa));
      TFR_ASSERT_OK(tfr_ssa_cost(&e, ssa, &cd));
      double so = tfr_cost_score((tfr_einsum_minimize)m, 64, &co);
      double sd = tfr_cost_score((tfr_einsum_minimize)m, 64, &cd);
      if (fabs(so - sd) > 1e-9 * so || (n <= 5 && fabs(so - best[m]) > 1e-9 * so)) {
        print_error("network %d (%d operands), minimize %s: optimal %.17g, dp %.17g, brute "
                    "force %.17g\n", trial, n, tfr_einsum_minimize_name((tfr_einsum_minimize)m),
                    so, sd, best[m]);
        fail();
      }
    }
    free(ssa);
    tfr_net_free(&net);
    tfr_einsum_expr_free(&e);
    tnet_free(&t);
  }
}

// Beyond TFR_EINSUM_DP_OUTER_MAX operands dp searches connected subsets
// only; on a connected network greedy's tree is one of those, so dp needs
// no more flops than greedy. Through the public API, with the statistics.
static void test_dp_connected_beats_greedy(void **state) {
  (void)state;
  uint64_t rng = 5;
  for (int trial = 0; trial < 20; trial++) {
    int n = 14 + (int)(tfr_test_rand_u64(&rng) % 10);
    // A ring with random chords: connected.
    tnet t = tnet_new(n, 4);
    int32_t l = 0;
    for (int i = 0; i < n; i++) {
      tnet_axis(&t, i, l, tnet_extent(l));
      tnet_axis(&t, (i + 1) % n, l, tnet_extent(l));
      l++;
    }
    for (int c = 0; c < n / 3; c++) {
      int a = (int)(tfr_test_rand_u64(&rng) % (uint64_t)n), b = (a + 2 + c) % n;
      if (t.ranks[a] < 4 && t.ranks[b] < 4) {
        tnet_axis(&t, a, l, tnet_extent(l));
        tnet_axis(&t, b, l, tnet_extent(l));
        l++;
      }
    }
    tfr_einsum_plan *g = NULL, *d = NULL;
    tfr_einsum_options og = {.path_kind = TFR_EINSUM_PATH_GREEDY};
    tfr_einsum_options od = {.path_kind = TFR_EINSUM_PATH_DP};
    TFR_ASSERT_OK(tnet_plan(&t, &og, &g));
    TFR_ASSERT_OK(tnet_plan(&t, &od, &d));
    assert_true(tfr_einsum_plan_info(d)->flops <= tfr_einsum_plan_info(g)->flops * (1 + 1e-12));
    // dp's size-minimal tree has no larger intermediate than greedy's.
    od.minimize = TFR_EINSUM_MINIMIZE_SIZE;
    tfr_einsum_plan_release(d);
    TFR_ASSERT_OK(tnet_plan(&t, &od, &d));
    assert_true(tfr_einsum_plan_info(d)->largest_intermediate <=
                tfr_einsum_plan_info(g)->largest_intermediate);
    tfr_einsum_plan_release(g);
    tfr_einsum_plan_release(d);
    tnet_free(&t);
  }
}

// ---------------------------------------------------------------------------
// Networks of thousands of operands: a valid tree (every tensor consumed
// once, every step's ids alive) from greedy and random-greedy.
static void check_valid_tree(const tfr_einsum_expr *e, const int *ssa, const tfr_tree_cost *c) {
  tfr_tree t;
  TFR_ASSERT_OK(tfr_tree_from_ssa(e->n, ssa, &t));
  int *again = calloc(2 * (size_t)e->n, sizeof(int));
  TFR_ASSERT_OK(tfr_tree_to_ssa(&t, again));
  tfr_tree_cost c1, c2;
  TFR_ASSERT_OK(tfr_ssa_cost(e, ssa, &c1));
  TFR_ASSERT_OK(tfr_ssa_cost(e, again, &c2));  // the same tree, renumbered
  assert_true(c1.flops == c2.flops && c1.size == c2.size && c1.write == c2.write);
  if (c) assert_true(fabs(c->flops - c1.flops) <= 1e-12 * c1.flops && c->size == c1.size);
  free(again);
  tfr_tree_free(&t);
}

static void test_large_networks(void **state) {
  (void)state;
  uint64_t rng = 31;
  tnet nets[2] = {tnet_lattice(20, 120, 2), tnet_regular3(&rng, 2400)};
  for (int k = 0; k < 2; k++) {
    tfr_einsum_expr e = {0};
    tnet_expr(&nets[k], &e);
    tfr_net net;
    TFR_ASSERT_OK(tfr_net_init(&net, &e));
    int *ssa = calloc(2 * (size_t)e.n, sizeof(int));
    tfr_tree_cost c;
    TFR_ASSERT_OK(tfr_greedy_run(&net, &(tfr_greedy_params){1, 0, NULL, false}, ssa, &c));
    check_valid_tree(&e, ssa, &c);
    uint64_t r = 9;
    TFR_ASSERT_OK(tfr_greedy_run(&net, &(tfr_greedy_params){1.3, 0.1, &r, true}, ssa, &c));
    check_valid_tree(&e, ssa, &c);
    tfr_einsum_options op = {.path_kind = TFR_EINSUM_PATH_PARTITION, .trials = 2, .seed = 3,
                             .combo_alpha = 64};
    TFR_ASSERT_OK(tfr_partition(&net, &op, ssa));
    check_valid_tree(&e, ssa, NULL);
    free(ssa);
    tfr_net_free(&net);
    tfr_einsum_expr_free(&e);
  }
  // The lattice through the public API (its greedy tree fits in 2^50).
  tfr_einsum_plan *p = NULL;
  tfr_einsum_options o = {.path_kind = TFR_EINSUM_PATH_RANDOM_GREEDY, .trials = 4};
  TFR_ASSERT_OK(tnet_plan(&nets[0], &o, &p));
  assert_int_equal(tfr_einsum_plan_info(p)->num_steps, 2399);
  tfr_einsum_plan_release(p);
  tnet_free(&nets[0]);
  tnet_free(&nets[1]);
}

// ---------------------------------------------------------------------------
// random-greedy: the same tree for a seed on 1 and 2 threads, never worse
// than greedy in the cost it minimises.
static void test_random_greedy(void **state) {
  (void)state;
  tnet t = tnet_lattice(8, 12, 3);
  tfr_einsum_plan *g = NULL;
  TFR_ASSERT_OK(tnet_plan(&t, &(tfr_einsum_options){0}, &g));  // greedy
  for (int m = 0; m < 2; m++) {
    tfr_einsum_options o = {.path_kind = TFR_EINSUM_PATH_RANDOM_GREEDY, .seed = 42, .trials = 24,
                            .minimize = (tfr_einsum_minimize)m};
    tfr_einsum_plan *p[2] = {NULL, NULL};
    for (int threads = 1; threads <= 2; threads++) {
      omp_set_num_threads(threads);
      TFR_ASSERT_OK(tnet_plan(&t, &o, &p[threads - 1]));
    }
    assert_memory_equal(tfr_einsum_plan_path(p[0]), tfr_einsum_plan_path(p[1]),
                        2 * (size_t)(t.n - 1) * sizeof(int32_t));
    const tfr_einsum_path_info *ip = tfr_einsum_plan_info(p[0]), *ig = tfr_einsum_plan_info(g);
    if (m == 0) assert_true(ip->flops <= ig->flops);
    else assert_true(ip->largest_intermediate <= ig->largest_intermediate);
    tfr_einsum_plan_release(p[0]);
    tfr_einsum_plan_release(p[1]);
  }
  omp_set_num_threads(2);
  tfr_einsum_plan_release(g);
  tnet_free(&t);
}

// ---------------------------------------------------------------------------
// treesa, partition and subtree reconfiguration on the random networks,
// for every cost: valid trees, never worse than greedy's; subtree
// refinement never worse than its input, and optimal when its k covers
// every operand; partition optimal up to its smallest cutoff.
static void test_treesa_and_subtree_random(void **state) {
  (void)state;
  uint64_t rng = 4242;
  for (int trial = 0; trial < 300; trial++) {
    int n = 2 + (int)(tfr_test_rand_u64(&rng) % 13);
    tnet t = tnet_random(&rng, n, 3 + (int)(tfr_test_rand_u64(&rng) % 12));
    tfr_einsum_expr e = {0};
    tnet_expr(&t, &e);
    tfr_net net;
    TFR_ASSERT_OK(tfr_net_init(&net, &e));
    int *g = calloc(2 * (size_t)n, sizeof(int)), *ssa = calloc(2 * (size_t)n, sizeof(int));
    tfr_tree_cost cg, c;
    TFR_ASSERT_OK(tfr_greedy_run(&net, &(tfr_greedy_params){1, 0, NULL, false}, g, &cg));
    for (int m = 0; m < 4; m++) {
      tfr_einsum_minimize mm = (tfr_einsum_minimize)m;
      double sg = tfr_cost_score(mm, 64, &cg);
      // Subtree refinement of greedy's tree, k = 8.
      memcpy(ssa, g, 2 * (size_t)(n > 1 ? n - 1 : 0) * sizeof(int));
      TFR_ASSERT_OK(tfr_subtree_refine(&net, mm, 64, 8, 0, 0, ssa));
      check_valid_tree(&e, ssa, NULL);
      TFR_ASSERT_OK(tfr_ssa_cost(&e, ssa, &c));
      double ss = tfr_cost_score(mm, 64, &c);
      assert_true(ss <= sg);
      if (n <= 8) {
        int *o = calloc(2 * (size_t)n, sizeof(int));
        tfr_tree_cost co;
        TFR_ASSERT_OK(tfr_optimal(&net, mm, 64, o));
        TFR_ASSERT_OK(tfr_ssa_cost(&e, o, &co));
        double so = tfr_cost_score(mm, 64, &co);
        if (fabs(ss - so) > 1e-9 * so) {
          print_error("network %d (%d operands), minimize %s: subtree %.17g, optimal %.17g\n",
                      trial, n, tfr_einsum_minimize_name(mm), ss, so);
          fail();
        }
        free(o);
      }
      // treesa, 2 runs.
      tfr_einsum_options o = {.path_kind = TFR_EINSUM_PATH_TREESA, .minimize = mm, .trials = 2,
                              .seed = (uint64_t)trial, .combo_alpha = 64};
      TFR_ASSERT_OK(tfr_treesa(&net, &o, ssa));
      check_valid_tree(&e, ssa, NULL);
      TFR_ASSERT_OK(tfr_ssa_cost(&e, ssa, &c));
      assert_true(tfr_cost_score(mm, 64, &c) <= sg);
      // partition, 3 trials: a valid tree, never worse than greedy's; up
      // to the smallest cutoff the one least-cost tree (as optimal).
      o.path_kind = TFR_EINSUM_PATH_PARTITION;
      o.trials = 3;
      TFR_ASSERT_OK(tfr_partition(&net, &o, ssa));
      check_valid_tree(&e, ssa, NULL);
      TFR_ASSERT_OK(tfr_ssa_cost(&e, ssa, &c));
      assert_true(tfr_cost_score(mm, 64, &c) <= sg);
      if (n <= TFR_PARTITION_CUTOFF_MIN) {
        int *opt = calloc(2 * (size_t)n, sizeof(int));
        tfr_tree_cost cp, co;
        TFR_ASSERT_OK(tfr_optimal(&net, mm, 64, opt));
        TFR_ASSERT_OK(tfr_ssa_cost(&e, opt, &co));
        TFR_ASSERT_OK(tfr_ssa_cost(&e, ssa, &cp));
        double sp = tfr_cost_score(mm, 64, &cp), so = tfr_cost_score(mm, 64, &co);
        assert_true(fabs(sp - so) <= 1e-9 * so);
        free(opt);
      }
    }
    free(g);
    free(ssa);
    tfr_net_free(&net);
    tfr_einsum_expr_free(&e);
    tnet_free(&t);
  }
}

// treesa through the public API: the same tree for a seed on 1 and 2
// threads (also refined with another subtree size, and greedy + subtree),
// never worse than greedy in the cost minimised; a lattice of 2,400
// operands gives a valid tree; a spent time budget still gives one.
static void test_treesa_deterministic(void **state) {
  (void)state;
  uint64_t rng = 5;
  tnet nets[2] = {tnet_lattice(8, 12, 3), tnet_regular3(&rng, 120)};
  for (int k = 0; k < 2; k++) {
    tnet *t = &nets[k];
    tfr_einsum_plan *g = NULL;
    TFR_ASSERT_OK(tnet_plan(t, &(tfr_einsum_options){0}, &g));  // greedy
    const tfr_einsum_options opts[] = {
        {.path_kind = TFR_EINSUM_PATH_TREESA, .seed = 7},
        {.path_kind = TFR_EINSUM_PATH_TREESA, .seed = 8, .trials = 3, .subtree_size = 5,
         .minimize = TFR_EINSUM_MINIMIZE_SIZE},
        {.path_kind = TFR_EINSUM_PATH_GREEDY, .subtree_size = 8},
    };
    for (int j = 0; j < 3; j++) {
      tfr_einsum_plan *p[2] = {NULL, NULL};
      for (int threads = 1; threads <= 2; threads++) {
        omp_set_num_threads(threads);
        TFR_ASSERT_OK(tnet_plan(t, &opts[j], &p[threads - 1]));
      }
      assert_memory_equal(tfr_einsum_plan_path(p[0]), tfr_einsum_plan_path(p[1]),
                          2 * (size_t)(t->n - 1) * sizeof(int32_t));
      const tfr_einsum_path_info *ip = tfr_einsum_plan_info(p[0]), *ig = tfr_einsum_plan_info(g);
      if (opts[j].minimize == TFR_EINSUM_MINIMIZE_SIZE)
        assert_true(ip->largest_intermediate <= ig->largest_intermediate);
      else assert_true(ip->flops <= ig->flops);
      print_message("network %d, options %d: flops %.4gx greedy's, largest %.4gx\n", k, j,
                    ip->flops / ig->flops,
                    (double)ip->largest_intermediate / (double)ig->largest_intermediate);
      tfr_einsum_plan_release(p[0]);
      tfr_einsum_plan_release(p[1]);
    }
    tfr_einsum_plan_release(g);
  }
  omp_set_num_threads(2);
  tnet big = tnet_lattice(20, 120, 2);
  tfr_einsum_plan *p = NULL, *g = NULL;
  tfr_einsum_options o = {.path_kind = TFR_EINSUM_PATH_TREESA, .trials = 2, .seed = 1};
  TFR_ASSERT_OK(tnet_plan(&big, &o, &p));
  TFR_ASSERT_OK(tnet_plan(&big, &(tfr_einsum_options){0}, &g));  // greedy
  assert_int_equal(tfr_einsum_plan_info(p)->num_steps, 2399);
  assert_true(tfr_einsum_plan_info(p)->flops <= tfr_einsum_plan_info(g)->flops);
  tfr_einsum_plan_release(p);
  o.max_time = 1e-9;
  o.subtree_size = 8;
  TFR_ASSERT_OK(tnet_plan(&big, &o, &p));
  assert_true(tfr_einsum_plan_info(p)->flops <= tfr_einsum_plan_info(g)->flops);
  tfr_einsum_plan_release(p);
  tfr_einsum_plan_release(g);
  tnet_free(&big);
  tnet_free(&nets[0]);
  tnet_free(&nets[1]);
}

// ---------------------------------------------------------------------------
// partition through the public API: the same tree for a seed on 1 and 2
// threads; 1, 2 and 3 operands, scalars, outer products and disconnected
// networks give valid plans; never worse than greedy in the cost
// minimised, and on a 20 x 20 lattice of bonds of extent 2 far below it.
static void test_partition(void **state) {
  (void)state;
  uint64_t rng = 11;
  tnet nets[3] = {tnet_lattice(8, 12, 3), tnet_regular3(&rng, 120), tnet_random(&rng, 60, 50)};
  for (int k = 0; k < 3; k++) {
    tfr_einsum_plan *g = NULL;
    TFR_ASSERT_OK(tnet_plan(&nets[k], &(tfr_einsum_options){0}, &g));  // greedy
    const tfr_einsum_options opts[] = {
        {.path_kind = TFR_EINSUM_PATH_PARTITION, .seed = 7},
        {.path_kind = TFR_EINSUM_PATH_PARTITION, .seed = 8, .trials = 5, .subtree_size = 5,
         .minimize = TFR_EINSUM_MINIMIZE_SIZE},
    };
    for (int j = 0; j < 2; j++) {
      tfr_einsum_plan *p[2] = {NULL, NULL};
      for (int threads = 1; threads <= 2; threads++) {
        omp_set_num_threads(threads);
        TFR_ASSERT_OK(tnet_plan(&nets[k], &opts[j], &p[threads - 1]));
      }
      assert_int_equal(tfr_einsum_plan_info(p[0])->num_steps, nets[k].n - 1);
      assert_memory_equal(tfr_einsum_plan_path(p[0]), tfr_einsum_plan_path(p[1]),
                          2 * (size_t)(nets[k].n - 1) * sizeof(int32_t));
      const tfr_einsum_path_info *ip = tfr_einsum_plan_info(p[0]), *ig = tfr_einsum_plan_info(g);
      if (opts[j].minimize == TFR_EINSUM_MINIMIZE_SIZE)
        assert_true(ip->largest_intermediate <= ig->largest_intermediate);
      else assert_true(ip->flops <= ig->flops);
      tfr_einsum_plan_release(p[0]);
      tfr_einsum_plan_release(p[1]);
    }
    tfr_einsum_plan_release(g);
    tnet_free(&nets[k]);
  }
  omp_set_num_threads(2);
  // Small, scalar, outer-product and disconnected expressions.
  static const struct {
    const char *expr;
    int n;
    int ranks[6];
  } small[] = {
      {"ij->", 1, {2}},
      {"ij,jk->ik", 2, {2, 2}},
      {"ij,jk,kl->il", 3, {2, 2, 2}},
      {",ij,->ij", 3, {0, 2, 0}},
      {"i,j,k->ijk", 3, {1, 1, 1}},
      {"ij,jk,ab,bc,x,yz->ikacxyz", 6, {2, 2, 2, 2, 1, 2}},
  };
  const int64_t dims[2] = {3, 3};
  const int64_t *shapes[6] = {dims, dims, dims, dims, dims, dims};
  for (size_t i = 0; i < sizeof small / sizeof small[0]; i++) {
    tfr_einsum_options o = {.path_kind = TFR_EINSUM_PATH_PARTITION, .seed = 1};
    tfr_einsum_plan *p = NULL;
    TFR_ASSERT_OK(tfr_einsum_plan_create(small[i].expr, small[i].n, small[i].ranks, shapes, &o, &p));
    assert_int_equal(tfr_einsum_plan_info(p)->num_steps, small[i].n - 1);
    tfr_einsum_plan_release(p);
  }
  // Disconnected: two lattices side by side, plus scalars.
  tnet two = tnet_new(2 * 30 + 2, 4);
  for (int half = 0; half < 2; half++) {
    tnet l = tnet_lattice(5, 6, 2);
    for (int v = 0; v < 30; v++)
      for (int a = 0; a < l.ranks[v]; a++)
        tnet_axis(&two, half * 30 + v, l.lab[v][a] + half * 1000, 2);
    tnet_free(&l);
  }
  tfr_einsum_plan *p = NULL, *g = NULL;
  tfr_einsum_options o = {.path_kind = TFR_EINSUM_PATH_PARTITION, .seed = 2, .trials = 4};
  TFR_ASSERT_OK(tnet_plan(&two, &o, &p));
  assert_int_equal(tfr_einsum_plan_info(p)->num_steps, two.n - 1);
  tfr_einsum_plan_release(p);
  tnet_free(&two);
  // The 20 x 20 lattice: flops against greedy's, both counted by the library.
  tnet lat = tnet_lattice(20, 20, 2);
  TFR_ASSERT_OK(tnet_plan(&lat, &o, &p));
  TFR_ASSERT_OK(tnet_plan(&lat, &(tfr_einsum_options){0}, &g));  // greedy
  double ratio = tfr_einsum_plan_info(p)->flops / tfr_einsum_plan_info(g)->flops;
  print_message("20 x 20 lattice: partition's flops %.4gx greedy's\n", ratio);
  assert_true(ratio <= 0.5);
  tfr_einsum_plan_release(p);
  tfr_einsum_plan_release(g);
  tnet_free(&lat);
}

// ---------------------------------------------------------------------------
// Trees and costs on the matrix chain [10x100][100x5][5x50].
static void test_tree_and_costs(void **state) {
  (void)state;
  tnet t = tnet_new(3, 2);
  tnet_axis(&t, 0, 0, 10);
  tnet_axis(&t, 0, 1, 100);
  tnet_axis(&t, 1, 1, 100);
  tnet_axis(&t, 1, 2, 5);
  tnet_axis(&t, 2, 2, 5);
  tnet_axis(&t, 2, 3, 50);
  t.out[0] = 0;
  t.out[1] = 3;
  t.nout = 2;
  tfr_einsum_expr e = {0};
  tnet_expr(&t, &e);
  tfr_tree_cost c;
  TFR_ASSERT_OK(tfr_ssa_cost(&e, (int[]){0, 1, 3, 2}, &c));  // (AB)C
  assert_true(c.flops == 15000 && c.size == 500 && c.write == 550);
  assert_true(tfr_cost_score(TFR_EINSUM_MINIMIZE_COMBO, 64, &c) == 15000 + 64 * 550);
  assert_true(tfr_cost_score(TFR_EINSUM_MINIMIZE_WRITE, 64, &c) == 550);
  TFR_ASSERT_OK(tfr_ssa_cost(&e, (int[]){1, 2, 0, 3}, &c));  // A(BC)
  assert_true(c.flops == 150000 && c.size == 5000 && c.write == 5500);
  // Tree round trip: a tree numbered top-down gives back post-order SSA.
  tfr_tree tree = {3, (int[]){4, 2, 0, 1}};  // node 3 = (node 4, C), node 4 = (A, B)
  int ssa[4];
  TFR_ASSERT_OK(tfr_tree_to_ssa(&tree, ssa));
  assert_memory_equal(ssa, ((int[]){0, 1, 3, 2}), sizeof ssa);
  // Bad pair lists and trees.
  tfr_tree bad;
  TFR_ASSERT_ERROR(tfr_tree_from_ssa(3, (int[]){0, 1, 0, 2}, &bad), TFR_ERR_INVALID_ARGUMENT,
                   "step 1", "0 and 2");
  tfr_tree_free(&bad);
  TFR_ASSERT_ERROR(tfr_tree_from_ssa(3, (int[]){0, 4, 1, 2}, &bad), TFR_ERR_INVALID_ARGUMENT,
                   "step 0");
  tfr_tree_free(&bad);
  TFR_ASSERT_ERROR(tfr_ssa_cost(&e, (int[]){0, 0, 1, 2}, &c), TFR_ERR_INVALID_ARGUMENT, "step 0");
  tfr_tree loop = {3, (int[]){0, 1, 3, 3}};
  TFR_ASSERT_ERROR(tfr_tree_to_ssa(&loop, ssa), TFR_ERR_INVALID_ARGUMENT, "not one tree");
  tfr_tree orphan = {3, (int[]){0, 1, 0, 3}};
  TFR_ASSERT_ERROR(tfr_tree_to_ssa(&orphan, ssa), TFR_ERR_INVALID_ARGUMENT, "not one tree");
  tfr_einsum_expr_free(&e);
  tnet_free(&t);
}

// ---------------------------------------------------------------------------
static void test_names_and_bad_options(void **state) {
  (void)state;
  const char *names[] = {"greedy", "optimal", "random-greedy", "dp", "treesa", "partition"};
  for (int i = 0; i < 6; i++) {
    tfr_einsum_path_kind k;
    TFR_ASSERT_OK(tfr_einsum_path_kind_from_name(names[i], &k));
    assert_string_equal(tfr_einsum_path_kind_name(k), names[i]);
  }
  tfr_einsum_path_kind k;
  TFR_ASSERT_OK(tfr_einsum_path_kind_from_name("random_greedy", &k));
  assert_int_equal(k, TFR_EINSUM_PATH_RANDOM_GREEDY);
  assert_string_equal(tfr_einsum_path_kind_name(TFR_EINSUM_PATH_GIVEN), "given");
  assert_string_equal(tfr_einsum_path_kind_name((tfr_einsum_path_kind)77), "?");
  TFR_ASSERT_ERROR(tfr_einsum_path_kind_from_name("annealing", &k), TFR_ERR_INVALID_ARGUMENT,
                   "'annealing'", "random-greedy", "treesa", "partition");
  TFR_ASSERT_ERROR(tfr_einsum_path_kind_from_name(NULL, &k), TFR_ERR_INVALID_ARGUMENT, "name");
  const char *costs[] = {"flops", "size", "write", "combo"};
  for (int i = 0; i < 4; i++) {
    tfr_einsum_minimize m;
    TFR_ASSERT_OK(tfr_einsum_minimize_from_name(costs[i], &m));
    assert_int_equal(m, i);
    assert_string_equal(tfr_einsum_minimize_name(m), costs[i]);
  }
  tfr_einsum_minimize m;
  TFR_ASSERT_ERROR(tfr_einsum_minimize_from_name("bytes", &m), TFR_ERR_INVALID_ARGUMENT,
                   "'bytes'", "combo");
  // Bad options are refused before any search.
  const int ranks[2] = {2, 2};
  const int64_t s0[2] = {3, 4}, s1[2] = {4, 5};
  const int64_t *shapes[2] = {s0, s1};
  tfr_einsum_plan *p = NULL;
  struct {
    tfr_einsum_options o;
    const char *msg;
  } bad[] = {
      {{.path_kind = TFR_EINSUM_PATH_RANDOM_GREEDY, .trials = -1}, "trials is -1"},
      {{.path_kind = TFR_EINSUM_PATH_RANDOM_GREEDY, .max_time = -0.5}, "max_time is -0.5"},
      {{.path_kind = TFR_EINSUM_PATH_RANDOM_GREEDY, .max_time = NAN}, "max_time"},
      {{.path_kind = TFR_EINSUM_PATH_DP, .combo_alpha = -2}, "combo_alpha is -2"},
      {{.path_kind = TFR_EINSUM_PATH_DP, .minimize = (tfr_einsum_minimize)9}, "cost to minimize 9"},
      {{.path_kind = (tfr_einsum_path_kind)42}, "path kind 42"},
      {{.path_kind = TFR_EINSUM_PATH_TREESA, .trials = -3}, "trials is -3"},
      {{.path_kind = TFR_EINSUM_PATH_GREEDY, .subtree_size = -1}, "subtree_size is -1"},
      {{.path_kind = TFR_EINSUM_PATH_TREESA, .subtree_size = 17}, "subtree_size is 17"},
      {{.path_kind = TFR_EINSUM_PATH_PARTITION, .trials = -2}, "trials is -2"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    TFR_ASSERT_ERROR(tfr_einsum_plan_create("ij,jk->ik", 2, ranks, shapes, &bad[i].o, &p),
                     TFR_ERR_INVALID_ARGUMENT, bad[i].msg);
    assert_null(p);
  }
  // dp refuses a component of more than TFR_EINSUM_DP_MAX operands: a chain
  // of 70 matrices.
  tnet chain = tnet_new(70, 2);
  for (int i = 0; i < 70; i++) {
    tnet_axis(&chain, i, i, 3);
    tnet_axis(&chain, i, i + 1, 3);
  }
  tfr_einsum_options od = {.path_kind = TFR_EINSUM_PATH_DP};
  TFR_ASSERT_ERROR(tnet_plan(&chain, &od, &p), TFR_ERR_INVALID_ARGUMENT, "at most 64", "of 70");
  assert_null(p);
  tnet_free(&chain);
  // A spent time budget: dp gives up (its first pass checks the clock
  // before any pair, and a nanosecond is gone by then); random-greedy runs
  // only its first trial, the plain greedy.
  tnet ring = tnet_lattice(4, 5, 3);
  od.max_time = 1e-9;
  TFR_ASSERT_ERROR(tnet_plan(&ring, &od, &p), TFR_ERR_INVALID_ARGUMENT, "time budget", "20 operands");
  assert_null(p);
  tfr_einsum_plan *g = NULL;
  tfr_einsum_options orr = {.path_kind = TFR_EINSUM_PATH_RANDOM_GREEDY, .max_time = 1e-9, .seed = 3};
  TFR_ASSERT_OK(tnet_plan(&ring, &orr, &p));
  TFR_ASSERT_OK(tnet_plan(&ring, &(tfr_einsum_options){0}, &g));  // greedy
  assert_memory_equal(tfr_einsum_plan_path(p), tfr_einsum_plan_path(g), 2 * 19 * sizeof(int32_t));
  tfr_einsum_plan_release(p);
  tfr_einsum_plan_release(g);
  tnet_free(&ring);
}

// numpy's optimize="optimal" paths (tests/ref/gen_einsum_paths.py): our
// optimal and dp need no more flops (counted by tenferro) than numpy's path,
// and random-greedy no more than greedy.
static void test_against_numpy_paths(void **state) {
  (void)state;
  char file[1200];
  snprintf(file, sizeof file, "%s/einsum_paths/cases.txt", TFR_TEST_DATA_DIR);
  FILE *f = fopen(file, "r");
  assert_non_null(f);
  char id[16], expr[128], shp[256], pth[256];
  int count = 0, better = 0;
  while (fscanf(f, "%15s %127s %255s %255s", id, expr, shp, pth) == 4) {
    int n = 0, ranks[16] = {0};
    int64_t dims[16][4];
    const int64_t *shapes[16];
    for (const char *c = shp; *c; c++) {  // "2x3,3x4,4"
      assert_true(n < 16 && ranks[n] < 4);
      dims[n][ranks[n]++] = strtol(c, (char **)&c, 10);
      if (*c == ',') n++;
      if (!*c) break;
    }
    n++;
    for (int i = 0; i < n; i++) shapes[i] = dims[i];
    int32_t given[32];
    int steps = 0;
    for (const char *c = pth; *c; c++) {  // "0-1,0-1"
      given[2 * steps] = (int32_t)strtol(c, (char **)&c, 10);
      given[2 * steps + 1] = (int32_t)strtol(c + 1, (char **)&c, 10);
      steps++;
      if (!*c) break;
    }
    assert_int_equal(steps, n - 1);
    tfr_einsum_options o[5] = {
        {.path_kind = TFR_EINSUM_PATH_GIVEN, .path = given, .path_len = steps},
        {.path_kind = TFR_EINSUM_PATH_OPTIMAL},
        {.path_kind = TFR_EINSUM_PATH_DP},
        {.path_kind = TFR_EINSUM_PATH_GREEDY},
        {.path_kind = TFR_EINSUM_PATH_RANDOM_GREEDY, .trials = 16, .seed = (uint64_t)count},
    };
    double flops[5];
    for (int k = 0; k < 5; k++) {
      tfr_einsum_plan *p = NULL;
      tfr_status st = tfr_einsum_plan_create(expr, n, ranks, shapes, &o[k], &p);
      if (st != TFR_OK) {
        print_error("%s %s: %s\n", id, expr, tfr_last_error_message());
        fail();
      }
      flops[k] = tfr_einsum_plan_info(p)->flops;
      tfr_einsum_plan_release(p);
    }
    if (flops[1] > flops[0] * (1 + 1e-12) || flops[2] > flops[0] * (1 + 1e-12) ||
        flops[4] > flops[3]) {
      print_error("%s %s: numpy's path %.17g flops, optimal %.17g, dp %.17g, greedy %.17g, "
                  "random-greedy %.17g\n", id, expr, flops[0], flops[1], flops[2], flops[3],
                  flops[4]);
      fail();
    }
    better += flops[1] < flops[0] * (1 - 1e-12);
    count++;
  }
  fclose(f);
  assert_int_equal(count, 80);
  print_message("numpy's optimal paths: ours needs fewer flops in %d of %d cases\n", better, count);
}

// Every allocation of every optimiser failing in turn: an out-of-memory
// error, no plan, nothing leaked (the sanitizer build checks the leaks).
static void test_out_of_memory(void **state) {
  (void)state;
  tnet t = tnet_lattice(3, 5, 2);
  tfr_einsum_path_kind kinds[] = {TFR_EINSUM_PATH_GREEDY, TFR_EINSUM_PATH_RANDOM_GREEDY,
                                  TFR_EINSUM_PATH_DP, TFR_EINSUM_PATH_TREESA,
                                  TFR_EINSUM_PATH_GREEDY, TFR_EINSUM_PATH_OPTIMAL,
                                  TFR_EINSUM_PATH_PARTITION};
  omp_set_num_threads(1);  // the allocation count is that of one thread
  for (int k = 0; k < 7; k++) {
    tfr_einsum_options o = {.path_kind = kinds[k], .trials = 2, .subtree_size = k == 4 ? 6 : 0};
    if (kinds[k] == TFR_EINSUM_PATH_OPTIMAL) {
      tnet_free(&t);
      t = tnet_lattice(3, 4, 2);
    }
    tfr_status st = TFR_ERR_OUT_OF_MEMORY;
    for (long fail = 0; st != TFR_OK; fail++) {
      assert_true(fail < 100000);
      tfr_einsum_plan *p = NULL;
      tfr_alloc_fail_after(fail);
      st = tnet_plan(&t, &o, &p);
      tfr_alloc_fail_after(-1);
      if (st != TFR_OK) {
        assert_int_equal(st, TFR_ERR_OUT_OF_MEMORY);
        assert_null(p);
      }
      tfr_einsum_plan_release(p);
    }
  }
  omp_set_num_threads(2);
  tnet_free(&t);
}

// auto: never worse than greedy in the cost it minimises, found by name,
// the default of NULL options; a budget of a few milliseconds still returns
// a valid tree (greedy's at worst).
static void test_auto(void **state) {
  (void)state;
  uint64_t rng = 7;
  tnet nets[3] = {tnet_lattice(6, 7, 3), tnet_random(&rng, 30, 40), tnet_regular3(&rng, 60)};
  for (int i = 0; i < 3; i++)
    for (int m = 0; m < 2; m++) {
      tfr_einsum_options og = {.minimize = (tfr_einsum_minimize)m};
      tfr_einsum_options oa = {.path_kind = TFR_EINSUM_PATH_AUTO, .minimize = (tfr_einsum_minimize)m,
                               .max_time = 0.5};
      tfr_einsum_plan *g = NULL, *a = NULL;
      TFR_ASSERT_OK(tnet_plan(&nets[i], &og, &g));
      TFR_ASSERT_OK(tnet_plan(&nets[i], &oa, &a));
      const tfr_einsum_path_info *ig = tfr_einsum_plan_info(g), *ia = tfr_einsum_plan_info(a);
      if (m == 0) assert_true(ia->flops <= ig->flops);
      else assert_true(ia->largest_intermediate <= ig->largest_intermediate);
      tfr_einsum_plan_release(g);
      tfr_einsum_plan_release(a);
    }
  tfr_einsum_path_kind k;
  TFR_ASSERT_OK(tfr_einsum_path_kind_from_name("auto", &k));
  assert_int_equal(k, TFR_EINSUM_PATH_AUTO);
  assert_string_equal(tfr_einsum_path_kind_name(TFR_EINSUM_PATH_AUTO), "auto");
  // NULL options: auto with its default budget; a 1 ms budget: still a tree.
  tfr_einsum_plan *p = NULL;
  TFR_ASSERT_OK(tnet_plan(&nets[2], NULL, &p));
  tfr_einsum_plan_release(p);
  tfr_einsum_options tiny = {.path_kind = TFR_EINSUM_PATH_AUTO, .max_time = 1e-3};
  TFR_ASSERT_OK(tnet_plan(&nets[2], &tiny, &p));
  assert_int_equal(tfr_einsum_plan_info(p)->num_steps, nets[2].n - 1);
  tfr_einsum_plan_release(p);
  for (int i = 0; i < 3; i++) tnet_free(&nets[i]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_auto),
      cmocka_unit_test(test_greedy_matches_reference),
      cmocka_unit_test(test_optimal_and_dp_exact),
      cmocka_unit_test(test_dp_connected_beats_greedy),
      cmocka_unit_test(test_large_networks),
      cmocka_unit_test(test_random_greedy),
      cmocka_unit_test(test_treesa_and_subtree_random),
      cmocka_unit_test(test_treesa_deterministic),
      cmocka_unit_test(test_partition),
      cmocka_unit_test(test_tree_and_costs),
      cmocka_unit_test(test_names_and_bad_options),
      cmocka_unit_test(test_against_numpy_paths),
      cmocka_unit_test(test_out_of_memory),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
