// Parsing numpy einsum strings (UTF-8) and integer labels into expressions.
#include <stdlib.h>
#include <string.h>

#include "einsum/einsum_impl.h"

void tfr_einsum_expr_free(tfr_einsum_expr *e) {
  for (int i = 0; e->labels && i < e->n; i++) tfr_free(e->labels[i]);
  for (int i = 0; e->shapes && i < e->n; i++) tfr_free(e->shapes[i]);
  tfr_free(e->labels);
  tfr_free(e->shapes);
  tfr_free(e->ranks);
  tfr_free(e->out_labels);
  tfr_free(e->extent);
  tfr_free(e->names);
  memset(e, 0, sizeof *e);
}

// Allocates the per-operand arrays of `e` and copies ranks and shapes.
static tfr_status tfr_einsum_alloc(tfr_einsum_expr *e, int n, const int *ranks,
                                   const int64_t *const *shapes) {
  memset(e, 0, sizeof *e);
  if (n < 1) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: %d operands (need at least 1)", n);
  if (!ranks || !shapes)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: %s is NULL", ranks ? "shapes" : "ranks");
  e->n = n;
  e->ranks = tfr_calloc((size_t)n, sizeof(int));
  e->labels = tfr_calloc((size_t)n, sizeof(int *));
  e->shapes = tfr_calloc((size_t)n, sizeof(int64_t *));
  if (!e->ranks || !e->labels || !e->shapes)
    return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory");
  for (int i = 0; i < n; i++) {
    int r = ranks[i];
    if (r < 0 || r > TFR_MAX_RANK)
      return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: operand %d has rank %d", i, r);
    if (r > 0 && !shapes[i])
      return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: shape of operand %d is NULL", i);
    e->ranks[i] = r;
    e->labels[i] = tfr_calloc((size_t)r + 1, sizeof(int));
    e->shapes[i] = tfr_calloc((size_t)r + 1, sizeof(int64_t));
    if (!e->labels[i] || !e->shapes[i])
      return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory");
    for (int k = 0; k < r; k++) {
      if (shapes[i][k] < 0)
        return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                         "einsum: operand %d axis %d has negative extent %" PRId64, i, k,
                         shapes[i][k]);
      e->shapes[i][k] = shapes[i][k];
    }
  }
  return TFR_OK;
}

tfr_status tfr_einsum_check_extents(tfr_einsum_expr *e) {
  // The result is a tensor: at most TFR_MAX_RANK axes (an implicit output
  // of several operands' single labels can have more).
  if (e->num_out > TFR_MAX_RANK)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "einsum: the output would have %d axes (at most %d)", e->num_out,
                     TFR_MAX_RANK);
  e->extent = tfr_calloc((size_t)e->num_labels + 1, sizeof(int64_t));
  if (!e->extent) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory");
  for (int l = 0; l < e->num_labels; l++) e->extent[l] = -1;
  // Within one operand a repeated label takes a diagonal: its axes must have
  // one extent (numpy refuses "ii->i" on shape (1, 3) too; extent 1
  // broadcasts only across operands).
  for (int i = 0; i < e->n; i++)
    for (int k = 1; k < e->ranks[i]; k++)
      for (int j = 0; j < k; j++)
        if (e->labels[i][j] == e->labels[i][k] && e->shapes[i][j] != e->shapes[i][k])
          return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                           "einsum: operand %d repeats a label on axes %d and %d, whose extents "
                           "differ (%" PRId64 " and %" PRId64 "): a diagonal needs equal extents",
                           i, j, k, e->shapes[i][j], e->shapes[i][k]);
  for (int i = 0; i < e->n; i++)
    for (int k = 0; k < e->ranks[i]; k++) {
      int l = e->labels[i][k];
      int64_t d = e->shapes[i][k];
      if (e->extent[l] < 0 || e->extent[l] == 1) {
        e->extent[l] = d;
      } else if (d != e->extent[l] && d != 1) {
        return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                         "einsum: operand %d axis %d has extent %" PRId64
                         ", another axis with the same label has extent %" PRId64,
                         i, k, d, e->extent[l]);
      }
    }
  for (int j = 0; j < e->num_out; j++)
    if (e->extent[e->out_labels[j]] < 0)
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "einsum: output label %d appears in no operand", j);
  return TFR_OK;
}

