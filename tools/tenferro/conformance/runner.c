// Conformance runner: files and folders -> cases -> verdicts.
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../cli.h"
#include "conformance.h"

static bool tfr_conf_in(const char *s, const char *const *list, int n) {
  for (int i = 0; i < n; i++)
    if (strcmp(list[i], s) == 0) return true;
  return false;
}

// --op NAME matches the family (source_op) or any op of the program, with or
// without the "chlo." prefix; --case NAME matches the case name exactly.
static bool tfr_conf_selected(const tfr_conf_options *opt, const tfr_conf_case *c,
                              const char *family) {
  if (opt->ncases > 0 && !(c->name && tfr_conf_in(c->name, opt->cases, opt->ncases)))
    return false;
  if (opt->nops == 0 || tfr_conf_in(family, opt->ops, opt->nops)) return true;
  for (int k = 0; k < c->ninstrs; k++) {
    const tfr_conf_instr *in = &c->instrs[k];
    if (!in->op) continue;
    if (tfr_conf_in(in->op, opt->ops, opt->nops)) return true;
    char qualified[128];
    snprintf(qualified, sizeof qualified, "chlo.%s", in->op);
    if (in->chlo && tfr_conf_in(qualified, opt->ops, opt->nops)) return true;
  }
  return false;
}

// Writes the row-major multi-index of flat `index` in `t` as "[i,j,k]".
static void tfr_conf_format_index(const tfr_conf_type *t, int64_t index, char *buf, size_t n) {
  int64_t idx[TFR_MAX_RANK];
  for (int k = t->rank - 1; k >= 0; k--) {
    idx[k] = t->shape[k] ? index % t->shape[k] : 0;
    index = t->shape[k] ? index / t->shape[k] : 0;
  }
  size_t used = (size_t)snprintf(buf, n, "[");
  for (int k = 0; k < t->rank && used < n; k++)
    used += (size_t)snprintf(buf + used, n - used, "%s%lld", k ? "," : "", (long long)idx[k]);
  if (used < n) snprintf(buf + used, n - used, "]");
}

static void tfr_conf_print_program(FILE *log, const tfr_conf_case *c) {
  fprintf(log, "    program:");
  if (c->ninstrs == 0) fprintf(log, " (empty: value %d is an input)", c->output);
  for (int k = 0; k < c->ninstrs; k++) {
    const tfr_conf_instr *in = &c->instrs[k];
    fprintf(log, "%s %d = %s%s(", k ? ";" : "", c->ninputs + k, in->chlo ? "chlo." : "", in->op);
    for (int j = 0; j < in->noperands; j++) fprintf(log, "%s%d", j ? ", " : "", in->operands[j]);
    fprintf(log, ") %s", in->result.dtype->name);
  }
  fputc('\n', log);
}

// Compares the result with the expected tensor; returns the verdict and
// prints the FAIL line (with details under --verbose).
static tfr_conf_verdict tfr_conf_judge(const tfr_conf_options *opt, const tfr_conf_case *c,
                                       const unsigned char *got, size_t nbytes) {
  FILE *log = opt->log;
  const tfr_conf_tensor *e = &c->expected;
  if (nbytes != e->nbytes) {
    fprintf(log, "FAIL %s: result has %zu bytes, expected %zu\n", c->name, nbytes, e->nbytes);
    return TFR_CONF_FAIL;
  }
  const char *why;
  tfr_conf_tolerance tol = tfr_conf_pick_tolerance(opt->backend_kind, c, &why);
  tfr_conf_mismatch mm;
  if (tfr_conf_compare(e->type.dtype, got, e->data, e->type.numel, c->check, &tol, &mm))
    return TFR_CONF_PASS;
  static const char *const checks[] = {"eq", "close", "almost_eq"};
  fprintf(log, "FAIL %s: %lld of %lld elements differ (check %s)\n", c->name,
          (long long)mm.count, (long long)e->type.numel, checks[c->check]);
  if (!opt->verbose) return TFR_CONF_FAIL;
  char index[256], g[192], x[192];
  tfr_conf_format_index(&e->type, mm.index, index, sizeof index);
  tfr_conf_format_element(e->type.dtype, got, mm.index, g, sizeof g);
  tfr_conf_format_element(e->type.dtype, e->data, mm.index, x, sizeof x);
  fprintf(log, "    first at %s (flat %lld%s):\n      got      %s\n      expected %s\n", index,
          (long long)mm.index,
          e->type.dtype->kind == TFR_CONF_KIND_COMPLEX ? (mm.part ? ", imaginary part"
                                                                  : ", real part")
                                                       : "",
          g, x);
  if (e->type.dtype->format != TFR_CONF_FMT_NONE && c->check != TFR_CONF_CHECK_EQ) {
    if (mm.ulps == TFR_CONF_ULP_INF) fprintf(log, "      distance: infinite (NaN or inf)\n");
    else fprintf(log, "      distance: %llu ULP\n", (unsigned long long)mm.ulps);
    if (mm.count > 1 && mm.worst_index != mm.index) {
      tfr_conf_format_index(&e->type, mm.worst_index, index, sizeof index);
      if (mm.worst_ulps == TFR_CONF_ULP_INF)
        fprintf(log, "    worst at %s: infinite distance\n", index);
      else
        fprintf(log, "    worst at %s: %llu ULP\n", index, (unsigned long long)mm.worst_ulps);
    }
    fprintf(log, "    tolerance: N = %llu ULP, |a - e| <= %.3g (T = %g)%s: %s\n",
            (unsigned long long)tol.max_ulps, mm.abs_bound, tol.t,
            c->check == TFR_CONF_CHECK_ALMOST_EQ ? ", or <= 1e-3" : "", why);
  }
  tfr_conf_print_program(log, c);
  return TFR_CONF_FAIL;
}

