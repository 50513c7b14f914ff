// python/src/pathinfo.c: tenferro.PathInfo, the statistics opt_einsum's
// contract_path returns (opt_einsum.contract.PathInfo's fields and table),
// computed from the subscript string, the shapes and a plan's path.
//
// Costs count as opt_einsum counts them: a step over the labels L costs
// prod(extents of L) * (2 if it sums a label else 1); the naive cost is the
// one-step product over every label times max(1, n - 1) (+ 1 when a label
// is summed). Ellipsis axes get fresh labels (unused letters first).
#include "tfrpy.h"

#include <structmember.h>

typedef struct {
  PyObject_HEAD
  PyObject *path, *contraction_list, *input_subscripts, *output_subscript, *indices,
      *size_dict, *naive_cost, *opt_cost, *speedup, *largest_intermediate, *scale_list,
      *size_list, *eq;
} tfrpy_pathinfo;

#define NFIELDS 13

static void pathinfo_dealloc(PyObject *obj) {
  PyObject **f = &((tfrpy_pathinfo *)obj)->path;
  for (int i = 0; i < NFIELDS; ++i) Py_XDECREF(f[i]);
  PyObject_Free(obj);
}

// "1.000e+3"-style numbers as opt_einsum prints them.
static void fmt_e(char *buf, size_t n, PyObject *num) {
  double v = PyFloat_AsDouble(num);
  if (v == -1.0 && PyErr_Occurred()) PyErr_Clear();
  char tmp[64];
  snprintf(tmp, sizeof tmp, "%.3e", v);
  // C prints e+03; Python's format gives e+03 too: keep it.
  snprintf(buf, n, "%s", tmp);
}

static PyObject *pathinfo_str(PyObject *obj) {
  tfrpy_pathinfo *p = (tfrpy_pathinfo *)obj;
  char naive[64], opt[64], speed[64], large[64];
  fmt_e(naive, sizeof naive, p->naive_cost);
  fmt_e(opt, sizeof opt, p->opt_cost);
  fmt_e(speed, sizeof speed, p->speedup);
  fmt_e(large, sizeof large, p->largest_intermediate);
  Py_ssize_t max_scale = 0;
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(p->scale_list); ++i) {
    Py_ssize_t s = PyLong_AsSsize_t(PyList_GET_ITEM(p->scale_list, i));
    if (s > max_scale) max_scale = s;
  }
  PyObject *head = PyUnicode_FromFormat(
      "  Complete contraction:  %U\n"
      "         Naive scaling:  %zd\n"
      "     Optimized scaling:  %zd\n"
      "      Naive FLOP count:  %s\n"
      "  Optimized FLOP count:  %s\n"
      "   Theoretical speedup:  %s\n"
      "  Largest intermediate:  %s elements\n"
      "--------------------------------------------------------------------------------\n"
      "scaling        BLAS                current                             remaining\n"
      "--------------------------------------------------------------------------------",
      p->eq, PySet_GET_SIZE(p->indices), max_scale, naive, opt, speed, large);
  if (!head) return NULL;
  PyObject *lines = PyList_New(0);
  if (!lines || PyList_Append(lines, head) < 0) {
    Py_DECREF(head);
    Py_XDECREF(lines);
    return NULL;
  }
  Py_DECREF(head);
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(p->contraction_list); ++i) {
    PyObject *c = PyList_GET_ITEM(p->contraction_list, i);
    PyObject *remaining = PyTuple_GET_ITEM(c, 3);
    PyObject *comma = PyUnicode_FromString(",");
    PyObject *rem = comma ? PyUnicode_Join(comma, remaining) : NULL;
    Py_XDECREF(comma);
    if (!rem) {
      Py_DECREF(lines);
      return NULL;
    }
    PyObject *blas = PyTuple_GET_ITEM(c, 4);
    // printf-style formatting of str (the % operator) pads by width.
    PyObject *fmt = PyUnicode_FromString("\n%4d    %14s %22s    %s->%s");
    PyObject *vals = fmt ? PyTuple_Pack(5, PyList_GET_ITEM(p->scale_list, i), blas,
                                        PyTuple_GET_ITEM(c, 2), rem, p->output_subscript)
                         : NULL;
    PyObject *line = vals ? PyUnicode_Format(fmt, vals) : NULL;
    Py_XDECREF(fmt);
    Py_XDECREF(vals);
    Py_DECREF(rem);
    if (!line || PyList_Append(lines, line) < 0) {
      Py_XDECREF(line);
      Py_DECREF(lines);
      return NULL;
    }
    Py_DECREF(line);
  }
  PyObject *empty = PyUnicode_FromString("");
  PyObject *res = empty ? PyUnicode_Join(empty, lines) : NULL;
  Py_XDECREF(empty);
  Py_DECREF(lines);
  return res;
}

