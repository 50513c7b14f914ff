// Transfers between host and device (transfer.c): the vtable's upload and
// download entries.
#ifndef TENFERRO_SRC_WEBGPU_TRANSFER_H_
#define TENFERRO_SRC_WEBGPU_TRANSFER_H_

#include "webgpu/wgpu.h"

tfr_status tfr_wgpu_upload(tfr_backend *b, const tfr_tensor *host, tfr_tensor *out);
tfr_status tfr_wgpu_download(tfr_backend *b, const tfr_tensor *t, tfr_tensor *host_out);
// Releases the staging buffers (upload slots after their pending maps).
void tfr_wgpu_transfer_release(tfr_wgpu_backend *b);

#endif  // TENFERRO_SRC_WEBGPU_TRANSFER_H_
