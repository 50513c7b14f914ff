// .npy read and write. The format is numpy's NEP 1; numpy/lib/format.py is
// the reference whose reader and writer this file follows (what is accepted
// is listed in include/tenferro/io.h).
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "core/backend_impl.h"
#include "core/core.h"
#include "tenferro/io.h"

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6
// format.py: ARRAY_ALIGN and GROWTH_AXIS_MAX_DIGITS.
#define NPY_ALIGN 64
#define NPY_GROWTH_DIGITS 21
// Far above any header numpy writes for our dtypes (< 2 KiB at rank 64), and
// above numpy's own default limit of 10000 bytes.
#define NPY_MAX_HEADER ((size_t)1 << 20)
// The longest header we write: the dict with 64 dimensions of 19 digits,
// the growth spaces and 64 bytes of padding fit easily.
#define NPY_HEADER_CAP 4096
// Bytes gathered per write() when a strided tensor is saved.
#define NPY_CHUNK ((size_t)1 << 16)

static bool npy_host_big_endian(void) {
#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__)
  return __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
#else
  const uint16_t one = 1;
  unsigned char first;
  memcpy(&first, &one, 1);
  return first == 0;
#endif
}

// ---------------------------------------------------------------------------
// Messages: "op: name: fact"
// ---------------------------------------------------------------------------

typedef struct npy_ctx {
  const char *op;    // "npy_load", "npy_load_buffer", "npy_save", ...
  const char *name;  // the file name, or NULL for buffers
} npy_ctx;

static tfr_status npy_fail(const npy_ctx *c, tfr_status code, const char *fmt, ...)
    TFR_PRINTF(3, 4);

static tfr_status npy_fail(const npy_ctx *c, tfr_status code, const char *fmt, ...) {
  char fact[768];
  va_list args;
  va_start(args, fmt);
  vsnprintf(fact, sizeof fact, fmt, args);
  va_end(args);
  if (c->name) return tfr_error(code, "%s: %s: %s", c->op, c->name, fact);
  return tfr_error(code, "%s: %s", c->op, fact);
}

// Passes a lower layer's failure up with "op: name" in front.
static tfr_status npy_prefix(const npy_ctx *c, tfr_status code) {
  char prefix[512];
  if (c->name)
    snprintf(prefix, sizeof prefix, "%s: %s", c->op, c->name);
  else
    snprintf(prefix, sizeof prefix, "%s", c->op);
  return tfr_error_prefix(code, prefix);
}

static tfr_status npy_errno(const npy_ctx *c, int err, const char *what) {
  char text[256];
  if (strerror_r(err, text, sizeof text) != 0) snprintf(text, sizeof text, "errno %d", err);
  return npy_fail(c, TFR_ERR_IO, "%s: %s", what, text);
}

// ---------------------------------------------------------------------------
// Preamble: magic, version, header length
// ---------------------------------------------------------------------------

typedef struct npy_preamble {
  int major;
  size_t header_offset;  // where the header dict starts
  size_t header_len;
} npy_preamble;

// `p` holds the first `avail` bytes (up to 12) of a file of `total` bytes.
static tfr_status npy_read_preamble(const npy_ctx *c, const unsigned char *p, size_t avail,
                                    uint64_t total, npy_preamble *out) {
  size_t m = avail < NPY_MAGIC_LEN ? avail : NPY_MAGIC_LEN;
  if (memcmp(p, NPY_MAGIC, m) != 0 || avail == 0) {
    char seen[4 * NPY_MAGIC_LEN + 1] = "";
    for (size_t i = 0; i < m; i++)
      snprintf(seen + 4 * i, sizeof seen - 4 * i, "\\x%02x", p[i]);
    return npy_fail(c, TFR_ERR_FORMAT,
                    "not a .npy file: the magic string \\x93NUMPY is missing (first bytes: "
                    "\"%s\")",
                    seen);
  }
  if (avail < NPY_MAGIC_LEN + 2)
    return npy_fail(c, TFR_ERR_FORMAT,
                    "truncated: %zu bytes, the magic string and version need 8", avail);
  int major = p[6], minor = p[7];
  if ((major != 1 && major != 2 && major != 3) || minor != 0)
    return npy_fail(c, TFR_ERR_FORMAT, "unsupported format version %d.%d (known: 1.0, 2.0, 3.0)",
                    major, minor);
  size_t lsize = major == 1 ? 2 : 4;
  if (avail < 8 + lsize)
    return npy_fail(c, TFR_ERR_FORMAT,
                    "truncated: %zu bytes, a version %d.0 preamble needs %zu", avail, major,
                    8 + lsize);
  size_t hlen = (size_t)p[8] | (size_t)p[9] << 8;
  if (lsize == 4) hlen |= (size_t)p[10] << 16 | (size_t)p[11] << 24;
  uint64_t after = total - (8 + lsize);
  if ((uint64_t)hlen > after)
    return npy_fail(c, TFR_ERR_FORMAT,
                    "header length %zu reaches beyond the end of the file (%" PRIu64
                    " bytes follow the preamble)",
                    hlen, after);
  if (hlen > NPY_MAX_HEADER)
    return npy_fail(c, TFR_ERR_FORMAT, "header length %zu is over the limit of %zu bytes", hlen,
                    NPY_MAX_HEADER);
  out->major = major;
  out->header_offset = 8 + lsize;
  out->header_len = hlen;
  return TFR_OK;
}

