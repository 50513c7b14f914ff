// The cpu backend object: vtable, buffer pool, sessions.
#include <cblas.h>
#include <string.h>

#include "core/op_registry.h"
#include "cpu/cpu.h"

#ifdef _OPENMP
#include <omp.h>
#endif

#define TFR_CPU_DEFAULT_POOL_CAP ((size_t)256 << 20)

// Size class of `nbytes` and the class's byte size.
static int tfr_cpu_size_class(size_t nbytes, size_t *class_bytes) {
  if (nbytes < 64) nbytes = 64;
  int lg = 63 - __builtin_clzll((unsigned long long)nbytes);  // 2^lg <= nbytes
  size_t base = (size_t)1 << lg;
  size_t quarter = base >> 2;
  int sub = (int)((nbytes - base + quarter - 1) / quarter);  // 0..4
  if (sub == 4) {
    lg++;
    sub = 0;
    base <<= 1;
    quarter <<= 1;
  }
  *class_bytes = base + (size_t)sub * quarter;
  return lg * 4 + sub;
}

// Removes large slot i (pool_lock held); returns its buffer.
static void *tfr_cpu_large_take(tfr_cpu_backend *cpu, int i) {
  void *p = cpu->large[i];
  cpu->large_bytes -= cpu->large_size[i];
  cpu->num_large--;
  cpu->large[i] = cpu->large[cpu->num_large];
  cpu->large_size[i] = cpu->large_size[cpu->num_large];
  return p;
}

// A large buffer of `bytes`: a kept one of at most twice that size (the
// smallest), else a new one, after giving back kept buffers (the largest
// first) so that what is kept plus what is in use stays within the peak so
// far. *bytes becomes the buffer's size.
static void *tfr_cpu_large_alloc(tfr_cpu_backend *cpu, size_t *bytes) {
  void *evict[TFR_CPU_LARGE_SLOTS];
  int ne = 0, best = -1;
  size_t want = *bytes;
  pthread_mutex_lock(&cpu->pool_lock);
  for (int i = 0; i < cpu->num_large; i++)
    if (cpu->large_size[i] >= want && cpu->large_size[i] / 2 <= want &&
        (best < 0 || cpu->large_size[i] < cpu->large_size[best]))
      best = i;
  void *data = NULL;
  if (best >= 0) {
    *bytes = cpu->large_size[best];
    data = tfr_cpu_large_take(cpu, best);
  } else {
    size_t live = cpu->large_live + want;
    size_t limit = cpu->large_peak > live ? cpu->large_peak : live;
    while (cpu->num_large > 0 && live + cpu->large_bytes > limit) {
      int big = 0;
      for (int i = 1; i < cpu->num_large; i++)
        if (cpu->large_size[i] > cpu->large_size[big]) big = i;
      evict[ne++] = tfr_cpu_large_take(cpu, big);
    }
  }
  cpu->large_live += *bytes;
  if (cpu->large_live + cpu->large_bytes > cpu->large_peak)
    cpu->large_peak = cpu->large_live + cpu->large_bytes;
  pthread_mutex_unlock(&cpu->pool_lock);
  for (int i = 0; i < ne; i++) tfr_free_aligned(evict[i]);
  if (data) return data;
  data = tfr_alloc_aligned(want);
  if (!data) {
    // Out of memory: give back everything kept and try once more.
    pthread_mutex_lock(&cpu->pool_lock);
    ne = 0;
    while (cpu->num_large > 0) evict[ne++] = tfr_cpu_large_take(cpu, 0);
    pthread_mutex_unlock(&cpu->pool_lock);
    for (int i = 0; i < ne; i++) tfr_free_aligned(evict[i]);
    if (ne) data = tfr_alloc_aligned(want);
  }
  if (!data) {
    pthread_mutex_lock(&cpu->pool_lock);
    cpu->large_live -= want;
    pthread_mutex_unlock(&cpu->pool_lock);
  }
  return data;
}

