// Parsing of the path-search options (path_options.h).
#include "path_options.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool tfr_cli_search_option(const char *cmd, int argc, char **argv, int *i,
                           tfr_einsum_options *opts, bool *bad) {
  const char *arg = argv[*i];
  if (*i + 1 >= argc) return false;
  const char *v = argv[*i + 1];
  char *end = NULL;
  *bad = false;
  if (strcmp(arg, "--minimize") == 0) {
    if (tfr_einsum_minimize_from_name(v, &opts->minimize) != TFR_OK) {
      fprintf(stderr, "tenferro %s: --minimize must be flops, size, write or combo, got '%s'\n",
              cmd, v);
      *bad = true;
    }
  } else if (strcmp(arg, "--trials") == 0) {
    errno = 0;
    long t = strtol(v, &end, 10);
    if (*v == '\0' || *end || errno || t < 1 || t > 10000000) {
      fprintf(stderr, "tenferro %s: --trials needs an integer in [1, 10000000], got '%s'\n", cmd,
              v);
      *bad = true;
    } else opts->trials = (int)t;
  } else if (strcmp(arg, "--optimize-time") == 0) {
    errno = 0;
    double t = strtod(v, &end);
    if (*v == '\0' || *end || errno || !(t > 0) || isinf(t)) {
      fprintf(stderr, "tenferro %s: --optimize-time needs a positive number of seconds, got "
                      "'%s'\n", cmd, v);
      *bad = true;
    } else opts->max_time = t;
  } else if (strcmp(arg, "--seed") == 0) {
    errno = 0;
    unsigned long long s = strtoull(v, &end, 10);
    if (*v == '\0' || *v == '-' || *end || errno) {
      fprintf(stderr, "tenferro %s: --seed needs a non-negative integer, got '%s'\n", cmd, v);
      *bad = true;
    } else opts->seed = (uint64_t)s;
  } else if (strcmp(arg, "--subtree") == 0) {
    errno = 0;
    long k = strtol(v, &end, 10);
    if (*v == '\0' || *end || errno || k < 0 || k > TFR_EINSUM_SUBTREE_MAX) {
      fprintf(stderr, "tenferro %s: --subtree needs an integer in [0, %d] (leaves; 0: off), "
                      "got '%s'\n", cmd, TFR_EINSUM_SUBTREE_MAX, v);
      *bad = true;
    } else opts->subtree_size = (int)k;
  } else {
    return false;
  }
  (*i)++;
  return true;
}

void tfr_cli_search_usage(FILE *f) {
  fprintf(f,
          "  --minimize     the cost random-greedy, dp, optimal, treesa and partition\n"
          "                 minimise: flops (default), size (largest intermediate), write\n"
          "                 (sum of the intermediates' sizes) or combo (flops + 64 * write)\n"
          "  --trials N     random-greedy trials (default 64), treesa runs (default 8),\n"
          "                 partition trials (default 16)\n"
          "  --optimize-time SECONDS  random-greedy and partition start no trial and treesa\n"
          "                 no run or temperature step after this; dp stops with an error\n"
          "                 (default: no limit)\n"
          "  --subtree K    after the optimiser, re-optimise every subtree of up to K\n"
          "                 leaves exactly while that lowers the cost (0: off, the default;\n"
          "                 at most 16; treesa and partition always refine with 8 when it\n"
          "                 is 0)\n");
}
