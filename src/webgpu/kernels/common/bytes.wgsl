// One-byte elements (bool, i8, u8) live four to a u32 word, little-endian:
// element k is byte k & 3 of word k >> 2; two-byte elements (i16, u16, f16,
// bf16) two to a word, element k the half k & 1 of word k >> 1. Invocations writing neighbouring bytes share a
// word, so a store clears and sets its own byte with two atomics; each touches
// only that byte's bits, so the pair needs no lock. Needs the kernel's `dst`
// to be array<atomic<u32>>.

fn tfr_store_u8(k: u32, val: u32) {
  let w = k >> 2u;
  let shift = (k & 3u) * 8u;
  atomicAnd(&dst[w], ~(0xffu << shift));
  atomicOr(&dst[w], (val & 0xffu) << shift);
}

fn tfr_store_u16(k: u32, val: u32) {
  let w = k >> 1u;
  let shift = (k & 1u) * 16u;
  atomicAnd(&dst[w], ~(0xffffu << shift));
  atomicOr(&dst[w], (val & 0xffffu) << shift);
}
