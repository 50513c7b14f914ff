// Optimal contraction trees by subset dynamic programming; label sets as
// bitsets.
#include "einsum/optimal.h"

#include <math.h>
#include <string.h>

// Writes the subtree of subset S into t (new internal ids from *next);
// returns its node id.
static int tfr_optimal_build(const uint32_t *split, size_t S, tfr_tree *t, int *next) {
  if (!(S & (S - 1))) return __builtin_ctzll(S);
  int a = tfr_optimal_build(split, split[S], t, next);
  int b = tfr_optimal_build(split, S ^ split[S], t, next);
  int id = (*next)++;
  t->child[2 * (id - t->n)] = a;
  t->child[2 * (id - t->n) + 1] = b;
  return id;
}

tfr_status tfr_optimal(const tfr_net *net, tfr_einsum_minimize m, double alpha, int *ssa) {
  int n = net->n, L = net->num_labels;
  int words = (L + 63) / 64 > 0 ? (L + 63) / 64 : 1;
  size_t nsub = (size_t)1 << n;
  uint64_t *uni = tfr_calloc(nsub * (size_t)words, sizeof(uint64_t));   // labels of S's members
  uint64_t *lab = tfr_calloc(nsub * (size_t)words, sizeof(uint64_t));   // labels kept by S
  uint64_t *outm = tfr_calloc((size_t)words + 1, sizeof(uint64_t));
  double *logext = tfr_calloc((size_t)L + 1, sizeof(double));
  double *cost = tfr_alloc(nsub * sizeof(double));
  double *size = tfr_alloc(nsub * sizeof(double));
  uint32_t *split = tfr_calloc(nsub, sizeof(uint32_t));
  tfr_tree t = {n, tfr_calloc(2 * (size_t)n, sizeof(int))};
  tfr_status st = TFR_OK;
  if (!uni || !lab || !outm || !logext || !cost || !size || !split || !t.child) {
    st = tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory (optimal path search)");
    goto done;
  }
  for (int l = 0; l < L; l++) {
    logext[l] = log2((double)(net->extent[l] > 0 ? net->extent[l] : 1));
    if (net->is_out[l]) outm[l / 64] |= 1ull << (l % 64);
  }
  for (size_t S = 1; S < nsub; S++) {
    int low = __builtin_ctzll(S);
    uint64_t *u = uni + S * (size_t)words, *prev = uni + (S & (S - 1)) * (size_t)words;
    memcpy(u, prev, (size_t)words * sizeof(uint64_t));
    for (int k = net->leaf_off[low]; k < net->leaf_off[low + 1]; k++)
      u[net->leaf_lab[k] / 64] |= 1ull << (net->leaf_lab[k] % 64);
  }
  for (size_t S = 1; S < nsub; S++) {
    const uint64_t *u = uni + S * (size_t)words, *rest = uni + ((nsub - 1) ^ S) * (size_t)words;
    uint64_t *k = lab + S * (size_t)words;
    // An operand keeps all its labels: its first contraction iterates over
    // the ones only it has too (as the replay of tfr_einsum_find_path counts).
    bool leaf = !(S & (S - 1));
    double lg = 0;
    for (int w = 0; w < words; w++) {
      k[w] = leaf ? u[w] : u[w] & (outm[w] | rest[w]);
      for (uint64_t x = k[w]; x; x &= x - 1) lg += logext[w * 64 + __builtin_ctzll(x)];
    }
    size[S] = exp2(lg);
    cost[S] = leaf ? 0 : INFINITY;
  }
  // Subsets in increasing order: every proper subset is done before S.
  for (size_t S = 1; S < nsub; S++) {
    if (!(S & (S - 1))) continue;
    size_t low = S & (~S + 1);
    // A ranges over subsets of S containing S's lowest member, A != S.
    for (size_t A = (S - 1) & S; A; A = (A - 1) & S) {
      if (!(A & low)) continue;
      size_t B = S ^ A;
      double lower = m == TFR_EINSUM_MINIMIZE_SIZE ? fmax(cost[A], cost[B]) : cost[A] + cost[B];
      if (lower >= cost[S]) continue;
      const uint64_t *ka = lab + A * (size_t)words, *kb = lab + B * (size_t)words;
      double lg = 0;
      for (int w = 0; w < words; w++)
        for (uint64_t x = ka[w] | kb[w]; x; x &= x - 1) lg += logext[w * 64 + __builtin_ctzll(x)];
      double c = tfr_cost_join(m, alpha, cost[A], cost[B], 2 * exp2(lg), size[S]);
      if (c < cost[S]) {
        cost[S] = c;
        split[S] = (uint32_t)A;
      }
    }
  }
  if (n > 1) {
    int next = n;
    tfr_optimal_build(split, nsub - 1, &t, &next);
    st = tfr_tree_to_ssa(&t, ssa);
  }
done:
  tfr_free(uni);
  tfr_free(lab);
  tfr_free(outm);
  tfr_free(logext);
  tfr_free(cost);
  tfr_free(size);
  tfr_free(split);
  tfr_tree_free(&t);
  return st;
}
