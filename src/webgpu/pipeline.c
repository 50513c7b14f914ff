// Kernel specialisation and the pipeline cache.
//
// Kernels are WGSL files in src/webgpu/kernels/, embedded at build time by
// embed_wgsl.cmake. `{{UPPER_CASE}}` placeholders stand only for what WGSL
// cannot parameterise (element types, load/store/convert expressions);
// workgroup and tile sizes are `override` constants given at pipeline
// creation. A variant = file + snippets of kernels/common/ + substitutions +
// overrides; its name is the Dawn label and, with the overrides, the cache
// key. Compilation errors name the variant and carry Dawn's line:column.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tfr_wgsl_kernels.h"  // generated: tfr_wgsl_files[]
#include "webgpu/wgpu.h"
#include "webgpu/wgsl_text.h"

// ---------------------------------------------------------------------------
// Template expansion
// ---------------------------------------------------------------------------

static const char *tfr_wgsl_file_source(const char *name) {
  for (size_t i = 0; i < sizeof tfr_wgsl_files / sizeof tfr_wgsl_files[0]; i++)
    if (strcmp(tfr_wgsl_files[i].name, name) == 0) return tfr_wgsl_files[i].source;
  return NULL;
}

tfr_status tfr_wgsl_expand(const char *variant, const char *tmpl, const tfr_wgsl_subst *subst,
                           int nsubst, char **out) {
  *out = NULL;
  bool used[32] = {false};
  if (nsubst > 32)
    return tfr_error(TFR_ERR_INTERNAL, "webgpu: kernel %s: more than 32 substitutions", variant);
  tfr_wgsl_text t = {0};
  const char *cur = tmpl;
  tfr_status st = TFR_OK;
  for (;;) {
    const char *open = strstr(cur, "{{");
    if (!open) {
      tfr_wgsl_append(&t, cur, strlen(cur));
      break;
    }
    tfr_wgsl_append(&t, cur, (size_t)(open - cur));
    const char *name = open + 2;
    size_t n = strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
    if (n == 0 || strncmp(name + n, "}}", 2) != 0) {
      st = tfr_error(TFR_ERR_INTERNAL, "webgpu: kernel %s: malformed placeholder at \"%.24s\"",
                     variant, open);
      break;
    }
    int k = 0;
    while (k < nsubst && !(strlen(subst[k].name) == n && strncmp(subst[k].name, name, n) == 0)) k++;
    if (k == nsubst) {
      st = tfr_error(TFR_ERR_INTERNAL, "webgpu: kernel %s: placeholder {{%.*s}} has no value",
                     variant, (int)n, name);
      break;
    }
    used[k] = true;
    tfr_wgsl_append(&t, subst[k].value, strlen(subst[k].value));
    cur = name + n + 2;
  }
  for (int k = 0; !st && k < nsubst; k++)
    if (!used[k])
      st = tfr_error(TFR_ERR_INTERNAL,
                     "webgpu: kernel %s: a value is given for {{%s}}, which the template lacks",
                     variant, subst[k].name);
  if (!st && t.failed)
    st = tfr_error(TFR_ERR_OUT_OF_MEMORY, "webgpu: kernel %s: out of host memory", variant);
  if (st) {
    tfr_free(t.buf);
    return st;
  }
  *out = t.buf;
  return TFR_OK;
}

// ---------------------------------------------------------------------------
// Compilation
// ---------------------------------------------------------------------------

typedef struct tfr_wgpu_scope_result {
  uint32_t status;
  uint32_t type;
  char message[1024];
} tfr_wgpu_scope_result;

static void tfr_wgpu_on_scope(uint32_t status, uint32_t type, WGPUStringView message, void *ud1,
                              void *ud2) {
  (void)ud2;
  tfr_wgpu_scope_result *r = ud1;
  r->status = status;
  r->type = type;
  tfr_wgpu_copy_view(r->message, sizeof r->message, message);
}

// Pops the innermost error scope and waits for its verdict.
static tfr_status tfr_wgpu_pop_scope(tfr_wgpu_backend *b, const char *what,
                                     tfr_wgpu_scope_result *r) {
  memset(r, 0, sizeof *r);
  WGPUPopErrorScopeCallbackInfo cb = {NULL, WGPU_CALLBACK_MODE_WAIT_ANY_ONLY, tfr_wgpu_on_scope,
                                      r, NULL};
  WGPUFuture f = b->p->wgpuDevicePopErrorScope(b->device, cb);
  return tfr_wgpu_wait(b, f, what);
}

