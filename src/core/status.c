// Status names and the thread-local error message.
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/core.h"
#include "tenferro/status.h"

#define TFR_MESSAGE_CAPACITY 1024

static _Thread_local char tfr_message[TFR_MESSAGE_CAPACITY];

tfr_status tfr_error(tfr_status code, const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  vsnprintf(tfr_message, sizeof tfr_message, fmt, args);
  va_end(args);
  return code;
}

tfr_status tfr_error_prefix(tfr_status code, const char *prefix) {
  char old[TFR_MESSAGE_CAPACITY];
  memcpy(old, tfr_message, sizeof old);
  size_t n = strlen(prefix);
  if (n > TFR_MESSAGE_CAPACITY / 2) n = TFR_MESSAGE_CAPACITY / 2;
  memcpy(tfr_message, prefix, n);
  memcpy(tfr_message + n, ": ", 2);
  size_t room = TFR_MESSAGE_CAPACITY - n - 3;
  size_t m = strlen(old);
  if (m > room) m = room;
  memcpy(tfr_message + n + 2, old, m);
  tfr_message[n + 2 + m] = '\0';
  return code;
}

const char *tfr_last_error_message(void) { return tfr_message; }

const char *tfr_status_string(tfr_status status) {
  switch (status) {
    case TFR_OK: return "TFR_OK";
    case TFR_ERR_INVALID_ARGUMENT: return "TFR_ERR_INVALID_ARGUMENT";
    case TFR_ERR_UNSUPPORTED_DTYPE: return "TFR_ERR_UNSUPPORTED_DTYPE";
    case TFR_ERR_WRONG_BACKEND: return "TFR_ERR_WRONG_BACKEND";
    case TFR_ERR_OUT_OF_MEMORY: return "TFR_ERR_OUT_OF_MEMORY";
    case TFR_ERR_SESSION_REENTERED: return "TFR_ERR_SESSION_REENTERED";
    case TFR_ERR_SESSION_CONTENDED: return "TFR_ERR_SESSION_CONTENDED";
    case TFR_ERR_NO_SESSION: return "TFR_ERR_NO_SESSION";
    case TFR_ERR_NOT_VIEWABLE: return "TFR_ERR_NOT_VIEWABLE";
    case TFR_ERR_IO: return "TFR_ERR_IO";
    case TFR_ERR_FORMAT: return "TFR_ERR_FORMAT";
    case TFR_ERR_BACKEND_UNAVAILABLE: return "TFR_ERR_BACKEND_UNAVAILABLE";
    case TFR_ERR_DEVICE_LOST: return "TFR_ERR_DEVICE_LOST";
    case TFR_ERR_INTERNAL: return "TFR_ERR_INTERNAL";
  }
  return "TFR_ERR_UNKNOWN";
}

const char *tfr_version_string(void) { return TFR_VERSION_STRING; }