// Whether `word` occurs in `text` as a word of its own (not inside a longer
// name: "i64" is not in "ui64").
static bool tfr_conf_names_word(const char *text, const char *word) {
  size_t n = strlen(word);
  for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
    bool before = p == text || !isalnum((unsigned char)p[-1]);
    bool after = !isalnum((unsigned char)p[n]);
    if (before && after) return true;
  }
  return false;
}

static tfr_conf_verdict tfr_conf_run_case(const tfr_conf_options *opt, const tfr_conf_case *c,
                                          const char **reason, char *buf) {
  FILE *log = opt->log;
  *reason = tfr_conf_skip_reason(c, buf);
  if (*reason) {
    if (opt->verbose) fprintf(log, "SKIP %s: %s\n", c->name, *reason);
    return TFR_CONF_SKIP;
  }
  // One session per case: a failing case leaves nothing queued behind for
  // the next one.
  tfr_session *s = NULL;
  tfr_status st = tfr_session_begin(opt->backend, &s);
  if (st) {
    fprintf(log, "FAIL %s: session_begin: %s: %s\n", c->name, tfr_status_string(st),
            tfr_last_error_message());
    return TFR_CONF_FAIL;
  }
  tfr_conf_exec x = {.session = s, .c = c, .max_memory = opt->max_memory,
                     .max_memory_default = opt->max_memory_default};
  unsigned char *got = NULL;
  size_t nbytes = 0;
  bool ok = tfr_conf_execute(&x, &got, &nbytes);
  st = tfr_session_end(s);
  if (ok && st) {
    ok = false;
    snprintf(x.msg, sizeof x.msg, "session_end: %s: %s", tfr_status_string(st),
             tfr_last_error_message());
  }
  tfr_conf_verdict v;
  // The webgpu backend computes on bool, the integers (i8 ... u64), f16,
  // bf16, f32 and c64, and on f64 and c128 in software (their exact ops; not
  // every analytic function yet; docs/webgpu.md): a case with a value of f64
  // or c128 that the backend refuses as such is a gap, not a wrong answer,
  // and the reason names the dtype the refusal names (else the case's first
  // such dtype) and the op. A refusal on any other dtype stays a failure.
  if (!ok && opt->backend_kind == TFR_CONF_BACKEND_WEBGPU &&
      strstr(x.msg, "TFR_ERR_UNSUPPORTED_DTYPE") && strstr(x.msg, "webgpu")) {
    int first = -1, named = -1;
    for (int vi = 0; vi < c->ninputs + c->ninstrs; vi++) {
      tfr_dtype d;
      if (!tfr_conf_lib_dtype(c->types[vi]->dtype, &d)) continue;
      if (d == TFR_BOOL || d == TFR_I32 || d == TFR_F32 || d == TFR_C64 || d == TFR_I64 ||
          d == TFR_U64 || d == TFR_U32 || d == TFR_I8 || d == TFR_I16 || d == TFR_U8 ||
          d == TFR_U16 || d == TFR_F16 || d == TFR_BF16)
        continue;
      if (first < 0) first = (int)d;
      // A named dtype without any kernels wins over f64 and c128.
      if ((named < 0 || named == TFR_F64 || named == TFR_C128) &&
          tfr_conf_names_word(x.msg, tfr_dtype_name(d)))
        named = (int)d;
    }
    if (first >= 0) {
      tfr_dtype dn = (tfr_dtype)(named >= 0 ? named : first);
      // f64 and c128 compute; what they lack is the op the message names
      // first ("exponential: dtype c128 ..."), which the reason names too.
      const char *at = strstr(x.msg, ": dtype ");
      const char *op = at;
      while (op && op > x.msg && op[-1] != ' ') op--;
      if ((dn == TFR_F64 || dn == TFR_C128) && op && at > op)
        snprintf(buf, TFR_CONF_MSG, "no %.*s on %s on webgpu yet", (int)(at - op), op,
                 tfr_dtype_name(dn));
      else
        snprintf(buf, TFR_CONF_MSG, "no %s kernels on webgpu", tfr_dtype_name(dn));
      *reason = buf;
      if (opt->verbose) fprintf(log, "SKIP %s: %s (%s)\n", c->name, *reason, x.msg);
      free(got);
      return TFR_CONF_SKIP;
    }
  }
  if (!ok) {
    fprintf(log, "FAIL %s: %s\n", c->name, x.msg);
    if (opt->verbose) tfr_conf_print_program(log, c);
    v = TFR_CONF_FAIL;
  } else {
    v = tfr_conf_judge(opt, c, got, nbytes);
  }
  free(got);
  return v;
}

