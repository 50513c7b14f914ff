// The WGSL type layer: how each of tenferro's 15 dtypes lives in a storage
// buffer and in a kernel's registers, for every kernel family (elementwise,
// fusion, copy/convert, reduce, gather/scatter, dot, structural). Whether a
// family computes on a dtype is not decided here (capability.h): this table
// also describes the dtypes no kernel computes on yet.
//
// Storage: elements of 4 bytes and more are arrays of their storage type
// (`storage`, 1, 2 or 4 words). Sub-word elements (1 and 2 bytes) are packed
// little-endian into u32 words, `per_word` to a word (common/bytes.wgsl): a
// read shifts and masks, a write is a pair of atomics on
// array<atomic<u32>>. The 64-bit dtypes WGSL lacks (i64, u64, f64 and the
// parts of c128) are `emulated`: stored as vec2<u32> words (low word first),
// their value type the words themselves; f64 is computed on in software on
// those words (common/u64.wgsl, common/f64.wgsl), i64 and u64 as integers on
// them, c128 as a pair of f64 (vec4<u32>, common/c128.wgsl).
//
// Registers: the narrow integers compute in a 32-bit value type, i8 and i16
// as i32 (sign-extended), u8 and u16 as u32 (zero-extended); `widen` makes
// the value from the element's bits (a u32 holding them in its low bits) and
// `narrow` the bits from the value (the stores keep only the element's low
// bits, so narrowing a narrow integer is a bitcast). tfr_wgsl_load and
// tfr_wgsl_store apply them; code that moves bits uses the entries of
// tfr_wgsl_bits_of, whose value is the bits. The op table (ew_table.c) keeps
// every value in range: its expressions on a narrow integer wrap to the
// dtype's width as the cpu does. f16 and bf16 compute in f32: widened
// exactly, stored exactly (a value in registers is always one of the
// dtype's, the op table rounding each result once), with common/half.wgsl's
// functions, which every kernel that loads or stores them includes.
#ifndef TENFERRO_SRC_WEBGPU_WGSL_TYPES_H_
#define TENFERRO_SRC_WEBGPU_WGSL_TYPES_H_

#include <stdbool.h>
#include <stddef.h>

#include "tenferro/dtype.h"

typedef struct tfr_wgsl_type {
  const char *tag;        // in variant names ("f32", "bool", "c64", ...)
  const char *value;      // WGSL type of one value in registers (sub-word: u32)
  const char *storage;    // WGSL type of one entry of a storage array read element-wise
  const char *array;      // that array: array<storage>
  const char *write_array;  // the array written element-wise (sub-word: array<atomic<u32>>,
                            // for common/bytes.wgsl's stores)
  const char *vec;        // WGSL type of one vector entry (16 bytes; sub-word: one u32 word)
  const char *vec_array;  // array<vec>
  int per_vec;            // elements per `vec` entry
  int size;               // bytes per element
  int per_word;           // sub-word: elements per u32 word (4 or 2); else 0
  unsigned mask;          // sub-word: mask of one element's bits in a word; else 0
  bool emulated;          // a 64-bit type WGSL lacks (i64, u64, f64, c128)
  const char *bits_tag;   // the element's bits by size: "u8", "u16", "u32", "u32x2", "u32x4"
  const char *bits;       // WGSL type of the bits as one value: u32, vec2<u32> or vec4<u32>
  const char *widen;      // "%s" -> the value of the bits %s (u32); NULL: the bits are the value
  const char *narrow;     // "%s" -> the bits (u32) of the value %s; NULL: the value is the bits
} tfr_wgsl_type;

// The entry of `dt` (every valid dtype has one), NULL for an invalid value.
const tfr_wgsl_type *tfr_wgsl_type_of(tfr_dtype dt);

// The bits of an element of `size` bytes (1, 2, 4, 8 or 16): the entry of an
// unsigned integer (or vector of u32) dtype of that size; NULL otherwise.
const tfr_wgsl_type *tfr_wgsl_bits_of(size_t size);

// The value of the bits `bits` (a u32 expression for sub-word types; else
// the storage value): `widen` applied, or `bits` itself.
const char *tfr_wgsl_widen(const tfr_wgsl_type *t, const char *bits, char *buf, size_t cap);
// The bits of the value `val`: `narrow` applied, or `val` itself.
const char *tfr_wgsl_narrow(const tfr_wgsl_type *t, const char *val, char *buf, size_t cap);

// The expression loading the value of element `idx` of array `arr` (read
// element-wise): arr[idx], or for sub-word elements the shift and mask of its
// word, widened.
const char *tfr_wgsl_load(const tfr_wgsl_type *t, const char *arr, const char *idx, char *buf,
                          size_t cap);
// The expression loading the value of element `idx` of the kernel's `dst`
// (written element-wise, so sub-word words are atomics).
const char *tfr_wgsl_load_dst(const tfr_wgsl_type *t, const char *idx, char *buf, size_t cap);
// The statement storing the value `val` at element `idx` of the kernel's
// `dst` (written element-wise): dst[idx] = val, or common/bytes.wgsl's
// tfr_store_u8 / tfr_store_u16 of its narrowed bits.
const char *tfr_wgsl_store(const tfr_wgsl_type *t, const char *idx, const char *val, char *buf,
                           size_t cap);

#endif  // TENFERRO_SRC_WEBGPU_WGSL_TYPES_H_