typedef struct tfr_wgpu_compile_info {
  const char *source;
  uint32_t status;
  bool found;        // an error message with a plausible position
  uint64_t line, column;
  char message[512];
} tfr_wgpu_compile_info;

static void tfr_wgpu_on_compile_info(uint32_t status, const WGPUCompilationInfo *info, void *ud1,
                                     void *ud2) {
  (void)ud2;
  tfr_wgpu_compile_info *c = ud1;
  c->status = status;
  if (status != WGPU_STATUS_SUCCESS || !info) return;
  // The layout of WGPUCompilationMessage could not be checked at build time
  // (see webgpu_abi.h): only trust a message whose fields are plausible.
  uint64_t lines = 1;
  for (const char *s = c->source; *s; s++) lines += *s == '\n';
  if (info->messageCount > 10000) return;
  for (size_t i = 0; i < info->messageCount; i++) {
    const WGPUCompilationMessage *m = &info->messages[i];
    if (m->type != WGPU_COMPILATION_MESSAGE_ERROR) continue;
    if (m->lineNum < 1 || m->lineNum > lines || m->linePos > 100000) continue;
    c->found = true;
    c->line = m->lineNum;
    c->column = m->linePos;
    tfr_wgpu_copy_view(c->message, sizeof c->message, m->message);
    return;
  }
}

// Writes the specialised source to $TFR_WGSL_DUMP/<variant>.wgsl when that
// variable names a folder (a debugging aid; failures are ignored).
static void tfr_wgpu_dump(const char *variant, const char *source) {
  const char *dir = getenv("TFR_WGSL_DUMP");
  if (!dir || !dir[0]) return;
  char path[4096];
  int n = snprintf(path, sizeof path, "%s/", dir);
  for (const char *v = variant; *v && n < (int)sizeof path - 6; v++)
    path[n++] = (strchr("/\\ ", *v) ? '_' : *v);
  snprintf(path + n, sizeof path - (size_t)n, ".wgsl");
  FILE *f = fopen(path, "w");
  if (!f) return;
  fputs(source, f);
  fclose(f);
}