#define M(name, doc) \
  {#name, T_OBJECT_EX, offsetof(tfrpy_pathinfo, name), READONLY, doc}
static PyMemberDef pathinfo_members[] = {
    M(path, "The contraction path: a list of pairs of positions (opt_einsum format)."),
    M(contraction_list,
      "Per step: (positions, labels summed (a set), 'a,b->c', the terms left after it,\n"
      "the kind of product: 'GEMM', 'GEMV/EINSUM', 'DOT', 'OUTER/EINSUM' or False)."),
    M(input_subscripts, "The operands' terms joined by ',' (ellipses expanded)."),
    M(output_subscript, "The output's term (implicit outputs made explicit)."),
    M(indices, "The set of every label."),
    M(size_dict, "label -> extent."),
    M(naive_cost, "The cost of contracting all operands in one step (an int)."),
    M(opt_cost, "The cost of the path (an int)."),
    M(speedup, "naive_cost / opt_cost (a float)."),
    M(largest_intermediate, "Elements of the largest step result (an int)."),
    M(scale_list, "Per step: the number of labels it spans."),
    M(size_list, "Per step: the elements of its result."),
    M(eq, "The contraction, 'terms->output' with the implicit output made explicit."),
    {NULL, 0, 0, 0, NULL}};
#undef M

static PyTypeObject pathinfo_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tenferro.PathInfo",
    .tp_basicsize = sizeof(tfrpy_pathinfo),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "What contract_path found: opt_einsum's PathInfo fields (path,\n"
              "contraction_list, input_subscripts, output_subscript, indices, size_dict,\n"
              "naive_cost, opt_cost, speedup, largest_intermediate, scale_list, size_list,\n"
              "eq); str() prints opt_einsum's table.",
    .tp_dealloc = pathinfo_dealloc,
    .tp_str = pathinfo_str,
    .tp_repr = pathinfo_str,
    .tp_members = pathinfo_members,
};

int tfrpy_pathinfo_init(PyObject *module) {
  if (PyType_Ready(&pathinfo_type) < 0) return -1;
  return PyModule_AddObjectRef(module, "PathInfo", (PyObject *)&pathinfo_type);
}

// ---------------------------------------------------------------------------
// Helpers on strings of labels (Python str, one code point per label)
// ---------------------------------------------------------------------------
static bool has_char(PyObject *s, Py_UCS4 c) {
  Py_ssize_t n = PyUnicode_GET_LENGTH(s);
  for (Py_ssize_t i = 0; i < n; ++i)
    if (PyUnicode_READ_CHAR(s, i) == c) return true;
  return false;
}

// prod(size_dict[c] for c in s) as a Python int.
static PyObject *prod_sizes(PyObject *s, PyObject *size_dict) {
  PyObject *acc = PyLong_FromLong(1);
  Py_ssize_t n = PyUnicode_GET_LENGTH(s);
  for (Py_ssize_t i = 0; acc && i < n; ++i) {
    PyObject *c = PyUnicode_Substring(s, i, i + 1);
    PyObject *e = c ? PyDict_GetItemWithError(size_dict, c) : NULL;
    Py_XDECREF(c);
    if (!e) {
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_KeyError, "label without an extent");
      Py_CLEAR(acc);
      break;
    }
    PyObject *next = PyNumber_Multiply(acc, e);
    Py_DECREF(acc);
    acc = next;
  }
  return acc;
}

