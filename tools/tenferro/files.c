// The tool's files: opening what the user names for reading (regular files
// only, never blocking on a FIFO) and writing results so that a signal
// arriving mid-write leaves no partial or temporary file behind.
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "tenferro/tenferro.h"

static const char tfr_cli_not_regular[] =
    "not a regular file (a directory, FIFO, socket or device)";
static const char tfr_cli_not_regular_out[] =
    "not a regular file (a directory, FIFO, socket, device or symbolic link)";

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
// Output targets, checked before anything is computed
// ---------------------------------------------------------------------------

// The folder a new entry `path` goes into: "." when it names none.
static int tfr_cli_check_folder(const char *cmd, const char *option, const char *path) {
  char *dir = strdup(path);
  if (!dir) return tfr_cli_errorf(cmd, path, "%s: out of memory", option);
  char *slash = strrchr(dir, '/');
  const char *d = !slash ? "." : slash == dir ? "/" : (*slash = '\0', dir);
  struct stat sb;
  int rc = 0;
  if (stat(d, &sb) != 0)
    rc = tfr_cli_errorf(cmd, path, "%s: its folder '%s': %s", option, d, strerror(errno));
  else if (!S_ISDIR(sb.st_mode))
    rc = tfr_cli_errorf(cmd, path, "%s: '%s' is not a folder", option, d);
  else if (access(d, W_OK | X_OK) != 0)
    rc = tfr_cli_errorf(cmd, path, "%s: cannot write in its folder '%s': %s", option, d,
                              strerror(errno));
  free(dir);
  return rc;
}

int tfr_cli_check_output(const char *cmd, const char *option, const char *path) {
  size_t n = strlen(path);
  if (n == 0) return tfr_cli_errorf(cmd, "''", "%s: an empty file name", option);
  if (path[n - 1] == '/')
    return tfr_cli_errorf(cmd, path, "%s: names a folder, not a file", option);
  struct stat sb;
  if (lstat(path, &sb) == 0) {
    // The writers replace the target by a rename: only a regular file may
    // be replaced (a rename would turn anything else into one).
    if (!S_ISREG(sb.st_mode))
      return tfr_cli_errorf(cmd, path, "%s: %s; not replaced", option, tfr_cli_not_regular_out);
  } else if (errno != ENOENT) {
    return tfr_cli_errorf(cmd, path, "%s: %s", option, strerror(errno));
  }
  return tfr_cli_check_folder(cmd, option, path);
}

int tfr_cli_check_output_dir(const char *cmd, const char *option, const char *dir,
                             const char *const *names, int n) {
  struct stat sb;
  if (dir[0] == '\0') return tfr_cli_errorf(cmd, "''", "%s: an empty folder name", option);
  if (stat(dir, &sb) != 0) {
    if (errno != ENOENT) return tfr_cli_errorf(cmd, dir, "%s: %s", option, strerror(errno));
    // Made when the results are written: its own folder must take it. A
    // trailing '/' names the same folder.
    char *d = strdup(dir);
    if (!d) return tfr_cli_errorf(cmd, dir, "%s: out of memory", option);
    for (size_t k = strlen(d); k > 1 && d[k - 1] == '/'; k--) d[k - 1] = '\0';
    int rc = tfr_cli_check_folder(cmd, option, d);
    free(d);
    return rc;
  }
  if (!S_ISDIR(sb.st_mode)) return tfr_cli_errorf(cmd, dir, "%s: is not a folder", option);
  for (int i = 0; i < n; i++)
    if (tfr_cli_check_output(cmd, option, names[i]) != 0) return 1;
  return 0;
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
