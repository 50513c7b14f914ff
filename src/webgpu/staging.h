// The transfers' state: staging buffers for downloads and uploads
// (transfer.c owns it; part of the backend object).
#ifndef TENFERRO_SRC_WEBGPU_STAGING_H_
#define TENFERRO_SRC_WEBGPU_STAGING_H_

#include <stdbool.h>
#include <stdint.h>

#include "webgpu/webgpu_abi.h"

// Largest piece of one transfer: bounds the staging memory, and keeps every
// single copy far below the 2 GiB at which lavapipe crashes.
#define TFR_WGPU_TRANSFER_CHUNK ((uint64_t)64 << 20)
// Upload staging: TFR_WGPU_UPLOAD_SLOTS mapped buffers of TFR_WGPU_UPLOAD_CHUNK
// bytes; uploads below TFR_WGPU_UPLOAD_DIRECT_MAX bytes use wgpuQueueWriteBuffer.
#define TFR_WGPU_UPLOAD_SLOTS 4
#define TFR_WGPU_UPLOAD_CHUNK ((uint64_t)8 << 20)
#define TFR_WGPU_UPLOAD_DIRECT_MAX ((uint64_t)256 << 10)

typedef struct tfr_wgpu_transfers {
  // MapRead|CopyDst buffers for downloads: two, so that the device copies
  // piece k+1 while the host copies piece k out of the other.
  WGPUBuffer staging[2];
  uint64_t staging_size[2];
  uint64_t transfer_chunk;        // TFR_WGPU_TRANSFER_CHUNK (tests lower it)
  // MapWrite|CopySrc buffers for uploads, kept mapped between uses: the host
  // writes piece k into one while the device copies earlier pieces out of the
  // others (see tfr_wgpu_upload). Reused memory: Dawn's wgpuQueueWriteBuffer
  // stages a large write in a freshly allocated host buffer every time.
  WGPUBuffer upload[TFR_WGPU_UPLOAD_SLOTS];
  uint64_t upload_size;           // bytes of each
  WGPUFuture upload_future[TFR_WGPU_UPLOAD_SLOTS];
  bool upload_pending[TFR_WGPU_UPLOAD_SLOTS];   // a map asked for and not yet waited for
  uint32_t upload_status[TFR_WGPU_UPLOAD_SLOTS];
  int upload_next;
  uint64_t upload_chunk;          // TFR_WGPU_UPLOAD_CHUNK (tests lower it)
  uint64_t upload_direct_max;     // smaller uploads go through wgpuQueueWriteBuffer
} tfr_wgpu_transfers;

#endif  // TENFERRO_SRC_WEBGPU_STAGING_H_
