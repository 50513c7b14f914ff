// What cJSON lets through and the tool's JSON readers (instances, path
// files, conformance lines) refuse: a string holding a NUL character
// ("ab\u0000->a" reaches the reader as "ab": cJSON hands strings over
// NUL-terminated) and a key repeated in one object (cJSON keeps both and
// finds the first).
#ifndef TENFERRO_TOOLS_TENFERRO_JSON_CHECK_H_
#define TENFERRO_TOOLS_TENFERRO_JSON_CHECK_H_

#include <stddef.h>

#include <cJSON.h>

// Checks `text` (`len` bytes, already parsed by cJSON into `root`) for a
// string with a NUL (escaped, \u0000, or a raw byte), a NUL byte anywhere
// else (cJSON ignores what follows one), and every object of `root` for a
// repeated key. Returns 0, or 1 with one sentence naming the field in
// why[cap] ("the value of \"format_string\" holds a NUL character (\u0000)",
// "the key \"dtype\" appears twice in one object"); out of memory is
// reported the same way. Time and memory linear in the text (objects' keys
// are sorted).
int tfr_cli_json_check(const char *text, size_t len, const cJSON *root, char *why, size_t cap);

#endif  // TENFERRO_TOOLS_TENFERRO_JSON_CHECK_H_