// The file name without folder and extension, for lines too broken to name
// their family.
static void tfr_conf_stem(const char *path, char *buf, size_t n) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  snprintf(buf, n, "%s", base);
  char *dot = strrchr(buf, '.');
  if (dot && dot != buf) *dot = '\0';
}

static bool tfr_conf_run_file(const tfr_conf_options *opt, const char *path, tfr_conf_report *r) {
  const char *why = NULL;
  FILE *f = tfr_cli_open_input(path, &why);
  if (!f) {
    fprintf(stderr, "tenferro conformance: %s: %s\n", path, why);
    return false;
  }
  char stem[256];
  tfr_conf_stem(path, stem, sizeof stem);
  char *line = NULL;
  size_t cap = 0;
  long lineno = 0;
  bool ok = true;
  ssize_t len;
  while ((len = getline(&line, &cap, f)) >= 0) {
    lineno++;
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = '\0';
    if (len == 0) continue;
    tfr_conf_case c;
    char err[TFR_CONF_MSG], buf[TFR_CONF_MSG];
    const char *reason = NULL;
    tfr_conf_verdict v;
    bool parsed = tfr_conf_case_parse(line, (size_t)len, &c, err);
    const char *family = c.source_op ? c.source_op : stem;
    if (!tfr_conf_selected(opt, &c, family)) {
      tfr_conf_case_free(&c);
      continue;
    }
    if (!parsed) {
      fprintf(opt->log, "FAIL %s:%ld%s%s: malformed case: %s\n", path, lineno, c.name ? " " : "",
              c.name ? c.name : "", err);
      v = TFR_CONF_FAIL;
    } else {
      v = tfr_conf_run_case(opt, &c, &reason, buf);
      if (v == TFR_CONF_FAIL && opt->verbose)
        fprintf(opt->log, "    repro: tenferro conformance --case %s %s  (line %ld)\n", c.name,
                path, lineno);
    }
    if (!tfr_conf_report_add(r, family, v, reason)) {
      fprintf(stderr, "tenferro conformance: out of memory\n");
      ok = false;
    }
    tfr_conf_case_free(&c);
    if (!ok) break;
  }
  if (ok && ferror(f)) {
    fprintf(stderr, "tenferro conformance: %s: read error\n", path);
    ok = false;
  }
  free(line);
  fclose(f);
  return ok;
}

static int tfr_conf_name_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool tfr_conf_has_suffix(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n > m && strcmp(s + n - m, suffix) == 0;
}

// The *.jsonl files of a folder, in name order (not recursive).
static bool tfr_conf_run_dir(const tfr_conf_options *opt, const char *dir, tfr_conf_report *r) {
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "tenferro conformance: %s: %s\n", dir, strerror(errno));
    return false;
  }
  char **names = NULL;
  size_t n = 0, cap = 0;
  bool ok = true;
  struct dirent *e;
  while (ok && (e = readdir(d)) != NULL) {
    if (!tfr_conf_has_suffix(e->d_name, ".jsonl")) continue;
    if (n == cap) {
      size_t cap2 = cap ? cap * 2 : 128;
      char **p = realloc(names, cap2 * sizeof *names);
      if (!p) {
        ok = false;
        break;
      }
      names = p;
      cap = cap2;
    }
    size_t len = strlen(dir) + strlen(e->d_name) + 2;
    names[n] = malloc(len);
    if (!names[n]) {
      ok = false;
      break;
    }
    snprintf(names[n], len, "%s/%s", dir, e->d_name);
    n++;
  }
  closedir(d);
  if (!ok) fprintf(stderr, "tenferro conformance: out of memory listing %s\n", dir);
  if (n > 0) qsort(names, n, sizeof *names, tfr_conf_name_cmp);
  for (size_t i = 0; ok && i < n; i++) {
    struct stat sb;
    if (stat(names[i], &sb) == 0 && !S_ISREG(sb.st_mode)) continue;
    ok = tfr_conf_run_file(opt, names[i], r);
  }
  for (size_t i = 0; i < n; i++) free(names[i]);
  free(names);
  return ok;
}

bool tfr_conf_run_paths(const tfr_conf_options *opt, int npaths, char *const *paths,
                        tfr_conf_report *r) {
  bool ok = true;
  for (int i = 0; i < npaths; i++) {
    struct stat sb;
    if (stat(paths[i], &sb) != 0) {
      fprintf(stderr, "tenferro conformance: %s: %s\n", paths[i], strerror(errno));
      ok = false;
    } else if (S_ISDIR(sb.st_mode)) {
      ok = tfr_conf_run_dir(opt, paths[i], r) && ok;
    } else {
      ok = tfr_conf_run_file(opt, paths[i], r) && ok;
    }
  }
  return ok;
}