// Decodes one UTF-8 code point at s[*pos]; -1 on malformed input.
static int32_t tfr_utf8_next(const unsigned char *s, size_t *pos) {
  unsigned c = s[*pos];
  int len;
  uint32_t cp;
  if (c < 0x80) { len = 1; cp = c; }
  else if ((c & 0xE0) == 0xC0) { len = 2; cp = c & 0x1F; }
  else if ((c & 0xF0) == 0xE0) { len = 3; cp = c & 0x0F; }
  else if ((c & 0xF8) == 0xF0) { len = 4; cp = c & 0x07; }
  else return -1;
  for (int i = 1; i < len; i++) {
    unsigned d = s[*pos + (size_t)i];
    if ((d & 0xC0) != 0x80) return -1;
    cp = (cp << 6) | (d & 0x3F);
  }
  static const uint32_t min_for_len[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < min_for_len[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return -1;
  *pos += (size_t)len;
  return (int32_t)cp;
}

// A term: the labels of one operand (or the output) as code points, with the
// position of the ellipsis (-1 if none).
typedef struct tfr_term {
  int32_t *cps;
  int count;
  int ellipsis_at;  // index in cps before which "..." stands
} tfr_term;

static bool tfr_is_space(int32_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Parses one term from s[*pos] up to ',' / "->" / end.
static tfr_status tfr_parse_term(const char *s, size_t *pos, tfr_term *t) {
  const unsigned char *u = (const unsigned char *)s;
  t->count = 0;
  t->ellipsis_at = -1;
  size_t cap = 8;
  t->cps = tfr_alloc(cap * sizeof(int32_t));
  if (!t->cps) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory");
  while (u[*pos] && u[*pos] != ',' && !(u[*pos] == '-' && u[*pos + 1] == '>')) {
    size_t at = *pos;
    if (u[at] == '.') {
      if (u[at + 1] != '.' || u[at + 2] != '.')
        return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                         "einsum: a '.' at byte %zu is not part of an ellipsis \"...\"", at);
      if (t->ellipsis_at >= 0)
        return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: a second ellipsis at byte %zu", at);
      t->ellipsis_at = t->count;
      *pos += 3;
      continue;
    }
    int32_t cp = tfr_utf8_next(u, pos);
    if (cp < 0) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: invalid UTF-8 at byte %zu", at);
    if (tfr_is_space(cp)) continue;
    if (cp == '-' || cp == '>')
      return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: stray '%c' at byte %zu (the output "
                       "is introduced by \"->\")", (char)cp, at);
    if ((size_t)t->count == cap) {
      cap *= 2;
      int32_t *grown = tfr_realloc(t->cps, cap * sizeof(int32_t));
      if (!grown) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory");
      t->cps = grown;
    }
    t->cps[t->count++] = cp;
  }
  return TFR_OK;
}

// Code point -> dense label id (ids of ellipsis axes come first: 0..E-1).
typedef struct tfr_label_map {
  int32_t *cps;
  int count, cap;
  int first;  // id of cps[0]
} tfr_label_map;

static tfr_status tfr_label_id(tfr_label_map *m, int32_t cp, int *id) {
  for (int i = 0; i < m->count; i++)
    if (m->cps[i] == cp) {
      *id = m->first + i;
      return TFR_OK;
    }
  if (m->count == m->cap) {
    int cap = m->cap ? m->cap * 2 : 32;
    int32_t *grown = tfr_realloc(m->cps, (size_t)cap * sizeof(int32_t));
    if (!grown) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory");
    m->cps = grown;
    m->cap = cap;
  }
  m->cps[m->count] = cp;
  *id = m->first + m->count++;
  return TFR_OK;
}

static int tfr_cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

// The body of tfr_einsum_parse; `terms` (n + 1 entries) and `map` are
// freed by the caller.
static tfr_status tfr_einsum_parse_terms(const char *s, tfr_einsum_expr *e, tfr_term *terms,
                                         tfr_label_map *map, bool *explicit_out) {
  size_t pos = 0;
  int n = e->n;
  for (int i = 0; i < n; i++) {
    TFR_RETURN_IF_ERROR(tfr_parse_term(s, &pos, &terms[i]));
    if (i < n - 1) {
      if (s[pos] != ',')
        return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                         "einsum: the subscripts have %d operand term(s), %d operands were given",
                         i + 1, n);
      pos++;
    }
  }
  if (s[pos] == ',')
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "einsum: the subscripts have more operand terms than the %d operands given", n);
  *explicit_out = false;
  if (s[pos] == '-') {
    pos += 2;
    *explicit_out = true;
    TFR_RETURN_IF_ERROR(tfr_parse_term(s, &pos, &terms[n]));
    if (s[pos] != '\0')
      return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: unexpected '%c' at byte %zu of the output",
                       s[pos], pos);
  }
  // Ellipsis dims per operand; E = the most of them.
  int E = 0;
  for (int i = 0; i < n; i++) {
    int ell = e->ranks[i] - terms[i].count;
    if (ell < 0 || (ell > 0 && terms[i].ellipsis_at < 0))
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "einsum: operand %d has rank %d but its term has %d label(s)%s", i,
                       e->ranks[i], terms[i].count, terms[i].ellipsis_at >= 0 ? " and an ellipsis" : "");
    if (ell > E) E = ell;
  }
  map->first = E;
  for (int i = 0; i < n; i++) {
    int ell = e->ranks[i] - terms[i].count;
    int k = 0;
    for (int j = 0; j <= terms[i].count; j++) {
      if (j == terms[i].ellipsis_at)
        for (int q = 0; q < ell; q++) e->labels[i][k++] = E - ell + q;  // right-aligned
      if (j < terms[i].count) TFR_RETURN_IF_ERROR(tfr_label_id(map, terms[i].cps[j], &e->labels[i][k++]));
    }
  }
  e->num_labels = E + map->count;
  e->names = tfr_alloc(((size_t)e->num_labels + 1) * sizeof(int32_t));
  if (!e->names) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory");
  for (int q = 0; q < E; q++) e->names[q] = -1 - q;
  for (int m = 0; m < map->count; m++) e->names[E + m] = map->cps[m];
  int *counts = tfr_calloc((size_t)e->num_labels + 1, sizeof(int));
  if (!counts) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory");
  for (int i = 0; i < n; i++)
    for (int k = 0; k < e->ranks[i]; k++) counts[e->labels[i][k]]++;
  e->out_labels = tfr_calloc((size_t)e->num_labels + 1, sizeof(int));
  if (!e->out_labels) {
    tfr_free(counts);
    return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory");
  }
  tfr_status st = TFR_OK;
  if (*explicit_out) {
    tfr_term *o = &terms[n];
    // Without "..." in the output, the ellipsis axes are summed over like
    // any label the output lacks (numpy 1.24, Debian 12's, refuses such a
    // string).
    bool *used = tfr_calloc((size_t)e->num_labels + 1, sizeof(bool));
    if (!st && !used) st = tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory");
    for (int j = 0; !st && j <= o->count; j++) {
      if (j == o->ellipsis_at)
        for (int q = 0; q < E; q++) e->out_labels[e->num_out++] = q;
      if (j == o->count) break;
      int id = -1;
      for (int m = 0; m < map->count; m++)
        if (map->cps[m] == o->cps[j]) id = map->first + m;
      if (id < 0) {
        st = tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "einsum: output label %d (U+%04X) appears in no operand", j,
                       (unsigned)o->cps[j]);
      } else if (used[id]) {
        st = tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "einsum: output label %d (U+%04X) appears twice in the output", j,
                       (unsigned)o->cps[j]);
      } else {
        used[id] = true;
        e->out_labels[e->num_out++] = id;
      }
    }
    tfr_free(used);
  } else {
    // Implicit: ellipsis dims, then labels seen once, in code-point order.
    for (int q = 0; q < E; q++) e->out_labels[e->num_out++] = q;
    int32_t *once = tfr_alloc(((size_t)map->count + 1) * sizeof(int32_t));
    if (!once) st = tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory");
    int no = 0;
    for (int m = 0; !st && m < map->count; m++)
      if (counts[map->first + m] == 1) once[no++] = map->cps[m];
    if (!st) qsort(once, (size_t)no, sizeof(int32_t), tfr_cmp_i32);
    for (int j = 0; !st && j < no; j++)
      for (int m = 0; m < map->count; m++)
        if (map->cps[m] == once[j]) e->out_labels[e->num_out++] = map->first + m;
    tfr_free(once);
  }
  tfr_free(counts);
  return st;
}

