// tenferro/io.h: reading and writing tensors as numpy .npy files.
//
// The format is numpy's NEP 1 ("A simple file format for NumPy arrays"), as
// implemented by numpy/lib/format.py: the magic string "\x93NUMPY", a major
// and a minor version byte, the header length (2 bytes little-endian in
// version 1.0, 4 bytes in 2.0 and 3.0), then the header: a Python dict literal
//   {'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }
// padded with spaces and ended by '\n', then the raw element data.
//
// What the reader accepts (everything numpy writes for these dtypes, and the
// variations numpy's own reader accepts):
//   * versions 1.0, 2.0 and 3.0 (3.0's UTF-8 header is read as bytes: only
//     ASCII can appear outside the strings, and no supported key or dtype
//     string has other characters).
//   * the keys in any order, each exactly once; no other keys (as numpy);
//     strings in single or double quotes (no escape sequences); any
//     whitespace between tokens (spaces, tabs, newlines); a trailing comma in
//     the dict and in the shape tuple; Python 2's "L" suffix on dimensions in
//     version 1.0 and 2.0 headers (numpy filters it for those versions).
//   * 'shape': a tuple of non-negative decimal integers (Python's syntax: a
//     sign is allowed, leading zeros are not): () for rank 0, (n,)
//     for rank 1 (a bare (n) is an int, not a tuple, and is rejected, as
//     numpy does); at most TFR_MAX_RANK dimensions; the product of the
//     non-zero extents at most 2^50 (the library's limit).
//   * 'fortran_order': True or False. A Fortran-ordered file is read as it is
//     stored, and the result is a strided view over that buffer with
//     column-major strides (1, d0, d0*d1, ...): no transposing copy. Reading
//     it row-major (tfr_tensor_read, any op) gives numpy's element order.
//   * 'descr': a byte-order character ('<' little, '>' big, '=' and '|'
//     native, or none = native) followed by b1, i1, i2, i4, i8, u1, u2, u4,
//     u8, f2, f4, f8, c8 or c16; '?' is bool too. Big-endian data is
//     converted to the host's byte order while loading (in place, after the
//     one read). Every other dtype string ('<U3', '|O', '|V2', structured
//     lists ...) is TFR_ERR_UNSUPPORTED_DTYPE.
//   * bf16 has no numpy dtype string (numpy has no bfloat16; ml_dtypes'
//     bfloat16 arrays are saved as anonymous '|V2' bytes): bf16 tensors are
//     never produced by the reader, and the writers refuse them with
//     TFR_ERR_UNSUPPORTED_DTYPE (convert to f32 first).
//   * the data must be exactly numel * element size bytes: shorter data is a
//     truncated file, and longer data (bytes after the array) is rejected too,
//     although numpy's reader ignores them, because a .npy file holds one
//     array and extra bytes usually mean a header whose shape is wrong.
//   * bool bytes must be 0 or 1 (the library's invariant for bool).
//   * headers longer than 1 MiB are rejected (numpy's own reader refuses more
//     than 10000 bytes unless the file is trusted).
// All sizes are checked against the actual file or buffer size before any
// allocation, so a malformed file never causes a large allocation, and data
// is read straight into the tensor's storage.
//
// The writer produces byte for byte what numpy.save (numpy >= 1.23) writes for
// a C-ordered array of the same dtype and shape: version 1.0 (2.0 only if the
// header does not fit in 65535 bytes), keys sorted, 'fortran_order': False,
// numpy's spare space after the dict for growing axis 0, the whole header
// padded with spaces to a multiple of 64 bytes, '\n' last.
#ifndef TENFERRO_IO_H_
#define TENFERRO_IO_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tenferro/status.h"
#include "tenferro/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

// Reads a .npy file (numpy's NEP 1 format; see the top of this header for
// exactly what is accepted) into a new host tensor.
//   path  NUL-terminated file name; must be a regular file.
//   out   receives a host tensor that owns a new storage holding the data:
//         compact row-major for a C-ordered file, a column-major strided view
//         over the whole storage for a Fortran-ordered one (rank >= 2).
//         The caller releases it. On error *out is NULL.
// Errors: TFR_ERR_INVALID_ARGUMENT (NULL path or out),
//         TFR_ERR_IO (cannot open, stat or read the file, or not a regular
//         file; the message has errno's text),
//         TFR_ERR_FORMAT (bad magic string, unknown version, truncated
//         preamble or header, header length beyond the file or over 1 MiB,
//         a malformed header dict: not a dict, missing, repeated or unknown
//         keys, values of the wrong type, unterminated strings or tuples,
//         negative, non-integer or too large dimensions, rank over
//         TFR_MAX_RANK, more than 2^50 elements; data shorter or longer than
//         the shape says; a bool byte other than 0 or 1),
//         TFR_ERR_UNSUPPORTED_DTYPE (a dtype string tenferro has no dtype
//         for; the message quotes it),
//         TFR_ERR_OUT_OF_MEMORY.
// Messages about the file start with "npy_load: <path>: " and say where the
// fault is (the byte offset in the header, the dimension, the element).
TFR_API TFR_NODISCARD tfr_status tfr_npy_load(const char *path, tfr_tensor **out);