tfr_status tfr_wgpu_compile(tfr_wgpu_backend *b, const char *variant, const char *source,
                            const tfr_wgsl_override *overrides, int noverrides, int nread,
                            int nwrite, WGPUComputePipeline *out) {
  *out = NULL;
  const tfr_wgpu_procs *p = b->p;
  TFR_RETURN_IF_ERROR(tfr_wgpu_check(b, variant));
  WGPUPipelineLayout layout;
  TFR_RETURN_IF_ERROR(tfr_wgpu_layout_get(b, nread, nwrite, NULL, &layout));
  tfr_wgpu_dump(variant, source);

  WGPUShaderSourceWGSL wgsl;
  memset(&wgsl, 0, sizeof wgsl);
  wgsl.chain.sType = WGPU_STYPE_SHADER_SOURCE_WGSL;
  wgsl.code = tfr_wgpu_str(source);
  WGPUShaderModuleDescriptor md;
  memset(&md, 0, sizeof md);
  md.nextInChain = &wgsl.chain;
  md.label = tfr_wgpu_str(variant);
  // An invalid module still comes back as an object: the verdict is in the
  // error scope and in the compilation info.
  p->wgpuDevicePushErrorScope(b->device, WGPU_ERROR_FILTER_VALIDATION);
  WGPUShaderModule module = p->wgpuDeviceCreateShaderModule(b->device, &md);
  tfr_wgpu_compile_info ci;
  memset(&ci, 0, sizeof ci);
  ci.source = source;
  tfr_status st = TFR_OK;
  if (module) {
    WGPUCompilationInfoCallbackInfo cb = {NULL, WGPU_CALLBACK_MODE_WAIT_ANY_ONLY,
                                          tfr_wgpu_on_compile_info, &ci, NULL};
    st = tfr_wgpu_wait(b, p->wgpuShaderModuleGetCompilationInfo(module, cb), variant);
  }
  tfr_wgpu_scope_result scope;
  tfr_status pop = tfr_wgpu_pop_scope(b, variant, &scope);
  if (!st) st = pop;
  if (!st && (ci.found || !module || scope.type != WGPU_ERROR_TYPE_NO_ERROR)) {
    if (ci.found)
      st = tfr_error(TFR_ERR_INTERNAL,
                     "webgpu: kernel %s: WGSL error at line %llu, column %llu (%llu:%llu): %s%s%s",
                     variant, (unsigned long long)ci.line, (unsigned long long)ci.column,
                     (unsigned long long)ci.line, (unsigned long long)ci.column, ci.message,
                     scope.message[0] ? " | Dawn: " : "", scope.message);
    else
      st = tfr_error(TFR_ERR_INTERNAL, "webgpu: kernel %s: shader module creation failed: %s",
                     variant, scope.message[0] ? scope.message : "no message from Dawn");
  }
  if (st) {
    if (module) p->wgpuShaderModuleRelease(module);
    return st;
  }

  WGPUConstantEntry constants[8];
  if (noverrides > 8)
    return tfr_error(TFR_ERR_INTERNAL, "webgpu: kernel %s: more than 8 override constants", variant);
  memset(constants, 0, sizeof constants);
  for (int i = 0; i < noverrides; i++) {
    constants[i].key = tfr_wgpu_str(overrides[i].name);
    constants[i].value = overrides[i].value;
  }
  WGPUComputePipelineDescriptor pd;
  memset(&pd, 0, sizeof pd);
  pd.label = tfr_wgpu_str(variant);
  pd.layout = layout;
  pd.compute.module = module;
  pd.compute.entryPoint = tfr_wgpu_str("main");
  pd.compute.constantCount = (size_t)noverrides;
  pd.compute.constants = constants;
  p->wgpuDevicePushErrorScope(b->device, WGPU_ERROR_FILTER_VALIDATION);
  WGPUComputePipeline pipeline = p->wgpuDeviceCreateComputePipeline(b->device, &pd);
  st = tfr_wgpu_pop_scope(b, variant, &scope);
  p->wgpuShaderModuleRelease(module);
  if (!st && (!pipeline || scope.type != WGPU_ERROR_TYPE_NO_ERROR))
    st = tfr_error(TFR_ERR_INTERNAL, "webgpu: kernel %s: compute pipeline creation failed: %s",
                   variant, scope.message[0] ? scope.message : "no message from Dawn");
  if (st) {
    if (pipeline) p->wgpuComputePipelineRelease(pipeline);
    return st;
  }
  *out = pipeline;
  return tfr_wgpu_check(b, variant);
}

// ---------------------------------------------------------------------------
// The cache
// ---------------------------------------------------------------------------

tfr_status tfr_wgpu_layout_get(tfr_wgpu_backend *b, int nread, int nwrite,
                               WGPUBindGroupLayout *bind, WGPUPipelineLayout *pipeline) {
  if (nread == 0 && nwrite == 0) nread = nwrite = 1;
  if (nread < 0 || nread > TFR_WGPU_MAX_READ || nwrite < 1 || nwrite > TFR_WGPU_MAX_WRITE)
    return tfr_error(TFR_ERR_INTERNAL, "webgpu: binding signature %d read + %d write is out of range",
                     nread, nwrite);
  if ((uint32_t)(nread + nwrite) > b->limits.maxStorageBuffersPerShaderStage)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "webgpu: a kernel needs %d storage buffers, more than the %u per shader "
                     "stage of %s",
                     nread + nwrite, b->limits.maxStorageBuffersPerShaderStage, b->info.name);
  if (!b->kernels.pipeline_layout[nread][nwrite]) {
    const tfr_wgpu_procs *p = b->p;
    WGPUBindGroupLayoutEntry e[1 + TFR_WGPU_MAX_READ + TFR_WGPU_MAX_WRITE];
    memset(e, 0, sizeof e);
    int n = 1 + nread + nwrite;
    for (int i = 0; i < n; i++) {
      e[i].binding = (uint32_t)i;
      e[i].visibility = WGPU_SHADER_STAGE_COMPUTE;
      e[i].buffer.type = i == 0       ? WGPU_BUFFER_BINDING_UNIFORM
                         : i <= nread ? WGPU_BUFFER_BINDING_READ_ONLY_STORAGE
                                      : WGPU_BUFFER_BINDING_STORAGE;
    }
    char label[64];
    snprintf(label, sizeof label, "tenferro params+%dr+%dw", nread, nwrite);
    WGPUBindGroupLayoutDescriptor ld;
    memset(&ld, 0, sizeof ld);
    ld.label = tfr_wgpu_str(label);
    ld.entryCount = (size_t)n;
    ld.entries = e;
    WGPUBindGroupLayout bl = p->wgpuDeviceCreateBindGroupLayout(b->device, &ld);
    TFR_RETURN_IF_ERROR(tfr_wgpu_check(b, "webgpu"));
    if (!bl) return tfr_error(TFR_ERR_INTERNAL, "webgpu: cannot create the bind group layout %s", label);
    WGPUPipelineLayoutDescriptor pld;
    memset(&pld, 0, sizeof pld);
    pld.bindGroupLayoutCount = 1;
    pld.bindGroupLayouts = &bl;
    WGPUPipelineLayout pl = p->wgpuDeviceCreatePipelineLayout(b->device, &pld);
    tfr_status st = tfr_wgpu_check(b, "webgpu");
    if (!st && !pl)
      st = tfr_error(TFR_ERR_INTERNAL, "webgpu: cannot create the pipeline layout %s", label);
    if (st) {
      if (pl) p->wgpuPipelineLayoutRelease(pl);
      p->wgpuBindGroupLayoutRelease(bl);
      return st;
    }
    b->kernels.bind_layout[nread][nwrite] = bl;
    b->kernels.pipeline_layout[nread][nwrite] = pl;
  }
  if (bind) *bind = b->kernels.bind_layout[nread][nwrite];
  if (pipeline) *pipeline = b->kernels.pipeline_layout[nread][nwrite];
  return TFR_OK;
}