tfr_status tfr_einsum_parse(const char *subscripts, int n, const int *ranks,
                            const int64_t *const *shapes, tfr_einsum_expr *e) {
  if (!subscripts) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: subscripts is NULL");
  TFR_RETURN_IF_ERROR(tfr_einsum_alloc(e, n, ranks, shapes));
  tfr_term *terms = tfr_calloc((size_t)n + 1, sizeof(tfr_term));
  if (!terms) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory");
  tfr_label_map map = {0};
  bool explicit_out;
  tfr_status st = tfr_einsum_parse_terms(subscripts, e, terms, &map, &explicit_out);
  for (int i = 0; i <= n; i++) tfr_free(terms[i].cps);
  tfr_free(terms);
  tfr_free(map.cps);
  if (!st) st = tfr_einsum_check_extents(e);
  return st;
}

tfr_status tfr_einsum_from_labels(int n, const int *ranks, const int64_t *const *shapes,
                                  const int32_t *const *labels, int num_out,
                                  const int32_t *out_labels, tfr_einsum_expr *e) {
  TFR_RETURN_IF_ERROR(tfr_einsum_alloc(e, n, ranks, shapes));
  if (!labels) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: labels is NULL");
  if (num_out < 0 || (num_out > 0 && !out_labels))
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: bad output label list (%d labels)", num_out);
  tfr_label_map map = {0};
  tfr_status st = TFR_OK;
  for (int i = 0; !st && i < n; i++) {
    if (e->ranks[i] > 0 && !labels[i]) {
      st = tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: labels of operand %d is NULL", i);
      break;
    }
    for (int k = 0; !st && k < e->ranks[i]; k++) st = tfr_label_id(&map, labels[i][k], &e->labels[i][k]);
  }
  e->num_labels = map.count;
  if (!st) {
    e->names = map.cps;  // the caller's labels, by id
    map.cps = NULL;
    if (!e->names) e->names = tfr_calloc(1, sizeof(int32_t));
    if (!e->names) st = tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory");
  }
  if (!st) {
    e->out_labels = tfr_calloc((size_t)num_out + 1, sizeof(int));
    if (!e->out_labels) st = tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory");
  }
  for (int j = 0; !st && j < num_out; j++) {
    int id = -1;
    for (int m = 0; m < map.count; m++)
      if (e->names[m] == out_labels[j]) id = m;
    if (id < 0) {
      st = tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: output label %" PRId32 " appears in no operand",
                     out_labels[j]);
      break;
    }
    for (int q = 0; q < j; q++)
      if (e->out_labels[q] == id)
        st = tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: output label %" PRId32 " appears twice",
                       out_labels[j]);
    e->out_labels[e->num_out++] = id;
  }
  tfr_free(map.cps);
  if (!st) st = tfr_einsum_check_extents(e);
  return st;
}

tfr_status tfr_einsum_parse_label_list(const char *labels, int32_t **out, int *n) {
  *out = NULL;
  *n = 0;
  const unsigned char *u = (const unsigned char *)labels;
  size_t len = strlen(labels), pos = 0;
  int32_t *cps = tfr_alloc((len + 1) * sizeof(int32_t));
  if (!cps) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory");
  int count = 0;
  while (u[pos]) {
    size_t at = pos;
    int32_t cp = tfr_utf8_next(u, &pos);
    if (cp < 0) {
      tfr_free(cps);
      return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: invalid UTF-8 at byte %zu of the labels", at);
    }
    if (!tfr_is_space(cp)) cps[count++] = cp;
  }
  if (count == 0) {
    tfr_free(cps);
    cps = NULL;
  }
  *out = cps;
  *n = count;
  return TFR_OK;
}

double tfr_einsum_operand_elements(const tfr_einsum_expr *e) {
  double total = 0;
  for (int i = 0; i < e->n; i++) {
    double x = 1;
    for (int k = 0; k < e->ranks[i]; k++) x *= (double)e->shapes[i][k];
    total += x;
  }
  return total;
}
