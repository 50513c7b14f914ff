// The tool's files: opening what the user names for reading (regular files
// only, never blocking on a FIFO) and writing results so that a signal
// arriving mid-write leaves no partial or temporary file behind.
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "tenferro/tenferro.h"

static const char tfr_cli_not_regular[] =
    "not a regular file (a directory, FIFO, socket or device)";

FILE *tfr_cli_open_input(const char *path, const char **why) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
  // writer before the type could be checked.
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    *why = strerror(errno);
    return NULL;
  }
  struct stat sb;
  if (fstat(fd, &sb) != 0) {
    *why = strerror(errno);
    close(fd);
    return NULL;
  }
  if (!S_ISREG(sb.st_mode)) {
    *why = tfr_cli_not_regular;
    close(fd);
    return NULL;
  }
  int fl = fcntl(fd, F_GETFL);
  FILE *f = fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0 ? NULL : fdopen(fd, "rb");
  if (!f) {
    *why = strerror(errno);
    close(fd);
  }
  return f;
}

char *tfr_cli_read_file(const char *path, size_t *len, const char **why) {
  FILE *f = tfr_cli_open_input(path, why);
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap + 1);
  while (buf) {
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (n < cap) break;
    cap *= 2;
    char *grown = realloc(buf, cap + 1);
    if (!grown) free(buf);
    buf = grown;
  }
  int err = ferror(f) ? errno : 0;
  fclose(f);
  if (!buf || err) {
    free(buf);
    *why = strerror(buf ? err : ENOMEM);
    return NULL;
  }
  buf[n] = '\0';
  *len = n;
  return buf;
}

// ---------------------------------------------------------------------------
// Writes that signals do not cut short
// ---------------------------------------------------------------------------

// The signals whose default action ends the process and that can be caught.
// While a result file is written their handler only notes them; once the
// file stands complete (or its temporary file is removed) the first one
// noted is raised again with its old action. SIGKILL and SIGSTOP cannot be
// caught: a SIGKILL mid-write leaves the temporary file (docs/cli.md).
static const int tfr_cli_held_signals[] = {SIGHUP,  SIGINT,  SIGQUIT,   SIGTERM, SIGALRM,
                                           SIGUSR1, SIGUSR2, SIGVTALRM, SIGPROF, SIGXCPU};
#define TFR_CLI_NHELD (sizeof tfr_cli_held_signals / sizeof tfr_cli_held_signals[0])

static volatile sig_atomic_t tfr_cli_pending_signal;

static void tfr_cli_note_signal(int sig) {
  if (!tfr_cli_pending_signal) tfr_cli_pending_signal = sig;
}

typedef struct tfr_cli_held {
  struct sigaction old[TFR_CLI_NHELD];
  bool installed[TFR_CLI_NHELD];
} tfr_cli_held;

static void tfr_cli_hold_signals(tfr_cli_held *h) {
  tfr_cli_pending_signal = 0;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = tfr_cli_note_signal;
  sa.sa_flags = SA_RESTART;
  sigfillset(&sa.sa_mask);
  for (size_t i = 0; i < TFR_CLI_NHELD; i++) {
    h->installed[i] = false;
    struct sigaction cur;
    // An ignored signal stays ignored (nohup).
    if (sigaction(tfr_cli_held_signals[i], NULL, &cur) != 0 || cur.sa_handler == SIG_IGN)
      continue;
    h->installed[i] = sigaction(tfr_cli_held_signals[i], &sa, &h->old[i]) == 0;
  }
}

static void tfr_cli_release_signals(tfr_cli_held *h) {
  for (size_t i = 0; i < TFR_CLI_NHELD; i++)
    if (h->installed[i]) sigaction(tfr_cli_held_signals[i], &h->old[i], NULL);
  int sig = tfr_cli_pending_signal;
  tfr_cli_pending_signal = 0;
  if (sig) raise(sig);
}

void tfr_cli_files_init(void) {
  // A file-size limit (ulimit -f) makes write() fail with EFBIG instead of
  // killing the process with SIGXFSZ: the writer then removes its
  // temporary file and reports the error.
  signal(SIGXFSZ, SIG_IGN);
}

tfr_status tfr_cli_npy_save(const char *path, const tfr_tensor *t) {
  tfr_cli_held h;
  tfr_cli_hold_signals(&h);
  // A signal noted meanwhile is raised only after the library removed its
  // temporary file or renamed it into place.
  tfr_status st = tfr_npy_save(path, t);
  tfr_cli_release_signals(&h);
  return st;
}

int tfr_cli_write_held(int (*write)(void *ctx), void *ctx) {
  tfr_cli_held h;
  tfr_cli_hold_signals(&h);
  int rc = write(ctx);
  tfr_cli_release_signals(&h);
  return rc;
}