// What a .npy file holds, read from its header alone (tfr_npy_read_info).
typedef struct tfr_npy_info {
  tfr_dtype dtype;
  int rank;
  int64_t shape[TFR_MAX_RANK];  // shape[0..rank); the rest 0
  bool fortran_order;           // the header's 'fortran_order'
  size_t data_bytes;            // numel * the dtype's size: the bytes after the header
} tfr_npy_info;

// Reads and checks the preamble and header of a .npy file without reading
// its data: what tfr_npy_load would make of it, for planning (memory, shapes)
// before anything large is read. The checks are tfr_npy_load's (the same
// parser), including the file's size against the shape (the data must be
// exactly data_bytes long); only the data's own checks (a bool byte other
// than 0 or 1) are left to tfr_npy_load. A file that changes between this
// call and tfr_npy_load is checked again there.
//   path  NUL-terminated file name; must be a regular file (a FIFO is refused
//         without waiting for a writer).
//   out   receives the dtype, rank, shape, order and data size; zeroed on
//         error. Nothing is allocated for the caller.
// Errors: TFR_ERR_INVALID_ARGUMENT (NULL path or out), and as tfr_npy_load:
//         TFR_ERR_IO, TFR_ERR_FORMAT (but the data's bool bytes),
//         TFR_ERR_UNSUPPORTED_DTYPE, TFR_ERR_OUT_OF_MEMORY (the header's
//         buffer, at most 1 MiB).
// Messages start with "npy_read_info: <path>: ".
TFR_API TFR_NODISCARD tfr_status tfr_npy_read_info(const char *path, tfr_npy_info *out);

// Reads the bytes of a .npy file from memory; the same parser and the same
// rules as tfr_npy_load (the buffer plays the file: its size is the file size,
// so trailing bytes are rejected).
//   data    the .npy bytes; may be NULL only when nbytes is 0. Not retained:
//           the data is copied into the new tensor.
//   nbytes  the size of `data` in bytes.
//   out     as tfr_npy_load.
// Errors: as tfr_npy_load, without TFR_ERR_IO, plus TFR_ERR_INVALID_ARGUMENT
//         for NULL data with nbytes > 0. Messages start with
//         "npy_load_buffer: ".
TFR_API TFR_NODISCARD tfr_status tfr_npy_load_buffer(const void *data, size_t nbytes,
                                                     tfr_tensor **out);

// Writes a host tensor as a .npy file (numpy's NEP 1 format; the bytes
// numpy.save would write for the same values, see the top of this header).
// The file is written to a new temporary file in the same directory
// ("<path>.<pid>.<n>.tmp", created with mode 0666 minus the umask), flushed
// to disk (fsync) and renamed over `path`, so `path` is never left partly
// written: on any error the temporary file is removed and an existing file at
// `path` is untouched. (A process killed mid-write can leave the temporary
// file behind.)
//   path  NUL-terminated file name; an existing file is replaced.
//   t     a host tensor of any dtype, rank, shape and strides (views,
//         negative and zero strides included); always written in C order
//         ('fortran_order': False), elements in row-major order. Borrowed.
// Errors: TFR_ERR_INVALID_ARGUMENT (NULL path or t; an empty tensor whose
//         non-zero extents multiply to more than 2^50, a header the reader
//         refuses), TFR_ERR_UNSUPPORTED_DTYPE (bf16),
//         TFR_ERR_WRONG_BACKEND (a device tensor: tfr_download it first),
//         TFR_ERR_IO (cannot create, write, sync or rename the file; the
//         message has errno's text and the file name),
//         TFR_ERR_OUT_OF_MEMORY.
// Messages start with "npy_save: <path>: ".
TFR_API TFR_NODISCARD tfr_status tfr_npy_save(const char *path, const tfr_tensor *t);

// Writes a host tensor as .npy bytes into a caller-provided buffer: the same
// bytes tfr_npy_save writes to a file. Call with dst NULL to learn the size.
//   t            as tfr_npy_save.
//   dst          receives the bytes; NULL to only compute the size.
//   capacity     the size of `dst` in bytes (ignored when dst is NULL).
//   out_nbytes   receives the size of the .npy image in bytes; set also when
//                `capacity` is too small (so a caller can retry).
// Errors: TFR_ERR_INVALID_ARGUMENT (NULL t or out_nbytes, an empty tensor
//         whose non-zero extents multiply to more than 2^50 as for
//         tfr_npy_save, capacity smaller than the image; nothing is written
//         to dst then), TFR_ERR_UNSUPPORTED_DTYPE (bf16),
//         TFR_ERR_WRONG_BACKEND (a device tensor).
// Messages start with "npy_save_buffer: ".
TFR_API TFR_NODISCARD tfr_status tfr_npy_save_buffer(const tfr_tensor *t, void *dst,
                                                     size_t capacity, size_t *out_nbytes);

#ifdef __cplusplus
}
#endif

#endif  // TENFERRO_IO_H_