// ---------------------------------------------------------------------------
// Header dict: a small parser for the Python literal numpy writes
// ---------------------------------------------------------------------------

typedef struct npy_header {
  tfr_dtype dtype;
  bool swap;  // the data's byte order differs from the host's
  bool fortran;
  int rank;
  int64_t shape[TFR_MAX_RANK];
  int64_t numel;
  size_t data_bytes;
} npy_header;

typedef struct npy_parser {
  const npy_ctx *c;
  const unsigned char *s;
  size_t n, pos;
  int major;
} npy_parser;

static int npy_peek(const npy_parser *p) { return p->pos < p->n ? p->s[p->pos] : -1; }

// Python's whitespace between tokens; inside brackets newlines are too.
static void npy_skip_space(npy_parser *p) {
  while (p->pos < p->n) {
    unsigned char ch = p->s[p->pos];
    if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r' && ch != '\f' && ch != '\v') break;
    p->pos++;
  }
}

// Describes the character at the parser's position for a message.
static const char *npy_found(const npy_parser *p, char *buf, size_t cap) {
  int ch = npy_peek(p);
  if (ch < 0)
    snprintf(buf, cap, "the end of the header");
  else if (ch >= 0x20 && ch < 0x7f)
    snprintf(buf, cap, "'%c'", ch);
  else
    snprintf(buf, cap, "byte 0x%02x", (unsigned)ch);
  return buf;
}

static bool npy_is_ident(int ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
         ch == '_' || ch == '.';
}

// A quoted string without prefix or escapes; *str points into the header.
static tfr_status npy_string(npy_parser *p, const char *what, const unsigned char **str,
                             size_t *len) {
  char f[32];
  int q = npy_peek(p);
  if (q != '\'' && q != '"')
    return npy_fail(p->c, TFR_ERR_FORMAT, "expected a quoted string for %s at byte %zu, found %s",
                    what, p->pos, npy_found(p, f, sizeof f));
  size_t start = p->pos++;
  while (p->pos < p->n) {
    unsigned char ch = p->s[p->pos];
    if (ch == q) {
      *str = p->s + start + 1;
      *len = p->pos - start - 1;
      p->pos++;
      return TFR_OK;
    }
    if (ch == '\\')
      return npy_fail(p->c, TFR_ERR_FORMAT,
                      "escape sequence in the string for %s at byte %zu is not supported", what,
                      p->pos);
    if (ch == '\n') break;  // a one-line Python string cannot span lines
    p->pos++;
  }
  return npy_fail(p->c, TFR_ERR_FORMAT, "unterminated string for %s starting at byte %zu", what,
                  start);
}

// Skips a bracketed value (a structured dtype's list or tuple), honouring
// strings, so that its dtype can be reported as unsupported rather than as
// a syntax error.
static tfr_status npy_skip_bracketed(npy_parser *p, const char *what) {
  char closers[64];
  size_t starts[64];
  int depth = 0;
  char f[32];
  while (p->pos < p->n) {
    int ch = p->s[p->pos];
    if (ch == '\'' || ch == '"') {
      const unsigned char *str;
      size_t len;
      TFR_RETURN_IF_ERROR(npy_string(p, what, &str, &len));
      continue;
    }
    if (ch == '[' || ch == '(' || ch == '{') {
      if (depth == 64)
        return npy_fail(p->c, TFR_ERR_FORMAT, "%s is nested more than 64 deep at byte %zu", what,
                        p->pos);
      closers[depth] = ch == '[' ? ']' : ch == '(' ? ')' : '}';
      starts[depth++] = p->pos;
    } else if (ch == ']' || ch == ')' || ch == '}') {
      if (depth == 0 || ch != closers[depth - 1])
        return npy_fail(p->c, TFR_ERR_FORMAT, "unbalanced %s in %s at byte %zu",
                        npy_found(p, f, sizeof f), what, p->pos);
      if (--depth == 0) {
        p->pos++;
        return TFR_OK;
      }
    }
    p->pos++;
  }
  return npy_fail(p->c, TFR_ERR_FORMAT, "unterminated '%c' in %s starting at byte %zu",
                  closers[depth - 1] == ']' ? '[' : closers[depth - 1] == ')' ? '(' : '{', what,
                  starts[depth - 1]);
}

// One dimension of 'shape': an optional sign, decimal digits, and in
// version 1.0/2.0 headers Python 2's 'L' suffix.
static tfr_status npy_dimension(npy_parser *p, int k, int64_t *out) {
  char f[32];
  size_t start = p->pos;
  bool negative = false;
  int ch = npy_peek(p);
  if (ch == '-' || ch == '+') {
    negative = ch == '-';
    p->pos++;
    npy_skip_space(p);
  }
  ch = npy_peek(p);
  if (ch < '0' || ch > '9')
    return npy_fail(p->c, TFR_ERR_FORMAT,
                    "dimension %d of 'shape' at byte %zu is not an integer (found %s)", k,
                    p->pos, npy_found(p, f, sizeof f));
  int64_t v = 0;
  size_t digits = p->pos;
  while ((ch = npy_peek(p)) >= '0' && ch <= '9') {
    if (v > (INT64_MAX - (ch - '0')) / 10)
      return npy_fail(p->c, TFR_ERR_FORMAT,
                      "dimension %d of 'shape' at byte %zu does not fit in 64 bits", k, start);
    v = v * 10 + (ch - '0');
    p->pos++;
  }
  // Python 3 forbids leading zeros ("07"), except in zero itself ("00").
  if (p->s[digits] == '0' && v != 0)
    return npy_fail(p->c, TFR_ERR_FORMAT,
                    "dimension %d of 'shape' at byte %zu has a leading zero (not a Python integer)",
                    k, start);
  if (p->major <= 2 && npy_peek(p) == 'L') p->pos++;
  if (npy_is_ident(npy_peek(p)))
    return npy_fail(p->c, TFR_ERR_FORMAT,
                    "dimension %d of 'shape' at byte %zu is not an integer (found %s after the "
                    "digits)",
                    k, start, npy_found(p, f, sizeof f));
  if (negative && v > 0)
    return npy_fail(p->c, TFR_ERR_FORMAT,
                    "dimension %d of 'shape' is negative (-%" PRId64 ") at byte %zu", k, v,
                    start);
  *out = v;
  return TFR_OK;
}

