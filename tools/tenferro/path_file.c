// Path files and the progress bar (path_file.h).
#include "path_file.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "json_check.h"

double tfr_cli_parse_bytes(const char *v) {
  // A decimal number (digits, a point, an exponent: no sign, no hex, no
  // inf or nan, which strtod would take) and an optional unit.
  if (!((v[0] >= '0' && v[0] <= '9') || v[0] == '.')) return -1;
  size_t k = strspn(v, "0123456789.eE+-");
  char *end = NULL;
  errno = 0;
  double x = strtod(v, &end);
  if (errno != 0 || end != v + k) return -1;
  double unit = 1;
  if (*end) {
    static const char units[] = "KMGT";
    const char *u = strchr(units, end[0] >= 'a' && end[0] <= 'z' ? end[0] - 32 : end[0]);
    if (!u || end[0] == '\0') return -1;
    unit = ldexp(1.0, 10 * (int)(u - units + 1));
    end++;
    if (strcmp(end, "") != 0 && strcmp(end, "B") != 0 && strcmp(end, "iB") != 0) return -1;
  }
  double bytes = floor(x * unit);
  // Less than one byte (1e-300, 0.5) is no budget at all.
  if (!(bytes >= 1) || isinf(bytes)) return -1;
  return bytes;
}

void tfr_cli_bad_max_memory(const char *cmd, const char *value) {
  fprintf(stderr,
          "tenferro %s: --max-memory '%s' is not a number of bytes: a decimal number of at least "
          "one byte, with an optional K, M, G or T (also KB or KiB, ...: powers of 1024), e.g. "
          "512M, 1GiB, 1e9\n", cmd, value);
}

const char *tfr_cli_budget_name(const tfr_cli_path_io *io) {
  return io->max_memory > 0 ? "--max-memory" : "the default budget (half of available memory)";
}

bool tfr_cli_path_io_option(int argc, char **argv, int *i, tfr_cli_path_io *io) {
  const char *arg = argv[*i];
  if (strcmp(arg, "--quiet") == 0 || strcmp(arg, "-q") == 0) {
    io->quiet = true;
    return true;
  }
  if (*i + 1 >= argc) return false;
  if (strcmp(arg, "--save-path") == 0) io->save_path = argv[*i + 1];
  else if (strcmp(arg, "--path-file") == 0) io->path_file = argv[*i + 1];
  else if (strcmp(arg, "--max-memory") == 0) {
    io->max_memory = tfr_cli_parse_bytes(argv[*i + 1]);
    io->max_memory_bad = !(io->max_memory > 0);
    io->max_memory_text = argv[*i + 1];
  } else {
    return false;
  }
  (*i)++;
  return true;
}

double tfr_cli_mem_available(void) {
  FILE *f = fopen("/proc/meminfo", "r");
  if (!f) return 0;
  char line[256];
  double kb = 0;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1) break;
  fclose(f);
  return kb * 1024.0;
}

double tfr_cli_default_max_memory(void) { return tfr_cli_mem_available() / 2; }

void tfr_cli_path_io_usage(FILE *f) {
  fprintf(f,
          "  --save-path F.json  writes the path to F.json (atomically; when the run has\n"
          "                 succeeded, with the other results): the\n"
          "                 numpy/opt_einsum pair list with the tree, the sliced labels, the\n"
          "                 operands' shapes and the path's cost (docs/paths.md, \"Path files\")\n"
          "  --path-file F.json  contracts along the path in F.json instead of searching one\n"
          "                 (a file of --save-path, or a plain pair list [[0, 1], ...]); a path\n"
          "                 that does not fit the network is an error\n"
          "  --max-memory BYTES  the memory one slice of the contraction may take (the\n"
          "                 operands, the output and the live intermediates; suffixes K, M, G,\n"
          "                 T, also KB, KiB, ...: powers of 1024): a searched path is searched together\n"
          "                 with the labels to slice so that it fits, a stored path or a path\n"
          "                 file that needs more is sliced to fit (docs/paths.md, \"Slicing\");\n"
          "                 default: half the memory available\n"
          "  --quiet, -q    no progress bar (shown on stderr only when it is a terminal)\n");
}