// The labels of a and b in order, each once.
static PyObject *ordered_union(PyObject *a, PyObject *b) {
  PyObject *ab = PyUnicode_Concat(a, b);
  if (!ab) return NULL;
  Py_ssize_t n = PyUnicode_GET_LENGTH(ab);
  Py_UCS4 *buf = PyMem_Malloc(sizeof(Py_UCS4) * (size_t)(n ? n : 1));
  if (!buf) {
    Py_DECREF(ab);
    return PyErr_NoMemory();
  }
  Py_ssize_t m = 0;
  for (Py_ssize_t i = 0; i < n; ++i) {
    Py_UCS4 c = PyUnicode_READ_CHAR(ab, i);
    bool seen = false;
    for (Py_ssize_t j = 0; j < m && !seen; ++j) seen = buf[j] == c;
    if (!seen) buf[m++] = c;
  }
  Py_DECREF(ab);
  PyObject *res = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, buf, m);
  PyMem_Free(buf);
  return res;
}

// The labels of s (in order) for which keep(c) holds / does not hold.
static PyObject *filter_labels(PyObject *s, PyObject *others, PyObject *out, bool want_kept) {
  Py_ssize_t n = PyUnicode_GET_LENGTH(s);
  Py_UCS4 *buf = PyMem_Malloc(sizeof(Py_UCS4) * (size_t)(n ? n : 1));
  if (!buf) return PyErr_NoMemory();
  Py_ssize_t m = 0;
  for (Py_ssize_t i = 0; i < n; ++i) {
    Py_UCS4 c = PyUnicode_READ_CHAR(s, i);
    bool kept = has_char(out, c);
    for (Py_ssize_t k = 0; !kept && k < PyList_GET_SIZE(others); ++k)
      kept = has_char(PyList_GET_ITEM(others, k), c);
    if (kept == want_kept) buf[m++] = c;
  }
  PyObject *res = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, buf, m);
  PyMem_Free(buf);
  return res;
}

// opt_einsum-like name of the product of a step.
static PyObject *blas_kind(PyObject *a, PyObject *b, PyObject *removed) {
  bool shared_sum = false;
  for (Py_ssize_t i = 0; i < PyUnicode_GET_LENGTH(removed); ++i) {
    Py_UCS4 c = PyUnicode_READ_CHAR(removed, i);
    if (has_char(a, c) && has_char(b, c)) shared_sum = true;
  }
  if (!shared_sum) {
    bool any_shared = false;
    for (Py_ssize_t i = 0; i < PyUnicode_GET_LENGTH(a); ++i)
      any_shared |= has_char(b, PyUnicode_READ_CHAR(a, i));
    if (!any_shared && PyUnicode_GET_LENGTH(a) && PyUnicode_GET_LENGTH(b))
      return PyUnicode_FromString("OUTER/EINSUM");
    Py_RETURN_FALSE;
  }
  bool free_a = false, free_b = false;
  for (Py_ssize_t i = 0; i < PyUnicode_GET_LENGTH(a); ++i)
    free_a |= !has_char(b, PyUnicode_READ_CHAR(a, i));
  for (Py_ssize_t i = 0; i < PyUnicode_GET_LENGTH(b); ++i)
    free_b |= !has_char(a, PyUnicode_READ_CHAR(b, i));
  if (free_a && free_b) return PyUnicode_FromString("GEMM");
  if (free_a || free_b) return PyUnicode_FromString("GEMV/EINSUM");
  return PyUnicode_FromString("DOT");
}

// ---------------------------------------------------------------------------
// Building a PathInfo
// ---------------------------------------------------------------------------
// Fresh label k (not in `used`): unused ASCII letters, then code points from
// U+00C0 on.
static Py_UCS4 fresh_label(PyObject *used, int k) {
  static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  int seen = 0;
  for (const char *p = letters; *p; ++p)
    if (!has_char(used, (Py_UCS4)*p) && seen++ == k) return (Py_UCS4)*p;
  for (Py_UCS4 c = 0xC0;; ++c)
    if (!has_char(used, c) && seen++ == k) return c;
}

static PyObject *replace_ellipsis(PyObject *term, PyObject *ell) {
  PyObject *dots = PyUnicode_FromString("...");
  if (!dots) return NULL;
  PyObject *res = PyUnicode_Replace(term, dots, ell, -1);
  Py_DECREF(dots);
  return res;
}