// A tuple of dimensions. "(3)" is an int in Python, not a tuple.
static tfr_status npy_shape(npy_parser *p, npy_header *h) {
  char f[32];
  if (npy_peek(p) != '(')
    return npy_fail(p->c, TFR_ERR_FORMAT, "'shape' at byte %zu is not a tuple (found %s)", p->pos,
                    npy_found(p, f, sizeof f));
  size_t start = p->pos++;
  int rank = 0;
  bool comma = false;
  for (;;) {
    npy_skip_space(p);
    int ch = npy_peek(p);
    if (ch == ')') break;
    if (ch < 0) break;
    if (rank == TFR_MAX_RANK)
      return npy_fail(p->c, TFR_ERR_FORMAT, "'shape' has more than %d dimensions (at byte %zu)",
                      TFR_MAX_RANK, p->pos);
    TFR_RETURN_IF_ERROR(npy_dimension(p, rank, &h->shape[rank]));
    rank++;
    npy_skip_space(p);
    ch = npy_peek(p);
    comma = ch == ',';
    if (comma) {
      p->pos++;
      continue;
    }
    if (ch != ')' && ch >= 0)
      return npy_fail(p->c, TFR_ERR_FORMAT,
                      "expected ',' or ')' in 'shape' at byte %zu, found %s", p->pos,
                      npy_found(p, f, sizeof f));
  }
  if (npy_peek(p) != ')')
    return npy_fail(p->c, TFR_ERR_FORMAT, "unterminated 'shape' tuple starting at byte %zu",
                    start);
  if (rank == 1 && !comma)
    return npy_fail(p->c, TFR_ERR_FORMAT,
                    "'shape' at byte %zu is a parenthesised integer, not a tuple (a one-element "
                    "tuple needs a trailing comma)",
                    start);
  p->pos++;
  h->rank = rank;
  return TFR_OK;
}

static tfr_status npy_bool_literal(npy_parser *p, bool *out) {
  char f[32];
  static const char *const words[2] = {"False", "True"};
  for (int v = 0; v < 2; v++) {
    size_t len = strlen(words[v]);
    if (p->n - p->pos >= len && memcmp(p->s + p->pos, words[v], len) == 0) {
      size_t save = p->pos;
      p->pos += len;
      if (!npy_is_ident(npy_peek(p))) {
        *out = v == 1;
        return TFR_OK;
      }
      p->pos = save;
    }
  }
  return npy_fail(p->c, TFR_ERR_FORMAT,
                  "'fortran_order' at byte %zu is not True or False (found %s)", p->pos,
                  npy_found(p, f, sizeof f));
}

typedef struct npy_descr_entry {
  const char *code;
  tfr_dtype dtype;
} npy_descr_entry;

// numpy's dtype strings for our dtypes, after the byte-order character.
// bf16 has none: numpy has no bfloat16 (ml_dtypes' arrays save as raw
// void bytes, '|V2', which name no type), so bf16 is neither loaded nor saved.
static const npy_descr_entry npy_descrs[] = {
    {"b1", TFR_BOOL}, {"?", TFR_BOOL}, {"i1", TFR_I8},  {"i2", TFR_I16}, {"i4", TFR_I32},
    {"i8", TFR_I64},  {"u1", TFR_U8},  {"u2", TFR_U16}, {"u4", TFR_U32}, {"u8", TFR_U64},
    {"f2", TFR_F16},  {"f4", TFR_F32}, {"f8", TFR_F64}, {"c8", TFR_C64}, {"c16", TFR_C128},
};

// Maps a dtype string; *big_endian says the data's byte order.
static bool npy_lookup_descr(const unsigned char *s, size_t n, tfr_dtype *dtype,
                             bool *big_endian) {
  char order = '=';
  if (n > 0 && (s[0] == '<' || s[0] == '>' || s[0] == '=' || s[0] == '|')) {
    order = (char)s[0];
    s++;
    n--;
  }
  for (size_t i = 0; i < sizeof npy_descrs / sizeof npy_descrs[0]; i++) {
    if (strlen(npy_descrs[i].code) == n && memcmp(npy_descrs[i].code, s, n) == 0) {
      *dtype = npy_descrs[i].dtype;
      // numpy reads '|' ("not applicable") on a multi-byte type as native.
      *big_endian = order == '>' || (order != '<' && npy_host_big_endian());
      return true;
    }
  }
  return false;
}