// ---------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------

// An integer-valued JSON number in [lo, hi].
static bool tfr_json_int(const cJSON *v, double lo, double hi, double *out) {
  if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || v->valuedouble < lo ||
      v->valuedouble > hi)
    return false;
  *out = v->valuedouble;
  return true;
}

// The number of UTF-8 code points of `s` (bytes that do not continue one).
static int tfr_utf8_count(const char *s) {
  int n = 0;
  for (; *s; s++) n += ((unsigned char)*s & 0xC0) != 0x80;
  return n;
}

// Checks the optional "num_operands", "subscripts" and "shapes" of a path
// file object against the network.
static int tfr_path_check_network(const char *cmd, const char *file, const cJSON *root,
                                  const tfr_cli_network *net) {
  const cJSON *num = cJSON_GetObjectItemCaseSensitive(root, "num_operands");
  double d;
  if (num && !tfr_json_int(num, 1, 1e9, &d))
    return tfr_cli_errorf(cmd, file, "\"num_operands\" is not a positive integer");
  if (num && (int)d != net->n)
    return tfr_cli_errorf(cmd, file, "the path is for %d operands, the network has %d", (int)d,
                          net->n);
  const cJSON *subs = cJSON_GetObjectItemCaseSensitive(root, "subscripts");
  if (subs && !cJSON_IsString(subs))
    return tfr_cli_errorf(cmd, file, "\"subscripts\" is not a string");
  if (subs && strcmp(subs->valuestring, net->subscripts) != 0)
    return tfr_cli_errorf(cmd, file, "the path is for the subscripts '%s', not '%s'",
                          subs->valuestring, net->subscripts);
  const cJSON *shapes = cJSON_GetObjectItemCaseSensitive(root, "shapes");
  if (!shapes) return 0;
  if (!cJSON_IsArray(shapes)) return tfr_cli_errorf(cmd, file, "\"shapes\" is not a list");
  if (cJSON_GetArraySize(shapes) != net->n)
    return tfr_cli_errorf(cmd, file, "\"shapes\" lists %d operands, the network has %d",
                          cJSON_GetArraySize(shapes), net->n);
  const cJSON *sh = shapes->child;  // walked by its links: by index is quadratic
  for (int i = 0; i < net->n; i++, sh = sh->next) {
    bool same = cJSON_IsArray(sh) && cJSON_GetArraySize(sh) == net->ranks[i];
    for (int k = 0; same && k < net->ranks[i]; k++)
      same = tfr_json_int(cJSON_GetArrayItem(sh, k), 0, 9e18, &d) &&
             d == (double)net->shapes[i][k];
    if (!same) {
      char *text = cJSON_PrintUnformatted(sh);
      fprintf(stderr, "tenferro %s: %s: operand %d has shape %s in the path file, [", cmd, file,
              i, text ? text : "?");
      for (int k = 0; k < net->ranks[i]; k++)
        fprintf(stderr, k ? ", %lld" : "%lld", (long long)net->shapes[i][k]);
      fprintf(stderr, "] in the network\n");
      free(text);
      return 1;
    }
  }
  return 0;
}

