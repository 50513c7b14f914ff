// python/src/dlpack.h: the DLPack 1.x data structures, written from the
// DLPack specification (dmlc.github.io/dlpack/latest). Debian 12's
// libdlpack-dev is 0.6, older than the versioned managed tensor, so the
// module carries its own definitions. Only what the module uses.
#ifndef TENFERRO_PYTHON_DLPACK_H_
#define TENFERRO_PYTHON_DLPACK_H_

#include <stdint.h>

// The ABI version this module produces.
#define TFRPY_DLPACK_MAJOR 1
#define TFRPY_DLPACK_MINOR 0

// DLDeviceType values used here.
enum {
  TFRPY_DL_CPU = 1,
  TFRPY_DL_CUDA_HOST = 3,
  TFRPY_DL_WEBGPU = 15,
};

// DLDataTypeCode values.
enum {
  TFRPY_DL_INT = 0,
  TFRPY_DL_UINT = 1,
  TFRPY_DL_FLOAT = 2,
  TFRPY_DL_BFLOAT = 4,
  TFRPY_DL_COMPLEX = 5,
  TFRPY_DL_BOOL = 6,
};

// DLManagedTensorVersioned.flags bits.
#define TFRPY_DL_FLAG_READ_ONLY (UINT64_C(1) << 0)
#define TFRPY_DL_FLAG_IS_COPIED (UINT64_C(1) << 1)

typedef struct {
  uint32_t major;
  uint32_t minor;
} tfrpy_dl_version;

typedef struct {
  int32_t device_type;  // DLDeviceType (a C enum: int sized)
  int32_t device_id;
} tfrpy_dl_device;

typedef struct {
  uint8_t code;    // DLDataTypeCode
  uint8_t bits;    // bits per lane (bool: 8; complex64: 64)
  uint16_t lanes;  // 1 for tensors of scalars
} tfrpy_dl_dtype;

typedef struct {
  void *data;
  tfrpy_dl_device device;
  int32_t ndim;
  tfrpy_dl_dtype dtype;
  int64_t *shape;
  int64_t *strides;  // in elements; NULL: compact row-major
  uint64_t byte_offset;
} tfrpy_dl_tensor;

// DLManagedTensor (legacy, capsule name "dltensor").
typedef struct tfrpy_dl_managed {
  tfrpy_dl_tensor dl_tensor;
  void *manager_ctx;
  void (*deleter)(struct tfrpy_dl_managed *self);
} tfrpy_dl_managed;

// DLManagedTensorVersioned (capsule name "dltensor_versioned").
typedef struct tfrpy_dl_managed_versioned {
  tfrpy_dl_version version;
  void *manager_ctx;
  void (*deleter)(struct tfrpy_dl_managed_versioned *self);
  uint64_t flags;
  tfrpy_dl_tensor dl_tensor;
} tfrpy_dl_managed_versioned;

#endif  // TENFERRO_PYTHON_DLPACK_H_