// Prints up to 40 bytes of header text for a message, escaping the rest.
static void npy_excerpt(const unsigned char *s, size_t n, char *buf, size_t cap) {
  size_t o = 0;
  for (size_t i = 0; i < n && i < 40 && o + 5 < cap; i++) {
    unsigned char ch = s[i];
    if (ch >= 0x20 && ch < 0x7f)
      buf[o++] = (char)ch;
    else
      o += (size_t)snprintf(buf + o, cap - o, "\\x%02x", ch);
  }
  if (n > 40 && o + 4 < cap) {
    memcpy(buf + o, "...", 3);
    o += 3;
  }
  buf[o] = '\0';
}

static void npy_format_shape(int rank, const int64_t *shape, char *buf, size_t cap) {
  size_t o = (size_t)snprintf(buf, cap, "(");
  for (int k = 0; k < rank && o < cap; k++)
    o += (size_t)snprintf(buf + o, cap - o, "%s%" PRId64, k ? ", " : "", shape[k]);
  if (o < cap) snprintf(buf + o, cap - o, rank == 1 ? ",)" : ")");
}

enum { NPY_KEY_DESCR, NPY_KEY_FORTRAN, NPY_KEY_SHAPE, NPY_KEYS };
static const char *const npy_key_names[NPY_KEYS] = {"descr", "fortran_order", "shape"};

// Parses the header dict and checks its values; fills everything in `h`
// but data_bytes.
static tfr_status npy_parse_header(const npy_ctx *c, const unsigned char *s, size_t n, int major,
                                   npy_header *h) {
  npy_parser p = {c, s, n, 0, major};
  char f[32];
  bool have[NPY_KEYS] = {false};
  const unsigned char *descr = NULL;
  size_t descr_len = 0;
  bool structured = false;
  npy_skip_space(&p);
  if (npy_peek(&p) != '{')
    return npy_fail(c, TFR_ERR_FORMAT,
                    "the header is not a dict: expected '{' at byte %zu, found %s", p.pos,
                    npy_found(&p, f, sizeof f));
  p.pos++;
  for (;;) {
    npy_skip_space(&p);
    if (npy_peek(&p) == '}') break;
    if (npy_peek(&p) < 0) return npy_fail(c, TFR_ERR_FORMAT, "unterminated header dict (no '}')");
    const unsigned char *key;
    size_t key_len;
    TFR_RETURN_IF_ERROR(npy_string(&p, "a key of the header dict", &key, &key_len));
    int which = -1;
    for (int i = 0; i < NPY_KEYS; i++)
      if (strlen(npy_key_names[i]) == key_len && memcmp(npy_key_names[i], key, key_len) == 0)
        which = i;
    if (which < 0) {
      char ex[256];
      npy_excerpt(key, key_len, ex, sizeof ex);
      return npy_fail(c, TFR_ERR_FORMAT,
                      "unexpected key '%s' in the header dict (only 'descr', 'fortran_order', "
                      "'shape' are allowed)",
                      ex);
    }
    if (have[which])
      return npy_fail(c, TFR_ERR_FORMAT, "key '%s' appears twice in the header dict",
                      npy_key_names[which]);
    have[which] = true;
    npy_skip_space(&p);
    if (npy_peek(&p) != ':')
      return npy_fail(c, TFR_ERR_FORMAT, "expected ':' after key '%s' at byte %zu, found %s",
                      npy_key_names[which], p.pos, npy_found(&p, f, sizeof f));
    p.pos++;
    npy_skip_space(&p);
    if (which == NPY_KEY_DESCR) {
      int ch = npy_peek(&p);
      if (ch == '[' || ch == '(') {
        size_t start = p.pos;
        TFR_RETURN_IF_ERROR(npy_skip_bracketed(&p, "'descr'"));
        descr = s + start;
        descr_len = p.pos - start;
        structured = true;
      } else if (ch == '\'' || ch == '"') {
        TFR_RETURN_IF_ERROR(npy_string(&p, "'descr'", &descr, &descr_len));
      } else {
        return npy_fail(c, TFR_ERR_FORMAT, "'descr' at byte %zu is not a string (found %s)",
                        p.pos, npy_found(&p, f, sizeof f));
      }
    } else if (which == NPY_KEY_FORTRAN) {
      TFR_RETURN_IF_ERROR(npy_bool_literal(&p, &h->fortran));
    } else {
      TFR_RETURN_IF_ERROR(npy_shape(&p, h));
    }
    npy_skip_space(&p);
    int ch = npy_peek(&p);
    if (ch == ',') {
      p.pos++;
      continue;
    }
    if (ch == '}') break;
    if (ch < 0) return npy_fail(c, TFR_ERR_FORMAT, "unterminated header dict (no '}')");
    return npy_fail(c, TFR_ERR_FORMAT,
                    "expected ',' or '}' after the value of '%s' at byte %zu, found %s",
                    npy_key_names[which], p.pos, npy_found(&p, f, sizeof f));
  }
  p.pos++;  // the '}'
  npy_skip_space(&p);
  if (p.pos != n)
    return npy_fail(c, TFR_ERR_FORMAT, "unexpected %s at byte %zu after the header dict",
                    npy_found(&p, f, sizeof f), p.pos);
  for (int i = 0; i < NPY_KEYS; i++)
    if (!have[i])
      return npy_fail(c, TFR_ERR_FORMAT, "header dict lacks '%s'", npy_key_names[i]);

  bool big = false;
  if (structured || !npy_lookup_descr(descr, descr_len, &h->dtype, &big)) {
    char ex[256];
    npy_excerpt(descr, descr_len, ex, sizeof ex);
    return npy_fail(c, TFR_ERR_UNSUPPORTED_DTYPE,
                    "%sdtype '%s' is not supported (supported: '|b1' '|i1' '<i2' '<i4' '<i8' "
                    "'|u1' '<u2' '<u4' '<u8' '<f2' '<f4' '<f8' '<c8' '<c16', any byte order)",
                    structured ? "structured " : "", ex);
  }
  size_t esize = tfr_dtype_size(h->dtype);
  h->swap = esize > 1 && big != npy_host_big_endian();

  // The limits are on the non-zero extents too, so that strides (which skip
  // zero extents) stay small even for empty arrays.
  int64_t span = 1;
  bool empty = false;
  for (int k = 0; k < h->rank; k++) {
    int64_t d = h->shape[k];
    if (d == 0) {
      empty = true;
      continue;
    }
    if (!tfr_mul_i64(span, d, &span) || span > TFR_MAX_NUMEL) {
      char sh[1600];
      npy_format_shape(h->rank, h->shape, sh, sizeof sh);
      return npy_fail(c, TFR_ERR_FORMAT,
                      "shape %s has more than 2^50 elements (the limit is reached at dimension "
                      "%d)",
                      sh, k);
    }
  }
  h->numel = empty ? 0 : span;
  return TFR_OK;
}

