// `tenferro contract`'s instance files (the einsum benchmark's JSON): reading
// and checking them.
#include "instance.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json_check.h"

void tfr_instance_free(tfr_instance *in) {
  for (int i = 0; in->shapes && i < in->n; i++) free(in->shapes[i]);
  free(in->shapes);
  free(in->ranks);
  free(in->subscripts);
  free(in->path);
}

static int tfr_instance_error(const char *path, const char *what) {
  fprintf(stderr, "tenferro contract: %s: %s\n", path, what);
  return 1;
}

int tfr_instance_load(const char *file, const char *path_name, tfr_instance *in) {
  memset(in, 0, sizeof *in);
  size_t len;
  const char *why = NULL;
  char *text = tfr_cli_read_file(file, &len, &why);
  if (!text) {
    fprintf(stderr, "tenferro contract: %s: %s\n", file, why);
    return 1;
  }
  int rc = tfr_instance_parse(file, text, len, path_name, in);
  free(text);
  return rc;
}

int tfr_instance_parse(const char *file, const char *text, size_t len, const char *path_name,
                       tfr_instance *in) {
  memset(in, 0, sizeof *in);
  // The whole text must be one JSON value: trailing bytes are an error.
  cJSON *root = cJSON_ParseWithLengthOpts(text, len + 1, NULL, 1);
  if (!root) return tfr_instance_error(file, "not valid JSON");
  int rc = 1;
  char why[160];
  if (tfr_cli_json_check(text, len, root, why, sizeof why) != 0) {
    tfr_instance_error(file, why);
    goto done;
  }
  const cJSON *fs = cJSON_GetObjectItemCaseSensitive(root, "format_string");
  const cJSON *shapes = cJSON_GetObjectItemCaseSensitive(root, "shapes");
  const cJSON *dtype = cJSON_GetObjectItemCaseSensitive(root, "dtype");
  if (!cJSON_IsString(fs) || !cJSON_IsArray(shapes) || !cJSON_IsString(dtype)) {
    tfr_instance_error(file, "needs \"format_string\" (string), \"shapes\" (array), \"dtype\" (string)");
    goto done;
  }
  in->subscripts = strdup(fs->valuestring);
  if (strcmp(dtype->valuestring, "float64") == 0) in->dtype = TFR_F64;
  else if (strcmp(dtype->valuestring, "complex128") == 0) in->dtype = TFR_C128;
  else if (tfr_dtype_from_name(dtype->valuestring, &in->dtype) != TFR_OK) {
    tfr_instance_error(file, "unknown \"dtype\"");
    goto done;
  }
  in->n = cJSON_GetArraySize(shapes);
  if (in->n < 1) {
    tfr_instance_error(file, "\"shapes\" is empty");
    goto done;
  }
  in->ranks = calloc((size_t)in->n, sizeof(int));
  in->shapes = calloc((size_t)in->n, sizeof(int64_t *));
  if (!in->ranks || !in->shapes || !in->subscripts) goto done;
  // The lists are walked by their links: looking entries up by index is
  // quadratic (a 1 MB file of 200000 shapes took minutes).
  const cJSON *sh = shapes->child;
  for (int i = 0; i < in->n; i++, sh = sh->next) {
    if (!cJSON_IsArray(sh) || cJSON_GetArraySize(sh) > TFR_MAX_RANK) {
      fprintf(stderr, "tenferro contract: %s: shapes[%d] is not a list of at most %d extents\n",
              file, i, TFR_MAX_RANK);
      goto done;
    }
    in->ranks[i] = cJSON_GetArraySize(sh);
    in->shapes[i] = calloc((size_t)in->ranks[i] + 1, sizeof(int64_t));
    if (!in->shapes[i]) goto done;
    for (int k = 0; k < in->ranks[i]; k++) {
      const cJSON *d = cJSON_GetArrayItem(sh, k);
      if (!cJSON_IsNumber(d) || d->valuedouble < 0 || d->valuedouble != floor(d->valuedouble) ||
          d->valuedouble > 9e15) {
        fprintf(stderr, "tenferro contract: %s: shapes[%d][%d] is not a non-negative integer\n",
                file, i, k);
        goto done;
      }
      in->shapes[i][k] = (int64_t)d->valuedouble;
    }
  }
  if (path_name) {
    const cJSON *paths = cJSON_GetObjectItemCaseSensitive(root, "paths");
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(paths, path_name);
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(p, "path");
    if (!cJSON_IsArray(list)) {
      fprintf(stderr,
              "tenferro contract: %s: no \"paths\".\"%s\".\"path\" list (use --path greedy, "
              "random-greedy or dp to find one)\n",
              file, path_name);
      goto done;
    }
    in->path_len = cJSON_GetArraySize(list);
    in->path = calloc(2 * (size_t)in->path_len + 2, sizeof(int32_t));
    if (!in->path) goto done;
    // One step fewer than operands, checked before the steps are read.
    if (in->path_len != in->n - 1) {
      fprintf(stderr, "tenferro contract: %s: \"paths\".\"%s\".\"path\" has %d steps; %d "
                      "operands need %d\n", file, path_name, in->path_len, in->n, in->n - 1);
      goto done;
    }
    const cJSON *pair = list->child;
    for (int s = 0; s < in->path_len; s++, pair = pair->next) {
      const cJSON *a = cJSON_GetArrayItem(pair, 0), *b = cJSON_GetArrayItem(pair, 1);
      if (cJSON_GetArraySize(pair) != 2 || !cJSON_IsNumber(a) || !cJSON_IsNumber(b) ||
          a->valuedouble != floor(a->valuedouble) || b->valuedouble != floor(b->valuedouble) ||
          fabs(a->valuedouble) > 1e9 || fabs(b->valuedouble) > 1e9) {
        fprintf(stderr, "tenferro contract: %s: path step %d is not a pair of integer positions\n",
                file, s);
        goto done;
      }
      in->path[2 * s] = (int32_t)a->valuedouble;
      in->path[2 * s + 1] = (int32_t)b->valuedouble;
    }
    const cJSON *fl = cJSON_GetObjectItemCaseSensitive(p, "log10_flops");
    const cJSON *sz = cJSON_GetObjectItemCaseSensitive(p, "log2_size");
    in->json_log10_flops = cJSON_IsNumber(fl) ? fl->valuedouble : NAN;
    in->json_log2_size = cJSON_IsNumber(sz) ? sz->valuedouble : NAN;
  }
  rc = 0;
done:
  cJSON_Delete(root);
  return rc;
}