// Keeps a freed large buffer when the rules allow (else frees it).
static void tfr_cpu_large_free(tfr_cpu_backend *cpu, void *data, size_t bytes) {
  pthread_mutex_lock(&cpu->pool_lock);
  cpu->large_live -= bytes;
  bool keep = cpu->num_large < TFR_CPU_LARGE_SLOTS && cpu->large_bytes + bytes <= cpu->large_cap;
  if (keep) {
    cpu->large[cpu->num_large] = data;
    cpu->large_size[cpu->num_large++] = bytes;
    cpu->large_bytes += bytes;
  }
  pthread_mutex_unlock(&cpu->pool_lock);
  if (!keep) tfr_free_aligned(data);
}

static tfr_status tfr_cpu_storage_alloc(tfr_backend *b, size_t nbytes, bool zero,
                                        tfr_storage *out) {
  tfr_cpu_backend *cpu = tfr_cpu_cast(b);
  size_t bytes;
  int cls = tfr_cpu_size_class(nbytes, &bytes);
  void *data = NULL;
  if (bytes >= TFR_CPU_LARGE_MIN && cpu->large_cap > 0) {
    data = tfr_cpu_large_alloc(cpu, &bytes);
  } else {
    if (cls < TFR_CPU_POOL_CLASSES) {
      pthread_mutex_lock(&cpu->pool_lock);
      data = cpu->pool[cls];
      if (data) {
        memcpy(&cpu->pool[cls], data, sizeof(void *));
        cpu->pool_bytes -= bytes;
      }
      pthread_mutex_unlock(&cpu->pool_lock);
    }
    if (!data) data = tfr_alloc_aligned(bytes);
  }
  if (!data)
    return tfr_error(TFR_ERR_OUT_OF_MEMORY, "cpu: cannot allocate %zu bytes of host memory",
                     nbytes);
  if (zero) memset(data, 0, nbytes);
  out->host = true;
  out->data = data;
  out->capacity = bytes;
  return TFR_OK;
}

static void tfr_cpu_storage_free(tfr_backend *b, tfr_storage *s) {
  tfr_cpu_backend *cpu = tfr_cpu_cast(b);
  if (s->capacity >= TFR_CPU_LARGE_MIN && cpu->large_cap > 0) {
    tfr_cpu_large_free(cpu, s->data, s->capacity);
    s->data = NULL;
    return;
  }
  size_t bytes;
  int cls = tfr_cpu_size_class(s->capacity, &bytes);
  pthread_mutex_lock(&cpu->pool_lock);
  if (cls < TFR_CPU_POOL_CLASSES && bytes == s->capacity &&
      cpu->pool_bytes + bytes <= cpu->pool_cap) {
    memcpy(s->data, &cpu->pool[cls], sizeof(void *));
    cpu->pool[cls] = s->data;
    cpu->pool_bytes += bytes;
    s->data = NULL;
  }
  pthread_mutex_unlock(&cpu->pool_lock);
  tfr_free_aligned(s->data);
}

static void tfr_cpu_destroy(tfr_backend *b) {
  tfr_cpu_backend *cpu = tfr_cpu_cast(b);
  for (int c = 0; c < TFR_CPU_POOL_CLASSES; c++) {
    void *p = cpu->pool[c];
    while (p) {
      void *next;
      memcpy(&next, p, sizeof next);
      tfr_free_aligned(p);
      p = next;
    }
  }
  for (int i = 0; i < cpu->num_large; i++) tfr_free_aligned(cpu->large[i]);
  pthread_mutex_destroy(&cpu->pool_lock);
  tfr_free(cpu);
}

static tfr_status tfr_cpu_session_begin(tfr_backend *b, tfr_session *s) {
  (void)b;
  (void)s;
  return TFR_OK;
}

static tfr_status tfr_cpu_session_end(tfr_backend *b, tfr_session *s) {
  (void)b;
  (void)s;
  return TFR_OK;  // cpu kernels finish before they return
}

// Ops run to completion before they return: nothing to wait for.
static tfr_status tfr_cpu_synchronize(tfr_backend *b, tfr_session *s) {
  (void)b;
  (void)s;
  return TFR_OK;
}

static void *tfr_cpu_session_native(tfr_backend *b, tfr_session *s) {
  (void)s;
  return &tfr_cpu_cast(b)->native;
}