// Reads the pair list `list` (n - 1 pairs of positions in the current
// operand list) into p->pairs, checking every position; with `tree` (a list
// of SSA pairs), checks that it is the same tree.
static int tfr_path_read_pairs(const char *cmd, const char *file, const cJSON *list,
                               const cJSON *tree, int n, tfr_path_read *p) {
  if (!cJSON_IsArray(list)) return tfr_cli_errorf(cmd, file, "\"path\" is not a list of pairs");
  int len = cJSON_GetArraySize(list);
  if (len != (n > 1 ? n - 1 : 0))
    return tfr_cli_errorf(cmd, file, "the path has %d steps, a network of %d operands needs %d",
                          len, n, n > 1 ? n - 1 : 0);
  if (tree && (!cJSON_IsArray(tree) || cJSON_GetArraySize(tree) != len))
    return tfr_cli_errorf(cmd, file, "\"tree\" is not a list of %d pairs", len);
  p->pairs = calloc(2 * (size_t)len + 2, sizeof(int32_t));
  int *ids = calloc((size_t)n + 1, sizeof(int));  // SSA id at each position
  if (!p->pairs || !ids) {
    free(ids);
    return tfr_cli_errorf(cmd, file, "out of memory");
  }
  for (int i = 0; i < n; i++) ids[i] = i;
  int rc = 1;
  const cJSON *pair = list->child, *t = tree ? tree->child : NULL;  // by links, as above
  for (int s = 0; s < len; s++, pair = pair->next, t = t ? t->next : NULL) {
    int alive = n - s;
    double a, b;
    if (!cJSON_IsArray(pair) || cJSON_GetArraySize(pair) != 2 ||
        !tfr_json_int(cJSON_GetArrayItem(pair, 0), -1e9, 1e9, &a) ||
        !tfr_json_int(cJSON_GetArrayItem(pair, 1), -1e9, 1e9, &b)) {
      tfr_cli_errorf(cmd, file, "path step %d is not a pair of integer positions", s);
      goto done;
    }
    if (a < 0 || a >= alive || b < 0 || b >= alive || a == b) {
      tfr_cli_errorf(cmd, file,
                     "path step %d: [%.0f, %.0f] is not two different positions in [0, %d) "
                     "(%d tensors are left at that step)", s, a, b, alive, alive);
      goto done;
    }
    int x = (int)a, y = (int)b, ix = ids[x], iy = ids[y];
    p->pairs[2 * s] = x;
    p->pairs[2 * s + 1] = y;
    if (tree) {
      double ta, tb;
      if (!cJSON_IsArray(t) || cJSON_GetArraySize(t) != 2 ||
          !tfr_json_int(cJSON_GetArrayItem(t, 0), 0, 2e9, &ta) ||
          !tfr_json_int(cJSON_GetArrayItem(t, 1), 0, 2e9, &tb) ||
          !((ta == ix && tb == iy) || (ta == iy && tb == ix))) {
        tfr_cli_errorf(cmd, file, "\"tree\" step %d is not [%d, %d], the pair of SSA ids that "
                                  "\"path\" contracts there", s, ix, iy);
        goto done;
      }
    }
    // numpy's order: both positions removed, the result appended.
    int w = 0;
    for (int k = 0; k < alive; k++)
      if (k != x && k != y) ids[w++] = ids[k];
    ids[w] = n + s;
  }
  p->len = len;
  rc = 0;
done:
  free(ids);
  return rc;
}

// Reads "sliced" (a list of labels, each one character) into p->sliced.
static int tfr_path_read_sliced(const char *cmd, const char *file, const cJSON *sliced,
                                tfr_path_read *p) {
  size_t total = 1;
  if (sliced && !cJSON_IsArray(sliced))
    return tfr_cli_errorf(cmd, file, "\"sliced\" is not a list of labels");
  const cJSON *l;
  cJSON_ArrayForEach(l, sliced) {
    if (!cJSON_IsString(l) || tfr_utf8_count(l->valuestring) != 1)
      return tfr_cli_errorf(cmd, file, "\"sliced\" has an entry that is not one label");
    total += strlen(l->valuestring);
  }
  p->sliced = calloc(total, 1);
  if (!p->sliced) return tfr_cli_errorf(cmd, file, "out of memory");
  cJSON_ArrayForEach(l, sliced) strcat(p->sliced, l->valuestring);
  return 0;
}

static int tfr_path_read_file(const char *cmd, const char *file, const tfr_cli_network *net,
                              tfr_path_read *p) {
  memset(p, 0, sizeof *p);
  size_t len;
  const char *why = NULL;
  char *text = tfr_cli_read_file(file, &len, &why);
  if (!text) return tfr_cli_errorf(cmd, file, "cannot read the path file: %s", why);
  int rc = tfr_cli_path_parse(cmd, file, text, len, net, p);
  free(text);
  return rc;
}

