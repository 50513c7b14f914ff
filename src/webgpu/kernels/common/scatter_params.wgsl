// The parameters shared by scatter_direct.wgsl, scatter_keys.wgsl,
// scatter_starts.wgsl, scatter_apply.wgsl and scatter_apply_tiled.wgsl
// (src/webgpu/gather_scatter.c, gs_scatter_params).
struct Params {
  count: u32,       // invocations of this dispatch
  first: u32,       // linear invocation index of its first one
  nbatch: u32,      // merged batch axes, >= 1
  nwin: u32,        // merged window axes, >= 1
  nstart: u32,      // start components
  flags: u32,       // bit 0: clamp starts; bit 1: one sort unit per window element
  win_numel: u32,   // elements of one window
  n_units: u32,     // sort units (keys and values)
  dst_offset: u32,  // element offsets inside the bound windows
  upd_offset: u32,
  ind_offset: u32,
  vstride: u32,     // index-tensor stride between start components
  skip: u32,        // the key of a skipped unit: the result's element count / key_scale
  start_base: u32,  // metadata word of the first start component
  napply: u32,      // scatter_apply: invocations per unit
  key_scale: u32,   // ordered: a key is the result offset / key_scale
  opnd_offset: u32, // scatter_apply_tiled: element offset of the operand's window
  pad0: u32,
  pad1: u32,
  pad2: u32,
  words: array<vec4<u32>, 12>,
}

@group(0) @binding(0) var<uniform> P: Params;
