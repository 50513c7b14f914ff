// JSON checks beyond cJSON's (json_check.h).
#include "json_check.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The value of hex digit `c`, or -1.
static int tfr_json_hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The first string of `text` with a NUL (escaped or raw), or a NUL byte
// elsewhere: 0, or 1 with the message.
// Strings are lexed as JSON has them (a backslash escapes the next
// character; \uXXXX four hex digits); a string followed by ':' is a key, and
// names the values after it.
static int tfr_json_find_nul(const char *text, size_t len, char *why, size_t cap) {
  const char *key = NULL;
  size_t key_len = 0;
  for (size_t i = 0; i < len; i++) {
    if (text[i] != '"') continue;
    size_t start = ++i;
    bool nul = false;
    for (; i < len && text[i] != '"'; i++) {
      nul = nul || text[i] == '\0';  // a raw NUL byte, which cJSON takes in too
      if (text[i] != '\\') continue;
      if (i + 1 < len && text[i + 1] == 'u' && i + 5 < len) {
        int v = 0;
        for (int k = 2; k < 6; k++) v = v * 16 + (tfr_json_hex(text[i + k]) & 0xF);
        nul = nul || v == 0;
        i += 5;
      } else {
        i++;
      }
    }
    size_t end = i, j = i + 1;
    while (j < len && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r'))
      j++;
    bool is_key = j < len && text[j] == ':';
    if (nul) {
      if (is_key || !key)
        snprintf(why, cap, "a %s holds a NUL character (\\u0000)", is_key ? "key" : "string");
      else
        snprintf(why, cap, "the value of \"%.*s\" holds a NUL character (\\u0000)",
                 (int)(key_len < 64 ? key_len : 64), key);
      return 1;
    }
    if (is_key) {
      key = text + start;
      key_len = end - start;
    }
  }
  // Outside strings: cJSON stops at a NUL byte and ignores what follows.
  const char *z = memchr(text, '\0', len);
  if (z) {
    snprintf(why, cap, "a NUL byte at offset %zu", (size_t)(z - text));
    return 1;
  }
  return 0;
}

static int tfr_json_cmp_names(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

// A key repeated in an object of the tree under `item`: 0, or 1 with the
// message. Recursive: cJSON's nesting limit (CJSON_NESTING_LIMIT, 1000)
// bounds the depth.
static int tfr_json_find_repeat(const cJSON *item, char *why, size_t cap) {
  if (cJSON_IsObject(item) && item->child && item->child->next) {
    size_t n = 0;
    for (const cJSON *c = item->child; c; c = c->next) n++;
    const char **names = malloc(n * sizeof *names);
    if (!names) {
      snprintf(why, cap, "out of memory");
      return 1;
    }
    n = 0;
    for (const cJSON *c = item->child; c; c = c->next) names[n++] = c->string ? c->string : "";
    qsort(names, n, sizeof *names, tfr_json_cmp_names);
    int rc = 0;
    for (size_t k = 1; !rc && k < n; k++)
      if (strcmp(names[k - 1], names[k]) == 0) {
        snprintf(why, cap, "the key \"%.64s\" appears twice in one object", names[k]);
        rc = 1;
      }
    free(names);
    if (rc) return 1;
  }
  for (const cJSON *c = item->child; c; c = c->next)
    if (tfr_json_find_repeat(c, why, cap)) return 1;
  return 0;
}

int tfr_cli_json_check(const char *text, size_t len, const cJSON *root, char *why, size_t cap) {
  return tfr_json_find_nul(text, len, why, cap) || tfr_json_find_repeat(root, why, cap);
}