int tfr_cli_path_parse(const char *cmd, const char *file, const char *text, size_t len,
                       const tfr_cli_network *net, tfr_path_read *p) {
  memset(p, 0, sizeof *p);
  cJSON *root = cJSON_ParseWithLengthOpts(text, len + 1, NULL, 1);
  if (!root)
    return tfr_cli_errorf(cmd, file, "not valid JSON (a path file is a JSON object with a "
                                     "\"path\", or a pair list [[0, 1], ...])");
  int rc = 1;
  char why[160];
  if (tfr_cli_json_check(text, len, root, why, sizeof why) != 0) {
    tfr_cli_errorf(cmd, file, "%s", why);
  } else if (cJSON_IsArray(root)) {
    rc = tfr_path_read_pairs(cmd, file, root, NULL, net->n, p) ||
         tfr_path_read_sliced(cmd, file, NULL, p);
  } else if (!cJSON_IsObject(root) || !cJSON_GetObjectItemCaseSensitive(root, "path")) {
    tfr_cli_errorf(cmd, file, "has no \"path\" (a path file is a JSON object with a \"path\", "
                              "or a pair list [[0, 1], ...])");
  } else {
    rc = tfr_path_check_network(cmd, file, root, net) ||
         tfr_path_read_pairs(cmd, file, cJSON_GetObjectItemCaseSensitive(root, "path"),
                             cJSON_GetObjectItemCaseSensitive(root, "tree"), net->n, p) ||
         tfr_path_read_sliced(cmd, file, cJSON_GetObjectItemCaseSensitive(root, "sliced"), p);
  }
  cJSON_Delete(root);
  if (rc) {
    free(p->pairs);
    free(p->sliced);
    memset(p, 0, sizeof *p);
  }
  return rc;
}

// ---------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------

// Writes `"key": value,` on one line and frees the value (NULL: it could
// not be built); false when out of memory.
static bool tfr_put(FILE *f, const char *key, cJSON *value, bool last) {
  char *text = value ? cJSON_PrintUnformatted(value) : NULL;
  cJSON_Delete(value);
  if (!text) return false;
  fprintf(f, "  \"%s\": %s%s\n", key, text, last ? "" : ",");
  free(text);
  return true;
}

// Hands *v over (to tfr_put), leaving NULL.
static cJSON *tfr_take(cJSON **v) {
  cJSON *t = *v;
  *v = NULL;
  return t;
}

static cJSON *tfr_int_pairs(const int32_t *v, int len) {
  cJSON *list = cJSON_CreateArray();
  for (int s = 0; list && s < len; s++) {
    int pair[2] = {v[2 * s], v[2 * s + 1]};
    cJSON *p = cJSON_CreateIntArray(pair, 2);
    if (!p || !cJSON_AddItemToArray(list, p)) {
      cJSON_Delete(p);
      cJSON_Delete(list);
      return NULL;
    }
  }
  return list;
}

