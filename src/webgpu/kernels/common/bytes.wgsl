// One-byte elements (bool) live four to a u32 word, little-endian: element k
// is byte k & 3 of word k >> 2. Invocations writing neighbouring bytes share a
// word, so a store clears and sets its own byte with two atomics; each touches
// only that byte's bits, so the pair needs no lock. Needs the kernel's `dst`
// to be array<atomic<u32>>.

fn tfr_store_u8(k: u32, val: u32) {
  let w = k >> 2u;
  let shift = (k & 3u) * 8u;
  atomicAnd(&dst[w], ~(0xffu << shift));
  atomicOr(&dst[w], (val & 0xffu) << shift);
}
