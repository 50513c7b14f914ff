// `--profile` of `tenferro contract` and `tenferro einsum`: the table of a
// tfr_einsum_profile (docs/paths.md, "Profiling").
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

// The rate of `seconds` of work: GFLOP/s for the dot kinds, GB/s for the
// others ("-" when too short to tell).
static void tfr_profile_rate(char *buf, size_t len, tfr_einsum_op_kind kind, double flops,
                             double bytes, double seconds) {
  bool compute = tfr_einsum_op_kind_is_compute(kind);
  double x = compute ? flops : bytes;
  if (!(seconds > 0)) snprintf(buf, len, "-");
  else snprintf(buf, len, "%.2f %s", x / seconds * 1e-9, compute ? "GFLOP/s" : "GB/s");
}

static void tfr_profile_line(const tfr_einsum_op_record *r, double total) {
  char step[24], shape[96], rate[48];
  if (r->step < 0) snprintf(step, sizeof step, "end");
  else snprintf(step, sizeof step, "%d", r->step);
  if (tfr_einsum_op_kind_is_compute(r->kind)) {
    int n = 0;
    if (r->batch != 1) n = snprintf(shape, sizeof shape, "B=%" PRId64 " ", r->batch);
    snprintf(shape + n, sizeof shape - (size_t)n, "M=%" PRId64 " N=%" PRId64 " K=%" PRId64, r->m,
             r->n, r->k);
  } else if (r->kind == TFR_EINSUM_OP_TRANSPOSE) {
    snprintf(shape, sizeof shape, "n=%" PRId64, r->out_elements);
  } else {
    snprintf(shape, sizeof shape, "%" PRId64 " -> %" PRId64, r->in_elements, r->out_elements);
  }
  tfr_profile_rate(rate, sizeof rate, r->kind, r->flops, r->bytes, r->seconds);
  printf("  %6s  %-15s %-34s %7" PRId64 " %10.3f %16s %6.1f\n", step,
         tfr_einsum_op_kind_name(r->kind), shape, r->calls, r->seconds * 1e3, rate,
         total > 0 ? 100 * r->seconds / total : 0);
}

static const tfr_einsum_profile *tfr_profile_sorted;

// Descending by time, then in execution order.
static int tfr_cmp_op_time(const void *a, const void *b) {
  int i = *(const int *)a, j = *(const int *)b;
  double x = tfr_profile_sorted->ops[i].seconds, y = tfr_profile_sorted->ops[j].seconds;
  if (x != y) return x < y ? 1 : -1;
  return (i > j) - (i < j);
}

#define TFR_PROFILE_TOP 30  // records listed without `all`

int tfr_cli_print_profile(const tfr_einsum_profile *p, double median, bool all) {
  int *order = malloc(((size_t)p->num_ops + 1) * sizeof(int));
  if (!order) return 1;
  for (int i = 0; i < p->num_ops; i++) order[i] = i;
  int shown = p->num_ops;
  if (!all) {
    tfr_profile_sorted = p;
    qsort(order, (size_t)p->num_ops, sizeof(int), tfr_cmp_op_time);
    if (shown > TFR_PROFILE_TOP) shown = TFR_PROFILE_TOP;
  }
  double total = p->seconds, recorded = 0;
  printf("profile   %severy op timed: %d op record(s)%s%s\n", median > 0 ? "one more run, " : "",
         p->num_ops,
         p->num_slices != 1 ? ", slices one after another" : "",
         all ? "" : (p->num_ops > TFR_PROFILE_TOP ? ", the 30 slowest" : ", slowest first"));
  printf("  %6s  %-15s %-34s %7s %10s %16s %6s\n", "step", "kind", "shape", "calls", "ms", "rate",
         "%");
  for (int q = 0; q < shown; q++) tfr_profile_line(&p->ops[order[q]], total);
  if (shown < p->num_ops) {
    double rest = 0;
    for (int q = shown; q < p->num_ops; q++) rest += p->ops[order[q]].seconds;
    printf("  ... %d more ops, %.3f ms\n", p->num_ops - shown, rest * 1e3);
  }
  free(order);
  printf("by kind   %-15s %9s %10s %6s %16s\n", "kind", "calls", "ms", "%", "rate");
  for (int k = 0; k < TFR_EINSUM_OP_NUM_KINDS; k++) {
    const tfr_einsum_op_total *t = &p->totals[k];
    if (t->calls == 0) continue;
    char rate[48];
    tfr_profile_rate(rate, sizeof rate, (tfr_einsum_op_kind)k, t->flops, t->bytes, t->seconds);
    printf("          %-15s %9" PRId64 " %10.3f %6.1f %16s\n",
           tfr_einsum_op_kind_name((tfr_einsum_op_kind)k), t->calls, t->seconds * 1e3,
           total > 0 ? 100 * t->seconds / total : 0, rate);
    recorded += t->seconds;
  }
  printf("          %-15s %9s %10.3f %6.1f\n", "(between ops)", "", (total - recorded) * 1e3,
         total > 0 ? 100 * (total - recorded) / total : 0);
  if (median > 0)
    printf("          total: profiled %.3f ms, timed median %.3f ms (x%.2f)\n", total * 1e3,
           median * 1e3, total / median);
  else
    printf("          total: profiled %.3f ms\n", total * 1e3);
  return 0;
}