// Parses the header text and checks the data size against what the file
// holds after the header (`data_avail` bytes).
static tfr_status npy_check(const npy_ctx *c, const unsigned char *hdr, const npy_preamble *pre,
                            uint64_t data_avail, npy_header *h) {
  TFR_RETURN_IF_ERROR(npy_parse_header(c, hdr, pre->header_len, pre->major, h));
  size_t esize = tfr_dtype_size(h->dtype);
  // numel <= 2^50 and esize <= 16: no overflow in 64 bits.
  uint64_t need = (uint64_t)h->numel * esize;
  if (need > SIZE_MAX)
    return npy_fail(c, TFR_ERR_FORMAT, "the array needs %" PRIu64 " bytes, more than fit in memory",
                    need);
  if (data_avail != need) {
    char sh[1600];
    npy_format_shape(h->rank, h->shape, sh, sizeof sh);
    if (data_avail < need)
      return npy_fail(c, TFR_ERR_FORMAT,
                      "truncated data: %" PRIu64 " bytes after the header, shape %s of %s needs "
                      "%" PRIu64,
                      data_avail, sh, tfr_dtype_name(h->dtype), need);
    return npy_fail(c, TFR_ERR_FORMAT,
                    "%" PRIu64 " bytes of trailing data after the %" PRIu64
                    " bytes of shape %s of %s",
                    data_avail - need, need, sh, tfr_dtype_name(h->dtype));
  }
  h->data_bytes = (size_t)need;
  return TFR_OK;
}

// ---------------------------------------------------------------------------
// Loading
// ---------------------------------------------------------------------------

// A host tensor whose storage will receive the data as stored: compact for
// C order, column-major strides over the same storage for Fortran order.
static tfr_status npy_alloc_tensor(const npy_ctx *c, const npy_header *h, tfr_tensor **out) {
  tfr_status st = tfr_tensor_alloc(NULL, h->dtype, h->rank, h->shape, false, out);
  if (st) return npy_prefix(c, st);
  if (h->fortran && h->rank > 1) {
    // The storage holds exactly the elements of the shape, so the
    // column-major layout stays inside it; strides skip zero extents as
    // tfr_compact_strides does, bounded by the span check of the header.
    int64_t step = 1;
    for (int k = 0; k < h->rank; k++) {
      (*out)->strides[k] = step;
      step *= h->shape[k] > 0 ? h->shape[k] : 1;
    }
  }
  return TFR_OK;
}

static void npy_bswap(unsigned char *p, size_t nbytes, size_t unit) {
  for (size_t i = 0; i + unit <= nbytes; i += unit) {
    for (size_t a = i, b = i + unit - 1; a < b; a++, b--) {
      unsigned char tmp = p[a];
      p[a] = p[b];
      p[b] = tmp;
    }
  }
}

// After the data is in the storage: byte order, bool bytes.
static tfr_status npy_finish(const npy_ctx *c, const npy_header *h, tfr_tensor *t) {
  unsigned char *data = t->storage->data;
  if (h->swap) {
    // Complex values swap each of their two parts.
    size_t unit = tfr_dtype_size(tfr_dtype_get_info(h->dtype)->real);
    npy_bswap(data, h->data_bytes, unit);
  }
  if (h->dtype == TFR_BOOL) {
    for (size_t i = 0; i < h->data_bytes; i++)
      if (data[i] > 1)
        return npy_fail(c, TFR_ERR_FORMAT,
                        "bool element %zu (in file order) has byte value %u (must be 0 or 1)", i,
                        data[i]);
  }
  return TFR_OK;
}

