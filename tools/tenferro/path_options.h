// The path-search options shared by `tenferro contract` and `tenferro
// einsum`: --minimize, --trials, --optimize-time, --seed and --subtree.
#ifndef TENFERRO_TOOLS_TENFERRO_PATH_OPTIONS_H_
#define TENFERRO_TOOLS_TENFERRO_PATH_OPTIONS_H_

#include <stdbool.h>
#include <stdio.h>

#include "tenferro/tenferro.h"

// When argv[*i] is one of the options above with its value, stores the value
// in `opts` (minimize, trials, max_time, seed, subtree_size), advances *i past the value
// and returns true; *bad is set (with a one-line message naming `cmd` on
// stderr) when the value is not valid: an unknown cost, trials not in
// [1, 10^7], a time not a positive number of seconds, a seed not a
// non-negative integer, a subtree size not in [0, 16]. Returns false for any other argument.
bool tfr_cli_search_option(const char *cmd, int argc, char **argv, int *i,
                           tfr_einsum_options *opts, bool *bad);

// Prints the help lines of --minimize, --trials, --optimize-time and --subtree.
void tfr_cli_search_usage(FILE *f);

#endif  // TENFERRO_TOOLS_TENFERRO_PATH_OPTIONS_H_