tfr_status tfr_wgpu_pipelines_init(tfr_wgpu_backend *b) {
  // The copy kernels' signature, so that a device that cannot make layouts
  // fails at creation rather than at the first op.
  TFR_RETURN_IF_ERROR(tfr_wgpu_layout_get(b, 1, 1, NULL, NULL));
  return TFR_OK;
}

static void tfr_wgpu_release_pipeline(void *ctx, WGPUComputePipeline pipeline) {
  ((const tfr_wgpu_procs *)ctx)->wgpuComputePipelineRelease(pipeline);
}

void tfr_wgpu_pipelines_release(tfr_wgpu_backend *b) {
  tfr_wgpu_kernel_cache *c = &b->kernels;
  tfr_wgpu_kernel_cache_clear(c, tfr_wgpu_release_pipeline, (void *)b->p);
  for (int r = 0; r <= TFR_WGPU_MAX_READ; r++)
    for (int w = 0; w <= TFR_WGPU_MAX_WRITE; w++) {
      if (c->pipeline_layout[r][w]) b->p->wgpuPipelineLayoutRelease(c->pipeline_layout[r][w]);
      if (c->bind_layout[r][w]) b->p->wgpuBindGroupLayoutRelease(c->bind_layout[r][w]);
      c->pipeline_layout[r][w] = NULL;
      c->bind_layout[r][w] = NULL;
    }
}
// Appends s[n] to key[*len] within cap; false when it does not fit.
static bool tfr_wgpu_key_put(char *key, size_t cap, size_t *len, const char *s, size_t n) {
  if (n >= cap - *len) return false;
  memcpy(key + *len, s, n);
  *len += n;
  key[*len] = '\0';
  return true;
}

// Appends u in decimal.
static bool tfr_wgpu_key_put_u32(char *key, size_t cap, size_t *len, uint32_t u) {
  char digits[10];
  size_t n = 0;
  do digits[sizeof digits - ++n] = (char)('0' + u % 10);
  while ((u /= 10) != 0);
  return tfr_wgpu_key_put(key, cap, len, digits + sizeof digits - n, n);
}