// Reads exactly n bytes at `offset`; a short read means the file shrank.
static tfr_status npy_pread_all(const npy_ctx *c, int fd, void *buf, size_t n, uint64_t offset) {
  unsigned char *p = buf;
  while (n > 0) {
    size_t want = n < ((size_t)1 << 30) ? n : (size_t)1 << 30;
    ssize_t got = pread(fd, p, want, (off_t)offset);
    if (got < 0) {
      if (errno == EINTR) continue;
      return npy_errno(c, errno, "cannot read");
    }
    if (got == 0)
      return npy_fail(c, TFR_ERR_IO,
                      "the file ended at byte %" PRIu64 " while reading (it shrank?)", offset);
    p += got;
    n -= (size_t)got;
    offset += (uint64_t)got;
  }
  return TFR_OK;
}

// Opens `path` (a regular file only) and reads and checks its preamble and
// header into *h; on success *fd is open (the caller closes it) and
// *data_offset is where the data starts. On error *fd is -1.
static tfr_status npy_open_header(const npy_ctx *c, const char *path, int *fd, npy_header *h,
                                  uint64_t *data_offset) {
  // O_NONBLOCK: a FIFO opens at once (no wait for a writer) and is then
  // refused as not a regular file; regular files ignore the flag.
  *fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (*fd < 0) return npy_errno(c, errno, "cannot open");
  tfr_status st = TFR_OK;
  unsigned char *hdr = NULL;
  struct stat sb;
  if (fstat(*fd, &sb) != 0) {
    st = npy_errno(c, errno, "cannot stat");
    goto done;
  }
  if (!S_ISREG(sb.st_mode)) {
    st = npy_fail(c, TFR_ERR_IO, "not a regular file");
    goto done;
  }
  uint64_t total = (uint64_t)sb.st_size;
  unsigned char pre[12];
  size_t npre = total < sizeof pre ? (size_t)total : sizeof pre;
  npy_preamble pr;
  if ((st = npy_pread_all(c, *fd, pre, npre, 0)) != TFR_OK) goto done;
  if ((st = npy_read_preamble(c, pre, npre, total, &pr)) != TFR_OK) goto done;
  hdr = tfr_alloc(pr.header_len);
  if (!hdr) {
    st = npy_fail(c, TFR_ERR_OUT_OF_MEMORY, "cannot allocate %zu bytes for the header",
                  pr.header_len);
    goto done;
  }
  if ((st = npy_pread_all(c, *fd, hdr, pr.header_len, pr.header_offset)) != TFR_OK) goto done;
  *data_offset = pr.header_offset + pr.header_len;
  memset(h, 0, sizeof *h);
  st = npy_check(c, hdr, &pr, total - *data_offset, h);
done:
  tfr_free(hdr);
  if (st) {
    close(*fd);
    *fd = -1;
  }
  return st;
}

tfr_status tfr_npy_load(const char *path, tfr_tensor **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "npy_load: out is NULL");
  *out = NULL;
  if (!path) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "npy_load: path is NULL");
  npy_ctx c = {"npy_load", path};
  int fd;
  npy_header h;
  uint64_t data_offset = 0;
  TFR_RETURN_IF_ERROR(npy_open_header(&c, path, &fd, &h, &data_offset));
  tfr_tensor *t = NULL;
  tfr_status st = npy_alloc_tensor(&c, &h, &t);
  if (!st) st = npy_pread_all(&c, fd, t->storage->data, h.data_bytes, data_offset);
  if (!st) st = npy_finish(&c, &h, t);
  close(fd);
  if (st) {
    tfr_tensor_release(t);
    return st;
  }
  *out = t;
  return TFR_OK;
}

tfr_status tfr_npy_read_info(const char *path, tfr_npy_info *out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "npy_read_info: out is NULL");
  memset(out, 0, sizeof *out);
  if (!path) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "npy_read_info: path is NULL");
  npy_ctx c = {"npy_read_info", path};
  int fd;
  npy_header h;
  uint64_t data_offset = 0;
  TFR_RETURN_IF_ERROR(npy_open_header(&c, path, &fd, &h, &data_offset));
  close(fd);
  out->dtype = h.dtype;
  out->rank = h.rank;
  memcpy(out->shape, h.shape, sizeof h.shape);
  out->fortran_order = h.fortran;
  out->data_bytes = h.data_bytes;
  return TFR_OK;
}

tfr_status tfr_npy_load_buffer(const void *data, size_t nbytes, tfr_tensor **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "npy_load_buffer: out is NULL");
  *out = NULL;
  if (!data && nbytes > 0)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "npy_load_buffer: data is NULL for %zu bytes",
                     nbytes);
  npy_ctx c = {"npy_load_buffer", NULL};
  const unsigned char *bytes = data ? data : (const unsigned char *)"";
  npy_preamble pr;
  TFR_RETURN_IF_ERROR(npy_read_preamble(&c, bytes, nbytes < 12 ? nbytes : 12, nbytes, &pr));
  size_t data_offset = pr.header_offset + pr.header_len;
  npy_header h = {0};
  TFR_RETURN_IF_ERROR(npy_check(&c, bytes + pr.header_offset, &pr, nbytes - data_offset, &h));
  tfr_tensor *t = NULL;
  TFR_RETURN_IF_ERROR(npy_alloc_tensor(&c, &h, &t));
  if (h.data_bytes) memcpy(t->storage->data, bytes + data_offset, h.data_bytes);
  tfr_status st = npy_finish(&c, &h, t);
  if (st) {
    tfr_tensor_release(t);
    return st;
  }
  *out = t;
  return TFR_OK;
}

// ---------------------------------------------------------------------------
// Saving
// ---------------------------------------------------------------------------

