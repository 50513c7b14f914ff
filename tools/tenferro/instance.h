// `tenferro contract`'s instance files: the einsum benchmark's JSON
// ("format_string", "shapes", "dtype", optionally "paths"), read and checked.
#ifndef TENFERRO_TOOLS_TENFERRO_INSTANCE_H_
#define TENFERRO_TOOLS_TENFERRO_INSTANCE_H_

#include <stddef.h>
#include <stdint.h>

#include "tenferro/tenferro.h"

// The instance as read from JSON.
typedef struct tfr_instance {
  char *subscripts;
  int n;
  int *ranks;
  int64_t **shapes;
  tfr_dtype dtype;
  int32_t *path;  // the chosen stored path, or NULL
  int path_len;
  double json_log10_flops, json_log2_size;
} tfr_instance;

// Reads instance `file`; with `path_name` ("opt_flops", "opt_size") also its
// stored path "paths".<path_name>."path". Returns 0, or 1 with a message
// naming the file printed on stderr (*in then holds nothing to free, but
// tfr_instance_free on it is harmless).
int tfr_instance_load(const char *file, const char *path_name, tfr_instance *in);

// As tfr_instance_load on the text of a file (`len` bytes, text[len] ==
// '\0'); `file` names it in messages.
int tfr_instance_parse(const char *file, const char *text, size_t len, const char *path_name,
                       tfr_instance *in);

// Frees what *in holds (not `in`).
void tfr_instance_free(tfr_instance *in);

#endif  // TENFERRO_TOOLS_TENFERRO_INSTANCE_H_