// Host memory is the cpu backend's memory: the core never calls these for a
// host backend (tfr_upload/tfr_download return the tensor itself), but a
// plain copy is the correct meaning if it ever does.
static tfr_status tfr_cpu_transfer(tfr_backend *b, const tfr_tensor *src, tfr_tensor *dst) {
  tfr_structural_desc d = {.kind = TFR_STRUCT_CONVERT, .in = src, .out = dst};
  return tfr_cpu_structural(b, &d);
}

// The cpu backend runs every op on every dtype the registry defines it for.
static bool tfr_cpu_supports(tfr_backend *b, uint32_t op, tfr_dtype dtype) {
  (void)b;
  const tfr_op_info *info = tfr_op_info_of(op);
  return info && (info->dtypes & TFR_DT(dtype)) != 0;
}

static const tfr_backend_vtable tfr_cpu_vtable = {
    .destroy = tfr_cpu_destroy,
    .storage_alloc = tfr_cpu_storage_alloc,
    .storage_free = tfr_cpu_storage_free,
    .session_begin = tfr_cpu_session_begin,
    .session_end = tfr_cpu_session_end,
    .session_native = tfr_cpu_session_native,
    .synchronize = tfr_cpu_synchronize,
    .upload = tfr_cpu_transfer,
    .download = tfr_cpu_transfer,
    .elementwise = tfr_cpu_elementwise,
    .structural = tfr_cpu_structural,
    .reduction = tfr_cpu_reduction,
    .dot_general = tfr_cpu_dot_general,
    .gather = tfr_cpu_gather,
    .scatter = tfr_cpu_scatter,
    .fusion = tfr_cpu_fusion,
    .sum_of_products = tfr_cpu_sum_of_products,
    .supports = tfr_cpu_supports,
};

const tfr_backend_vtable *tfr_cpu_vtable_for_tests(void);
const tfr_backend_vtable *tfr_cpu_vtable_for_tests(void) { return &tfr_cpu_vtable; }

tfr_status tfr_backend_create_cpu(const tfr_cpu_options *options, tfr_backend **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "backend_create_cpu: out is NULL");
  *out = NULL;
  tfr_cpu_options opts = {0};
  if (options) opts = *options;
  if (opts.num_threads < 0 || opts.num_threads > TFR_CPU_MAX_THREADS)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "backend_create_cpu: num_threads is %d, must be in [0, %d]", opts.num_threads,
                     TFR_CPU_MAX_THREADS);
  tfr_cpu_backend *cpu = tfr_calloc(1, sizeof *cpu);
  if (!cpu) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "backend_create_cpu: out of host memory");
  tfr_status st = tfr_backend_init(&cpu->base, &tfr_cpu_vtable, TFR_BACKEND_CPU, "cpu", true, true);
  if (st) {
    tfr_free(cpu);
    return st;
  }
  if (pthread_mutex_init(&cpu->pool_lock, NULL) != 0) {
    pthread_mutex_destroy(&cpu->base.session_lock);
    tfr_free(cpu);
    return tfr_error(TFR_ERR_OUT_OF_MEMORY, "backend_create_cpu: cannot create the pool lock");
  }
  int threads = opts.num_threads;
#ifdef _OPENMP
  if (threads == 0) threads = omp_get_max_threads();
#endif
  if (threads < 1) threads = 1;
  cpu->num_threads = threads;
  cpu->native.num_threads = threads;
  cpu->pool_cap = opts.disable_pool ? 0
                  : opts.pool_cap_bytes ? opts.pool_cap_bytes
                                        : TFR_CPU_DEFAULT_POOL_CAP;
  // One thread budget: our OpenMP team splits the GEMMs (src/cpu/dot.c), so
  // OpenBLAS's own threads are never wanted; waking them per call (lowering
  // and restoring the count around each GEMM) left a 256^3 product at 8 ms
  // instead of 0.45 ms in one process of three on 2 cores.
  if (openblas_get_num_threads() != 1) openblas_set_num_threads(1);
  cpu->large_cap = opts.disable_pool ? 0 : opts.pool_cap_bytes ? opts.pool_cap_bytes : SIZE_MAX;
  *out = &cpu->base;
  return TFR_OK;
}