static size_t npy_digits(int64_t v) {
  size_t d = 1;
  while (v >= 10) {
    v /= 10;
    d++;
  }
  return d;
}

// Builds the preamble and header numpy's _write_array_header writes for a
// C-ordered array; returns its length (a multiple of NPY_ALIGN).
static size_t npy_build_header(const tfr_tensor *t, char *buf) {
  char descr[8];
  snprintf(descr, sizeof descr, "%s", tfr_dtype_get_info(t->dtype)->descr);
  // Our data is written in host order; the table's strings are little-endian.
  if (npy_host_big_endian() && descr[0] == '<') descr[0] = '>';
  char dict[NPY_HEADER_CAP];
  size_t n = (size_t)snprintf(dict, sizeof dict,
                              "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
  for (int k = 0; k < t->rank; k++)
    n += (size_t)snprintf(dict + n, sizeof dict - n, "%s%" PRId64, k ? ", " : "", t->shape[k]);
  n += (size_t)snprintf(dict + n, sizeof dict - n, "%s), }", t->rank == 1 ? "," : "");
  // numpy leaves room to grow axis 0 in place (GROWTH_AXIS_MAX_DIGITS).
  if (t->rank > 0) {
    size_t growth = NPY_GROWTH_DIGITS - npy_digits(t->shape[0]);
    memset(dict + n, ' ', growth);
    n += growth;
  }
  size_t hlen = n + 1;  // the final '\n'
  size_t lsize = 2;
  size_t pad = NPY_ALIGN - (NPY_MAGIC_LEN + 2 + lsize + hlen) % NPY_ALIGN;
  if (hlen + pad > 0xffff) {  // version 2.0: a 4-byte length
    lsize = 4;
    pad = NPY_ALIGN - (NPY_MAGIC_LEN + 2 + lsize + hlen) % NPY_ALIGN;
  }
  size_t field = hlen + pad;
  size_t o = 0;
  memcpy(buf, NPY_MAGIC, NPY_MAGIC_LEN);
  o += NPY_MAGIC_LEN;
  buf[o++] = lsize == 2 ? 1 : 2;
  buf[o++] = 0;
  for (size_t i = 0; i < lsize; i++) buf[o++] = (char)(field >> (8 * i) & 0xff);
  memcpy(buf + o, dict, n);
  o += n;
  memset(buf + o, ' ', pad);
  o += pad;
  buf[o++] = '\n';
  return o;
}

static tfr_status npy_check_save_arg(const npy_ctx *c, const tfr_tensor *t) {
  if (!t) return npy_fail(c, TFR_ERR_INVALID_ARGUMENT, "tensor is NULL");
  if (!t->storage->host)
    return npy_fail(c, TFR_ERR_WRONG_BACKEND,
                    "the tensor lives on the %s backend, not in host memory; copy it with "
                    "tfr_download first",
                    tfr_backend_name(t->storage->backend));
  if (!tfr_dtype_get_info(t->dtype)->descr)
    return npy_fail(c, TFR_ERR_UNSUPPORTED_DTYPE,
                    "dtype %s has no numpy dtype string (numpy has no bfloat16); convert it to "
                    "f32 first",
                    tfr_dtype_name(t->dtype));
  // An empty tensor may have non-zero extents whose product passes 2^50
  // (even int64): the reader refuses such a header, so do not write one.
  int64_t span = 1;
  for (int k = 0; k < t->rank; k++) {
    int64_t d = t->shape[k];
    if (d != 0 && (!tfr_mul_i64(span, d, &span) || span > TFR_MAX_NUMEL)) {
      char sh[1600];
      npy_format_shape(t->rank, t->shape, sh, sizeof sh);
      return npy_fail(c, TFR_ERR_INVALID_ARGUMENT,
                      "shape %s: its non-zero extents multiply to more than 2^50 (the limit is "
                      "reached at dimension %d); .npy readers refuse that header",
                      sh, k);
    }
  }
  return TFR_OK;
}

tfr_status tfr_npy_save_buffer(const tfr_tensor *t, void *dst, size_t capacity,
                               size_t *out_nbytes) {
  npy_ctx c = {"npy_save_buffer", NULL};
  if (!out_nbytes) return npy_fail(&c, TFR_ERR_INVALID_ARGUMENT, "out_nbytes is NULL");
  TFR_RETURN_IF_ERROR(npy_check_save_arg(&c, t));
  char header[NPY_HEADER_CAP + 2 * NPY_ALIGN];
  size_t hlen = npy_build_header(t, header);
  size_t total;
  if (!tfr_add_size(hlen, tfr_tensor_nbytes(t), &total))
    return npy_fail(&c, TFR_ERR_INVALID_ARGUMENT, "the .npy image does not fit in size_t");
  *out_nbytes = total;
  if (!dst) return TFR_OK;
  if (capacity < total)
    return npy_fail(&c, TFR_ERR_INVALID_ARGUMENT, "dst has %zu bytes, the .npy image needs %zu",
                    capacity, total);
  memcpy(dst, header, hlen);
  tfr_status st = tfr_tensor_read(t, (char *)dst + hlen, total - hlen);
  return st ? npy_prefix(&c, st) : TFR_OK;
}

typedef struct npy_writer {
  const npy_ctx *c;
  int fd;
  const char *tmp;  // the file written, for messages
} npy_writer;

static tfr_status npy_write_all(const npy_writer *w, const void *buf, size_t n) {
  const unsigned char *p = buf;
  while (n > 0) {
    size_t want = n < ((size_t)1 << 30) ? n : (size_t)1 << 30;
    ssize_t put = write(w->fd, p, want);
    if (put < 0) {
      if (errno == EINTR) continue;
      char what[1100];
      snprintf(what, sizeof what, "cannot write '%s'", w->tmp);
      return npy_errno(w->c, errno, what);
    }
    if (put == 0) return npy_fail(w->c, TFR_ERR_IO, "cannot write '%s': no progress", w->tmp);
    p += put;
    n -= (size_t)put;
  }
  return TFR_OK;
}

// Writes the elements of a non-contiguous tensor in row-major order,
// gathered through `chunk` (cap bytes, a multiple of the element size).
static tfr_status npy_write_strided(const npy_writer *w, const tfr_tensor *t, unsigned char *chunk,
                                    size_t cap) {
  size_t esize = tfr_dtype_size(t->dtype);
  const char *base = tfr_tensor_host_ptr(t);
  int r = t->rank;
  int64_t idx[TFR_MAX_RANK] = {0};
  int64_t inner = t->shape[r - 1], istride = t->strides[r - 1] * (int64_t)esize;
  size_t fill = 0;
  for (;;) {
    int64_t off = 0;
    for (int k = 0; k < r - 1; k++) off += idx[k] * t->strides[k];
    const char *row = base + off * (int64_t)esize;
    for (int64_t i = 0; i < inner; i++) {
      memcpy(chunk + fill, row + i * istride, esize);
      fill += esize;
      if (fill == cap) {
        TFR_RETURN_IF_ERROR(npy_write_all(w, chunk, fill));
        fill = 0;
      }
    }
    int k = r - 2;
    while (k >= 0 && ++idx[k] == t->shape[k]) idx[k--] = 0;
    if (k < 0) break;
  }
  return fill ? npy_write_all(w, chunk, fill) : TFR_OK;
}

tfr_status tfr_npy_save(const char *path, const tfr_tensor *t) {
  if (!path) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "npy_save: path is NULL");
  npy_ctx c = {"npy_save", path};
  TFR_RETURN_IF_ERROR(npy_check_save_arg(&c, t));
  char header[NPY_HEADER_CAP + 2 * NPY_ALIGN];
  size_t hlen = npy_build_header(t, header);
  size_t nbytes = tfr_tensor_nbytes(t);
  bool strided = nbytes > 0 && !tfr_tensor_is_contiguous(t);

  // The file is replaced by a rename, which would turn a device, a FIFO or a
  // symbolic link into a regular file: only regular files (or nothing) may
  // stand at `path`. An existing file's permission bits are kept.
  struct stat old_st;
  bool have_old = lstat(path, &old_st) == 0;
  if (have_old && !S_ISREG(old_st.st_mode))
    return npy_fail(&c, TFR_ERR_IO,
                    "is not a regular file (a device, FIFO, directory or symbolic link); "
                    "not replaced");

  // Everything that can run out of memory happens before the file exists.
  static atomic_ulong npy_tmp_counter;
  size_t name_cap = strlen(path) + 64;
  char *tmp = tfr_alloc(name_cap);
  unsigned char *chunk = NULL;
  size_t chunk_cap = nbytes < NPY_CHUNK ? nbytes : NPY_CHUNK;
  if (tmp && strided) chunk = tfr_alloc(chunk_cap);
  if (!tmp || (strided && !chunk)) {
    tfr_free(tmp);
    return npy_fail(&c, TFR_ERR_OUT_OF_MEMORY, "out of host memory");
  }

  // O_EXCL with a fresh name: never write through someone else's file, and
  // mode 0666 lets the umask decide the permissions as for any new file.
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
    unsigned long n = atomic_fetch_add(&npy_tmp_counter, 1);
    snprintf(tmp, name_cap, "%s.%ld.%lu.tmp", path, (long)getpid(), n);
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  tfr_status st = TFR_OK;
  if (fd < 0) {
    char what[1100];
    snprintf(what, sizeof what, "cannot create the temporary file '%s'", tmp);
    st = npy_errno(&c, errno, what);
    tfr_free(chunk);
    tfr_free(tmp);
    return st;
  }
  npy_writer w = {&c, fd, tmp};
  st = npy_write_all(&w, header, hlen);
  if (!st && nbytes > 0) {
    if (strided)
      st = npy_write_strided(&w, t, chunk, chunk_cap);
    else
      st = npy_write_all(&w, tfr_tensor_host_ptr(t), nbytes);
  }
  if (!st && have_old) (void)fchmod(fd, old_st.st_mode & 07777);
  // Data must be on disk before the rename makes it visible under `path`.
  if (!st && fsync(fd) != 0) {
    char what[1100];
    snprintf(what, sizeof what, "cannot sync '%s'", tmp);
    st = npy_errno(&c, errno, what);
  }
  if (close(fd) != 0 && !st) {
    char what[1100];
    snprintf(what, sizeof what, "cannot close '%s'", tmp);
    st = npy_errno(&c, errno, what);
  }
  if (!st && rename(tmp, path) != 0) {
    char what[1100];
    snprintf(what, sizeof what, "cannot rename '%s' to the target", tmp);
    st = npy_errno(&c, errno, what);
  }
  if (st) unlink(tmp);
  tfr_free(chunk);
  tfr_free(tmp);
  return st;
}