// The document's lines; false when out of memory.
static bool tfr_path_print(FILE *f, const tfr_cli_network *net, const tfr_einsum_plan *plan,
                           const char *sliced) {
  const tfr_einsum_path_info *info = tfr_einsum_plan_info(plan);
  const int32_t *path = tfr_einsum_plan_path(plan);
  int n = net->n, len = info->num_steps;
  // The SSA tree: operands are 0..n-1, step s makes n + s.
  int32_t *tree = calloc(2 * (size_t)len + 2, sizeof(int32_t));
  int *ids = calloc((size_t)n + 1, sizeof(int));
  cJSON *shapes = cJSON_CreateArray(), *labels = cJSON_CreateArray();
  bool ok = tree && ids && shapes && labels;
  for (int i = 0; ok && i < n; i++) ids[i] = i;
  for (int s = 0; ok && s < len; s++) {
    int x = path[2 * s], y = path[2 * s + 1], alive = n - s, w = 0;
    tree[2 * s] = ids[x];
    tree[2 * s + 1] = ids[y];
    for (int k = 0; k < alive; k++)
      if (k != x && k != y) ids[w++] = ids[k];
    ids[w] = n + s;
  }
  for (int i = 0; ok && i < n; i++) {
    cJSON *sh = cJSON_CreateArray();
    ok = sh && cJSON_AddItemToArray(shapes, sh);
    if (!ok) cJSON_Delete(sh);
    for (int k = 0; ok && k < net->ranks[i]; k++)
      ok = cJSON_AddItemToArray(sh, cJSON_CreateNumber((double)net->shapes[i][k]));
  }
  // One label per character of `sliced` (UTF-8).
  for (const char *c = sliced ? sliced : ""; ok && *c;) {
    char one[8] = {0};
    int k = 0;
    do one[k++] = *c++;
    while (k < 4 && ((unsigned char)*c & 0xC0) == 0x80);
    ok = cJSON_AddItemToArray(labels, cJSON_CreateString(one));
  }
  free(ids);
  fprintf(f, "{\n");
  ok = ok && tfr_put(f, "tenferro", cJSON_CreateString(tfr_version_string()), false) &&
       tfr_put(f, "num_operands", cJSON_CreateNumber(n), false) &&
       tfr_put(f, "subscripts", cJSON_CreateString(net->subscripts), false) &&
       tfr_put(f, "shapes", tfr_take(&shapes), false) &&
       tfr_put(f, "path", tfr_int_pairs(path, len), false) &&
       tfr_put(f, "tree", tfr_int_pairs(tree, len), false) &&
       tfr_put(f, "sliced", tfr_take(&labels), false) &&
       tfr_put(f, "flops", cJSON_CreateNumber(info->flops), false) &&
       tfr_put(f, "log10_flops", cJSON_CreateNumber(info->log10_flops), false) &&
       tfr_put(f, "largest_intermediate",
               cJSON_CreateNumber((double)info->largest_intermediate), false) &&
       tfr_put(f, "log2_largest", cJSON_CreateNumber(info->log2_largest), false) &&
       tfr_put(f, "num_slices", cJSON_CreateNumber((double)info->num_slices), false) &&
       tfr_put(f, "sliced_flops", cJSON_CreateNumber(info->sliced_flops), true);
  fprintf(f, "}\n");
  cJSON_Delete(shapes);
  cJSON_Delete(labels);
  free(tree);
  return ok;
}

// Writes the path to a temporary file next to `file`, then renames it.
static int tfr_path_write_file(const char *cmd, const char *file, const tfr_cli_network *net,
                               const tfr_einsum_plan *plan, const char *sliced) {
  // The rename would turn a device, a FIFO or a symbolic link into a
  // regular file: only a regular file (or nothing) may stand at `file`, as
  // for -o. An existing file keeps its permission bits; a new one gets
  // 0666 less the umask, as any new file.
  struct stat old;
  bool have_old = lstat(file, &old) == 0;
  if (have_old && !S_ISREG(old.st_mode))
    return tfr_cli_errorf(cmd, file, "--save-path: is not a regular file (a device, FIFO, "
                                     "directory or symbolic link); not replaced");
  mode_t mask = umask(0);
  umask(mask);
  mode_t mode = have_old ? old.st_mode & 07777 : 0666 & ~mask;
  size_t n = strlen(file);
  char *tmp = malloc(n + 16);
  if (!tmp) return tfr_cli_errorf(cmd, file, "--save-path: out of memory");
  snprintf(tmp, n + 16, "%s.tmp-XXXXXX", file);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    int err = errno;
    free(tmp);
    return tfr_cli_errorf(cmd, file, "--save-path: cannot create a file there: %s",
                          strerror(err));
  }
  FILE *f = fdopen(fd, "w");
  if (!f) close(fd);
  bool printed = f && tfr_path_print(f, net, plan, sliced);
  int err = f && ferror(f) ? errno : 0;
  if (f && fclose(f) != 0 && !err) err = errno;
  int rc = 0;
  if (!printed || err) {
    rc = tfr_cli_errorf(cmd, file, "--save-path: writing failed: %s",
                        err ? strerror(err) : "out of memory");
  } else if (chmod(tmp, mode) != 0 || rename(tmp, file) != 0) {
    rc = tfr_cli_errorf(cmd, file, "--save-path: %s", strerror(errno));
  }
  if (rc) unlink(tmp);
  free(tmp);
  return rc;
}

