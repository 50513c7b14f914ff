// Conformance runner: tallies per family and per skip reason, and the printed
// report. Families and reasons number in the hundreds at most, so plain
// arrays with linear search are enough.
#include <stdlib.h>
#include <string.h>

#include "conformance.h"

typedef struct tfr_conf_count {
  char *key;
  int64_t n;
} tfr_conf_count;

typedef struct tfr_conf_counts {
  tfr_conf_count *items;
  size_t n, cap;
} tfr_conf_counts;

typedef struct tfr_conf_family {
  char *name;
  int64_t passed, failed, skipped;
  tfr_conf_counts reasons;
} tfr_conf_family;

struct tfr_conf_report {
  tfr_conf_family *families;
  size_t n, cap;
  tfr_conf_counts reasons;  // over all families
};

static char *tfr_conf_strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = malloc(n);
  if (p) memcpy(p, s, n);
  return p;
}

// Grows an array of `size`-byte items to hold one more; false when out of memory.
static bool tfr_conf_grow(void **items, size_t *cap, size_t n, size_t size) {
  if (n < *cap) return true;
  size_t cap2 = *cap ? *cap * 2 : 16;
  void *p = realloc(*items, cap2 * size);
  if (!p) return false;
  *items = p;
  *cap = cap2;
  return true;
}

static bool tfr_conf_count_add(tfr_conf_counts *c, const char *key) {
  for (size_t i = 0; i < c->n; i++)
    if (strcmp(c->items[i].key, key) == 0) {
      c->items[i].n++;
      return true;
    }
  void *items = c->items;
  if (!tfr_conf_grow(&items, &c->cap, c->n, sizeof *c->items)) return false;
  c->items = items;
  char *k = tfr_conf_strdup(key);
  if (!k) return false;
  c->items[c->n++] = (tfr_conf_count){k, 1};
  return true;
}

static void tfr_conf_counts_free(tfr_conf_counts *c) {
  for (size_t i = 0; i < c->n; i++) free(c->items[i].key);
  free(c->items);
}

// Most frequent first, then by name, so the report reads the same each run.
static int tfr_conf_count_cmp(const void *a, const void *b) {
  const tfr_conf_count *x = a, *y = b;
  if (x->n != y->n) return x->n > y->n ? -1 : 1;
  return strcmp(x->key, y->key);
}

static int tfr_conf_family_cmp(const void *a, const void *b) {
  return strcmp(((const tfr_conf_family *)a)->name, ((const tfr_conf_family *)b)->name);
}

tfr_conf_report *tfr_conf_report_create(void) { return calloc(1, sizeof(tfr_conf_report)); }

void tfr_conf_report_free(tfr_conf_report *r) {
  if (!r) return;
  for (size_t i = 0; i < r->n; i++) {
    free(r->families[i].name);
    tfr_conf_counts_free(&r->families[i].reasons);
  }
  free(r->families);
  tfr_conf_counts_free(&r->reasons);
  free(r);
}

bool tfr_conf_report_add(tfr_conf_report *r, const char *source_op, tfr_conf_verdict v,
                         const char *reason) {
  tfr_conf_family *f = NULL;
  for (size_t i = 0; i < r->n && !f; i++)
    if (strcmp(r->families[i].name, source_op) == 0) f = &r->families[i];
  if (!f) {
    void *items = r->families;
    if (!tfr_conf_grow(&items, &r->cap, r->n, sizeof *r->families)) return false;
    r->families = items;
    char *name = tfr_conf_strdup(source_op);
    if (!name) return false;
    f = &r->families[r->n++];
    memset(f, 0, sizeof *f);
    f->name = name;
  }
  switch (v) {
    case TFR_CONF_PASS: f->passed++; break;
    case TFR_CONF_FAIL: f->failed++; break;
    case TFR_CONF_SKIP:
      f->skipped++;
      if (!reason) reason = "(no reason)";
      return tfr_conf_count_add(&f->reasons, reason) && tfr_conf_count_add(&r->reasons, reason);
  }
  return true;
}

static void tfr_conf_report_totals(const tfr_conf_report *r, int64_t *p, int64_t *f, int64_t *s) {
  *p = *f = *s = 0;
  for (size_t i = 0; i < r->n; i++) {
    *p += r->families[i].passed;
    *f += r->families[i].failed;
    *s += r->families[i].skipped;
  }
}

int64_t tfr_conf_report_failed(const tfr_conf_report *r) {
  int64_t p, f, s;
  tfr_conf_report_totals(r, &p, &f, &s);
  return f;
}

int64_t tfr_conf_report_total(const tfr_conf_report *r) {
  int64_t p, f, s;
  tfr_conf_report_totals(r, &p, &f, &s);
  return p + f + s;
}

void tfr_conf_report_print(tfr_conf_report *r, FILE *out) {
  // Sorting here (not on insert) keeps the tallies' pointers stable while
  // cases are added; the report is printed once, at the end.
  // qsort must not see a NULL array, even with no elements.
  if (r->n > 1) qsort(r->families, r->n, sizeof *r->families, tfr_conf_family_cmp);
  fprintf(out, "\n%-26s %6s %6s %7s  %s\n", "family", "passed", "failed", "skipped",
          "skip reasons (cases)");
  for (size_t i = 0; i < r->n; i++) {
    tfr_conf_family *f = &r->families[i];
    if (f->reasons.n > 1)
      qsort(f->reasons.items, f->reasons.n, sizeof *f->reasons.items, tfr_conf_count_cmp);
    fprintf(out, "%-26s %6lld %6lld %7lld ", f->name, (long long)f->passed, (long long)f->failed,
            (long long)f->skipped);
    for (size_t k = 0; k < f->reasons.n; k++)
      fprintf(out, "%s %s (%lld)", k ? ";" : "", f->reasons.items[k].key,
              (long long)f->reasons.items[k].n);
    fputc('\n', out);
  }
  if (r->reasons.n > 1)
    qsort(r->reasons.items, r->reasons.n, sizeof *r->reasons.items, tfr_conf_count_cmp);
  if (r->reasons.n > 0) {
    fprintf(out, "\n%-40s %6s\n", "skip reason", "cases");
    for (size_t k = 0; k < r->reasons.n; k++)
      fprintf(out, "%-40s %6lld\n", r->reasons.items[k].key, (long long)r->reasons.items[k].n);
  }
  int64_t p, f, s;
  tfr_conf_report_totals(r, &p, &f, &s);
  fprintf(out, "\n%lld passed, %lld failed, %lld skipped\n", (long long)p, (long long)f,
          (long long)s);
}