// The cache key of `v` into key[cap] (variant, then " NAME=value" per
// override, then " <nread>r<nwrite>w"); false when it does not fit. Built
// without printf: it runs on every dispatch of a named kernel.
static bool tfr_wgpu_pipeline_key(const tfr_wgsl_variant *v, char *key, size_t cap,
                                  size_t *len) {
  *len = 0;
  key[0] = '\0';
  bool ok = tfr_wgpu_key_put(key, cap, len, v->variant, strlen(v->variant));
  for (int i = 0; ok && i < v->noverrides; i++) {
    const char *name = v->overrides[i].name;
    ok = tfr_wgpu_key_put(key, cap, len, " ", 1) &&
         tfr_wgpu_key_put(key, cap, len, name, strlen(name)) &&
         tfr_wgpu_key_put(key, cap, len, "=", 1) &&
         tfr_wgpu_key_put_u32(key, cap, len, v->overrides[i].value);
  }
  if (ok && (v->nread || v->nwrite))
    ok = tfr_wgpu_key_put(key, cap, len, " ", 1) &&
         tfr_wgpu_key_put_u32(key, cap, len, (uint32_t)v->nread) &&
         tfr_wgpu_key_put(key, cap, len, "r", 1) &&
         tfr_wgpu_key_put_u32(key, cap, len, (uint32_t)v->nwrite) &&
         tfr_wgpu_key_put(key, cap, len, "w", 1);
  return ok;
}

WGPUComputePipeline tfr_wgpu_kernel_find(tfr_wgpu_backend *b, tfr_wgpu_kernel_family family,
                                         const void *key, size_t len) {
  return tfr_wgpu_kernel_cache_find(&b->kernels, family, key, len);
}

WGPUComputePipeline tfr_wgpu_pipeline_cached(tfr_wgpu_backend *b, const tfr_wgsl_variant *v) {
  char key[512];
  size_t len;
  if (!tfr_wgpu_pipeline_key(v, key, sizeof key, &len)) return NULL;
  return tfr_wgpu_kernel_find(b, TFR_WGPU_KERNELS_NAMED, key, len);
}

tfr_status tfr_wgpu_pipeline_get(tfr_wgpu_backend *b, const tfr_wgsl_variant *v,
                                 WGPUComputePipeline *out) {
  char key[512];
  size_t len;
  if (!tfr_wgpu_pipeline_key(v, key, sizeof key, &len))
    return tfr_error(TFR_ERR_INTERNAL, "webgpu: kernel %s: the cache key is too long", v->variant);
  *out = tfr_wgpu_kernel_find(b, TFR_WGPU_KERNELS_NAMED, key, len);
  if (*out) return TFR_OK;
  return tfr_wgpu_kernel_build(b, TFR_WGPU_KERNELS_NAMED, key, len, v, out);
}

tfr_status tfr_wgpu_kernel_build(tfr_wgpu_backend *b, tfr_wgpu_kernel_family family,
                                 const void *key, size_t len, const tfr_wgsl_variant *v,
                                 WGPUComputePipeline *out) {
  *out = NULL;
  // Snippets first, then the kernel: WGSL declarations are order-free.
  tfr_wgsl_text t = {0};
  const char *files[13];
  int nfiles = 0;
  for (const char *const *s = v->snippets; s && *s; s++) {
    if (nfiles == 12) {
      tfr_free(t.buf);
      return tfr_error(TFR_ERR_INTERNAL, "webgpu: kernel %s: more than 12 snippets", v->variant);
    }
    files[nfiles++] = *s;
  }
  files[nfiles++] = v->file;
  for (int i = 0; i < nfiles; i++) {
    const char *src = tfr_wgsl_file_source(files[i]);
    if (!src) {
      tfr_free(t.buf);
      return tfr_error(TFR_ERR_INTERNAL, "webgpu: kernel %s: no embedded file %s", v->variant,
                       files[i]);
    }
    tfr_wgsl_append(&t, src, strlen(src));
  }
  if (t.failed) {
    tfr_free(t.buf);
    return tfr_error(TFR_ERR_OUT_OF_MEMORY, "webgpu: kernel %s: out of host memory", v->variant);
  }
  char *source = NULL;
  tfr_status st = tfr_wgsl_expand(v->variant, t.buf, v->subst, v->nsubst, &source);
  tfr_free(t.buf);
  if (st) return st;
  WGPUComputePipeline pipeline = NULL;
  st = tfr_wgpu_compile(b, v->variant, source, v->overrides, v->noverrides, v->nread, v->nwrite,
                        &pipeline);
  tfr_free(source);
  if (st) return st;
  st = tfr_wgpu_kernel_cache_add(&b->kernels, family, key, len, pipeline, v->variant);
  if (st) {
    b->p->wgpuComputePipelineRelease(pipeline);
    return st;
  }
  *out = pipeline;
  return TFR_OK;
}