typedef struct tfr_path_write_args {
  const char *cmd, *file, *sliced;
  const tfr_cli_network *net;
  const tfr_einsum_plan *plan;
} tfr_path_write_args;

static int tfr_path_write_call(void *ctx) {
  const tfr_path_write_args *w = ctx;
  return tfr_path_write_file(w->cmd, w->file, w->net, w->plan, w->sliced);
}

// ---------------------------------------------------------------------------
// Planning and progress
// ---------------------------------------------------------------------------

static double tfr_cli_clock(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double tfr_cli_seconds(void) { return tfr_cli_clock(CLOCK_MONOTONIC); }

double tfr_cli_thread_seconds(void) { return tfr_cli_clock(CLOCK_THREAD_CPUTIME_ID); }

static void tfr_progress_draw(void *ctx, int done, int total, double flops) {
  tfr_cli_progress *p = ctx;
  double now = tfr_cli_seconds();
  // At most 10 redraws a second, but always the last step (the full bar,
  // erased by tfr_cli_progress_end): a short run shows where it ended.
  if (p->drawn && now - p->last < 0.1 && done < total) return;
  p->drawn = true;
  p->last = now;
  enum { kBar = 24 };
  char bar[kBar + 1];
  int fill = total > 0 ? (int)((double)kBar * done / total) : kBar;
  for (int k = 0; k < kBar; k++) bar[k] = k < fill ? '#' : '.';
  bar[kBar] = '\0';
  char line[160];
  int w = snprintf(line, sizeof line, "[%s] %s %d/%d", bar, p->slices ? "slice" : "step", done,
                   total);
  if (!p->slices && w > 0 && w < (int)sizeof line)
    w += snprintf(line + w, sizeof line - (size_t)w, ", %.3g of %.3g flops", flops,
                  p->total_flops);
  if (w > 0 && w < (int)sizeof line)
    w += snprintf(line + w, sizeof line - (size_t)w, ", %.1f s", now - p->start);
  if (w < 0 || w >= (int)sizeof line) w = (int)strlen(line);
  // Pad over what a longer earlier line left.
  fprintf(stderr, "\r%s%*s", line, p->width > w ? p->width - w : 0, "");
  if (w > p->width) p->width = w;
  fflush(stderr);
}

void tfr_cli_progress_begin(tfr_cli_progress *p, const tfr_einsum_plan *plan) {
  const tfr_einsum_path_info *info = tfr_einsum_plan_info(plan);
  p->slices = tfr_einsum_plan_num_slices(plan) > 1;
  p->total_flops = p->slices ? info->sliced_flops : info->flops;
  p->start = tfr_cli_seconds();
  p->drawn = false;
}

void tfr_cli_progress_end(tfr_cli_progress *p) {
  if (!p->on || p->width == 0) return;
  fprintf(stderr, "\r%*s\r", p->width, "");
  fflush(stderr);
  p->width = 0;
}

// The plan's sliced labels as a UTF-8 string (malloc'ed; "" for none), or
// NULL when out of memory or a label has no character (an ellipsis axis).
static char *tfr_path_sliced_string(const tfr_einsum_plan *plan) {
  int32_t labels[TFR_EINSUM_MAX_SLICED];
  int n = tfr_einsum_plan_sliced_labels(plan, labels);
  char *s = calloc(4 * (size_t)n + 1, 1);
  size_t at = 0;
  for (int j = 0; s && j < n; j++) {
    uint32_t c = (uint32_t)labels[j];
    if (labels[j] < 0 || c > 0x10FFFF) {
      free(s);
      return NULL;
    }
    if (c < 0x80) {
      s[at++] = (char)c;
    } else if (c < 0x800) {
      s[at++] = (char)(0xC0 | (c >> 6));
      s[at++] = (char)(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      s[at++] = (char)(0xE0 | (c >> 12));
      s[at++] = (char)(0x80 | ((c >> 6) & 0x3F));
      s[at++] = (char)(0x80 | (c & 0x3F));
    } else {
      s[at++] = (char)(0xF0 | (c >> 18));
      s[at++] = (char)(0x80 | ((c >> 12) & 0x3F));
      s[at++] = (char)(0x80 | ((c >> 6) & 0x3F));
      s[at++] = (char)(0x80 | (c & 0x3F));
    }
  }
  return s;
}

int tfr_cli_save_path(const char *cmd, const char *file, const tfr_cli_network *net,
                      const tfr_einsum_plan *plan) {
  char *sliced = tfr_path_sliced_string(plan);
  tfr_path_write_args wa = {cmd, file, sliced, net, plan};
  int w = sliced ? tfr_cli_write_held(tfr_path_write_call, &wa)
                 : tfr_cli_errorf(cmd, file, "--save-path: a sliced label has no "
                                  "character (an ellipsis axis) or out of memory");
  free(sliced);
  return w;
}

int tfr_cli_plan(const char *cmd, const char *what, const tfr_cli_network *net,
                 const tfr_cli_path_io *io, double max_memory, size_t element_size,
                 tfr_einsum_options *opts, tfr_cli_progress *progress, tfr_einsum_plan **out) {
  *out = NULL;
  memset(progress, 0, sizeof *progress);
  progress->on = !io->quiet && isatty(STDERR_FILENO);
  if (progress->on) {
    opts->progress = tfr_progress_draw;
    opts->progress_ctx = progress;
  }
  tfr_path_read given = {0};
  if (io->path_file) {
    if (tfr_path_read_file(cmd, io->path_file, net, &given) != 0) return 1;
    opts->path_kind = TFR_EINSUM_PATH_GIVEN;
    opts->path = given.pairs;
    opts->path_len = given.len;
  }
  int rc = 1;
  tfr_einsum_plan *plan = NULL;
  double es = (double)element_size;
  // A searched path is searched with the budget (the tree and its sliced
  // labels together); a given one is sliced to fit below.
  bool search = opts->path_kind != TFR_EINSUM_PATH_GIVEN;
  opts->max_slice_elements = search && max_memory > 0 ? max_memory / es : 0;
  if (tfr_einsum_plan_create(net->subscripts, net->n, net->ranks, net->shapes, opts, &plan) !=
      TFR_OK) {
    if (opts->max_slice_elements > 0 && strstr(tfr_last_error_message(), "no slicing fits"))
      fprintf(stderr, "tenferro %s: %s: %s, %.4g bytes: %s\n", cmd, what, tfr_cli_budget_name(io), max_memory,
              tfr_last_error_message());
    else
      fprintf(stderr, "tenferro %s: %s: %s\n", cmd, what, tfr_last_error_message());
    goto done;
  }
  if (given.sliced && given.sliced[0] && tfr_einsum_plan_slice(plan, given.sliced) != TFR_OK) {
    tfr_cli_errorf(cmd, io->path_file, "\"sliced\": %s", tfr_last_error_message());
    goto done;
  }
  const tfr_einsum_path_info *info = tfr_einsum_plan_info(plan);
  if (!search && max_memory > 0 && info->sliced_peak_live_elements * es > max_memory &&
      tfr_einsum_plan_slice_to_fit(plan, max_memory / es) != TFR_OK) {
    fprintf(stderr, "tenferro %s: %s: %s, %.4g bytes: %s\n", cmd, what, tfr_cli_budget_name(io), max_memory,
            tfr_last_error_message());
    goto done;
  }
  *out = plan;
  plan = NULL;
  rc = 0;
done:
  opts->path = NULL;
  opts->path_len = 0;
  opts->max_slice_elements = 0;
  tfr_einsum_plan_release(plan);
  free(given.pairs);
  free(given.sliced);
  return rc;
}