PyObject *tfrpy_path_info_new(PyObject *eq, PyObject *shapes, const int32_t *path,
                              int num_steps) {
  tfrpy_pathinfo *p = PyObject_New(tfrpy_pathinfo, &pathinfo_type);
  if (!p) return NULL;
  PyObject **f = &p->path;
  for (int i = 0; i < NFIELDS; ++i) f[i] = NULL;
  PyObject *s = NULL, *terms = NULL, *ell = NULL, *out = NULL, *cur = NULL;
  Py_ssize_t n = PyList_GET_SIZE(shapes);
  // White space removed; split into terms and output.
  PyObject *parts = PyUnicode_Split(eq, NULL, -1);
  PyObject *empty = PyUnicode_FromString("");
  if (!parts || !empty) goto fail;
  s = PyUnicode_Join(empty, parts);
  Py_CLEAR(parts);
  if (!s) goto fail;
  {
    PyObject *arrow_s = PyUnicode_FromString("->");
    if (!arrow_s) goto fail;
    parts = PyUnicode_Split(s, arrow_s, 1);
    Py_DECREF(arrow_s);
  }
  if (!parts) goto fail;
  {
    PyObject *comma = PyUnicode_FromString(",");
    terms = comma ? PyUnicode_Split(PyList_GET_ITEM(parts, 0), comma, -1) : NULL;
    Py_XDECREF(comma);
  }
  if (!terms) goto fail;
  if (PyList_GET_SIZE(terms) != n) {
    PyErr_Format(PyExc_ValueError, "%zd terms for %zd operands", PyList_GET_SIZE(terms), n);
    goto fail;
  }
  // Ellipsis labels.
  Py_ssize_t max_ell = 0;
  {
    PyObject *dots = PyUnicode_FromString("...");
    if (!dots) goto fail;
    for (Py_ssize_t i = 0; i < n; ++i) {
      PyObject *t = PyList_GET_ITEM(terms, i);
      if (PyUnicode_Contains(t, dots) == 1) {
        Py_ssize_t k = PyTuple_GET_SIZE(PyList_GET_ITEM(shapes, i)) -
                       (PyUnicode_GET_LENGTH(t) - 3);
        if (k > max_ell) max_ell = k;
      }
    }
    Py_UCS4 labels[TFR_MAX_RANK];
    for (Py_ssize_t k = 0; k < max_ell && k < TFR_MAX_RANK; ++k)
      labels[k] = fresh_label(s, (int)k);
    ell = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, labels, max_ell);
    if (!ell) {
      Py_DECREF(dots);
      goto fail;
    }
    for (Py_ssize_t i = 0; i < n; ++i) {
      PyObject *t = PyList_GET_ITEM(terms, i);
      if (PyUnicode_Contains(t, dots) != 1) continue;
      Py_ssize_t k = PyTuple_GET_SIZE(PyList_GET_ITEM(shapes, i)) -
                     (PyUnicode_GET_LENGTH(t) - 3);
      PyObject *tail = PyUnicode_Substring(ell, max_ell - k, max_ell);
      PyObject *nt = tail ? replace_ellipsis(t, tail) : NULL;
      Py_XDECREF(tail);
      if (!nt) {
        Py_DECREF(dots);
        goto fail;
      }
      PyList_SetItem(terms, i, nt);
    }
    if (PyList_GET_SIZE(parts) == 2) {
      out = replace_ellipsis(PyList_GET_ITEM(parts, 1), ell);
    } else {
      // Implicit: the ellipsis labels, then the labels seen once, sorted.
      PyObject *all = PyUnicode_Join(empty, terms);
      if (!all) {
        Py_DECREF(dots);
        goto fail;
      }
      Py_ssize_t len = PyUnicode_GET_LENGTH(all);
      Py_UCS4 *buf = PyMem_Malloc(sizeof(Py_UCS4) * (size_t)(len + max_ell + 1));
      Py_ssize_t m = 0;
      if (buf) {
        for (Py_ssize_t k = 0; k < max_ell; ++k) buf[m++] = PyUnicode_READ_CHAR(ell, k);
        Py_ssize_t first_once = m;
        for (Py_ssize_t i = 0; i < len; ++i) {
          Py_UCS4 c = PyUnicode_READ_CHAR(all, i);
          if (has_char(ell, c)) continue;
          int count = 0;
          for (Py_ssize_t j = 0; j < len; ++j) count += PyUnicode_READ_CHAR(all, j) == c;
          if (count != 1) continue;
          Py_ssize_t at = m++;
          while (at > first_once && buf[at - 1] > c) {
            buf[at] = buf[at - 1];
            --at;
          }
          buf[at] = c;
        }
        out = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, buf, m);
        PyMem_Free(buf);
      } else {
        PyErr_NoMemory();
      }
      Py_DECREF(all);
    }
    Py_DECREF(dots);
  }
  if (!out) goto fail;
  // size_dict, indices.
  p->size_dict = PyDict_New();
  p->indices = PySet_New(NULL);
  if (!p->size_dict || !p->indices) goto fail;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject *t = PyList_GET_ITEM(terms, i), *shape = PyList_GET_ITEM(shapes, i);
    for (Py_ssize_t k = 0; k < PyUnicode_GET_LENGTH(t) && k < PyTuple_GET_SIZE(shape); ++k) {
      PyObject *c = PyUnicode_Substring(t, k, k + 1);
      if (!c) goto fail;
      PyObject *e = PyTuple_GET_ITEM(shape, k), *old = PyDict_GetItemWithError(p->size_dict, c);
      int r = 0;
      if (!old || PyObject_RichCompareBool(e, old, Py_GT) == 1)
        r = PyDict_SetItem(p->size_dict, c, e);
      if (r == 0) r = PySet_Add(p->indices, c);
      Py_DECREF(c);
      if (r < 0) goto fail;
    }
  }
  {
    PyObject *comma = PyUnicode_FromString(",");
    p->input_subscripts = comma ? PyUnicode_Join(comma, terms) : NULL;
    Py_XDECREF(comma);
  }
  if (!p->input_subscripts) goto fail;
  p->output_subscript = Py_NewRef(out);
  p->eq = PyUnicode_FromFormat("%U->%U", p->input_subscripts, out);
  if (!p->eq) goto fail;
  // Naive cost.
  {
    PyObject *all = PyUnicode_Join(empty, terms);
    PyObject *uni = all ? ordered_union(all, empty) : NULL;
    Py_XDECREF(all);
    if (!uni) goto fail;
    bool inner = false;
    for (Py_ssize_t i = 0; i < PyUnicode_GET_LENGTH(uni); ++i)
      inner |= !has_char(out, PyUnicode_READ_CHAR(uni, i));
    PyObject *prod = prod_sizes(uni, p->size_dict);
    Py_DECREF(uni);
    PyObject *factor = PyLong_FromSsize_t((n - 1 > 1 ? n - 1 : 1) + (inner ? 1 : 0));
    p->naive_cost = prod && factor ? PyNumber_Multiply(prod, factor) : NULL;
    Py_XDECREF(prod);
    Py_XDECREF(factor);
    if (!p->naive_cost) goto fail;
  }
  // The path's steps.
  p->path = PyList_New(0);
  p->contraction_list = PyList_New(0);
  p->scale_list = PyList_New(0);
  p->size_list = PyList_New(0);
  p->opt_cost = PyLong_FromLong(0);
  cur = PyList_GetSlice(terms, 0, n);
  if (!p->path || !p->contraction_list || !p->scale_list || !p->size_list || !p->opt_cost ||
      !cur)
    goto fail;
  int steps = n == 1 ? 1 : num_steps;
  for (int st = 0; st < steps; ++st) {
    Py_ssize_t i = n == 1 ? 0 : path[2 * st], j = n == 1 ? -1 : path[2 * st + 1];
    Py_ssize_t hi = i > j ? i : j, lo = i > j ? j : i;
    PyObject *a = Py_NewRef(PyList_GET_ITEM(cur, i));
    PyObject *b = j >= 0 ? Py_NewRef(PyList_GET_ITEM(cur, j)) : Py_NewRef(empty);
    if (PySequence_DelItem(cur, hi) < 0 || (j >= 0 && PySequence_DelItem(cur, lo) < 0)) {
      Py_DECREF(a);
      Py_DECREF(b);
      goto fail;
    }
    PyObject *uni = ordered_union(a, b);
    PyObject *res = NULL, *removed = NULL, *removed_set = NULL, *estr = NULL, *blas = NULL,
             *cost = NULL, *prod = NULL, *size = NULL, *inds = NULL, *entry = NULL,
             *remaining = NULL;
    int ok = 0;
    if (!uni) goto step_done;
    res = PyList_GET_SIZE(cur) == 0 ? Py_NewRef(out) : filter_labels(uni, cur, out, true);
    removed = res ? filter_labels(uni, cur, out, false) : NULL;
    if (!removed) goto step_done;
    removed_set = PySet_New(removed);
    estr = j >= 0 ? PyUnicode_FromFormat("%U,%U->%U", a, b, res)
                  : PyUnicode_FromFormat("%U->%U", a, res);
    blas = j >= 0 ? blas_kind(a, b, removed) : Py_NewRef(Py_False);
    prod = prod_sizes(uni, p->size_dict);
    size = prod_sizes(res, p->size_dict);
    if (!removed_set || !estr || !blas || !prod || !size) goto step_done;
    cost = PyLong_FromLong(PyUnicode_GET_LENGTH(removed) ? 2 : 1);
    if (!cost) goto step_done;
    {
      PyObject *c2 = PyNumber_Multiply(prod, cost), *sum;
      Py_SETREF(cost, c2);
      if (!cost) goto step_done;
      sum = PyNumber_Add(p->opt_cost, cost);
      if (!sum) goto step_done;
      Py_SETREF(p->opt_cost, sum);
    }
    if (PyList_Append(cur, res) < 0) goto step_done;
    inds = j >= 0 ? Py_BuildValue("(nn)", hi, lo) : Py_BuildValue("(n)", (Py_ssize_t)0);
    remaining = PyList_GetSlice(cur, 0, PyList_GET_SIZE(cur));
    if (!inds || !remaining) goto step_done;
    entry = PyTuple_Pack(5, inds, removed_set, estr, remaining, blas);
    if (!entry || PyList_Append(p->contraction_list, entry) < 0) goto step_done;
    {
      PyObject *pair = j >= 0 ? Py_BuildValue("(nn)", i, j) : Py_BuildValue("(i)", 0);
      PyObject *scale = PyLong_FromSsize_t(PyUnicode_GET_LENGTH(uni));
      int r = pair && scale && PyList_Append(p->path, pair) == 0 &&
              PyList_Append(p->scale_list, scale) == 0 &&
              PyList_Append(p->size_list, size) == 0;
      Py_XDECREF(pair);
      Py_XDECREF(scale);
      if (!r) goto step_done;
    }
    ok = 1;
  step_done:
    Py_XDECREF(a);
    Py_XDECREF(b);
    Py_XDECREF(uni);
    Py_XDECREF(res);
    Py_XDECREF(removed);
    Py_XDECREF(removed_set);
    Py_XDECREF(estr);
    Py_XDECREF(blas);
    Py_XDECREF(cost);
    Py_XDECREF(prod);
    Py_XDECREF(size);
    Py_XDECREF(inds);
    Py_XDECREF(entry);
    Py_XDECREF(remaining);
    if (!ok) goto fail;
  }
  {
    PyObject *largest = PyLong_FromLong(1);
    for (Py_ssize_t i = 0; largest && i < PyList_GET_SIZE(p->size_list); ++i) {
      PyObject *v = PyList_GET_ITEM(p->size_list, i);
      if (i == 0 || PyObject_RichCompareBool(v, largest, Py_GT) == 1)
        Py_SETREF(largest, Py_NewRef(v));
    }
    p->largest_intermediate = largest;
    double naive = PyLong_AsDouble(p->naive_cost), opt = PyLong_AsDouble(p->opt_cost);
    if (PyErr_Occurred()) goto fail;
    p->speedup = PyFloat_FromDouble(opt > 0 ? naive / opt : naive);
    if (!p->largest_intermediate || !p->speedup) goto fail;
  }
  Py_DECREF(s);
  Py_DECREF(parts);
  Py_DECREF(terms);
  Py_DECREF(ell);
  Py_DECREF(out);
  Py_DECREF(cur);
  Py_DECREF(empty);
  return (PyObject *)p;
fail:
  Py_XDECREF(s);
  Py_XDECREF(parts);
  Py_XDECREF(terms);
  Py_XDECREF(ell);
  Py_XDECREF(out);
  Py_XDECREF(cur);
  Py_XDECREF(empty);
  Py_DECREF(p);
  return NULL;
}
