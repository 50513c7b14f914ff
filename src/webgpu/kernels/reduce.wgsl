// StableHLO `reduce` with a one-op body over any set of axes of a strided
// view, or one pass of it (src/webgpu/reduce.c plans the passes).
//
// The outputs (kept indices) and the reduced range [0, m) of each are split
// into tasks: task = (output o, segment s), segment s covering the units
// [s * seg_units, (s + 1) * seg_units) of o's reduced range. A unit is NV
// consecutive elements (NV = 4 or 2 with 16-byte loads of a contiguous
// reduced axis, else 1). TPO invocations (a power of two dividing WG) work on
// one task: invocation `lt` takes the units lt, lt + TPO, lt + 2 TPO, ... (at
// most EPT of them) in order. Rows layout (LANES false): the TPO invocations
// of a task are neighbours, so they read consecutive units (coalesced).
// Lanes layout (LANES true, the kept axes innermost): the workgroup is
// TPO rows of WG / TPO invocations; row `lt` of the workgroup takes share
// `lt` of WG / TPO neighbouring tasks, so neighbouring invocations read
// neighbouring outputs (coalesced), and the workgroup covers TPO times the
// units of one invocation before the tree.
//
// No identity element is used: each invocation seeds its accumulators with
// its first unit, and the tree over the TPO invocations only combines those
// that had one (a prefix). The tree is fixed: it depends on the shape, never
// on timing, so results are reproducible bit for bit. Float sums get an error
// bound O(EPT + log2 TPO) per pass instead of O(m); reduce.c bounds EPT and
// chains passes through partial results, so the total stays O(log m).
//
// A pass writes each task's result at dst_offset + kept offsets + s *
// seg_stride: the combined value (init_mode 2, a partial result) or
// init (op) value (init_mode 0: init from init_bits; 1: from `initv`). An
// empty range (m = 0) stores the init value alone.
//
// Index arithmetic is u32 and wraps, as in copy_strided.wgsl. Placeholders:
//   VALUE_T     accumulator type
//   NV          elements per unit (1, 2 or 4)
//   SRC_ARRAY   type of the source array (vec4 elements when NV > 1)
//   LOAD        expression: element `j` of `src` (any NV)
//   LOADV       statements returning array<V, NV>: unit `q` of `src`
//   INIT_ARRAY  type of the init array
//   LOAD_INIT   expression: element `j` of `initv`
//   INIT_BITS   expression: the init value from P.init_bits
//   OP          statements returning op(a, b)
//   DST_ARRAY   type of the destination array
//   STORE       statement storing `val` at destination index `k`
override WG: u32 = 256u;
// Units per invocation and segment (a constant, so that the loop over a full
// segment unrolls and its loads are all in flight at once).
override EPT: u32 = 16u;
// The NV lanes of a unit are NV neighbouring outputs along kept axis 0
// (lanes layout with a contiguous kept axis: TPO = 1, kshape[0] counts
// groups of NV outputs, every stride is a multiple of NV, and lane e of
// output group o is stored at k + e * lane_stride) instead of NV elements of
// one reduction.
override SPLIT: bool = false;
// The lanes layout (see above) instead of the rows layout.
override LANES: bool = false;
alias V = {{VALUE_T}};
const NV: u32 = {{NV}}u;

struct Params {
  nout: u32,        // outputs (kept index space), >= 1
  nseg: u32,        // segments per output, >= 1
  munits: u32,      // units per output (0: an empty reduction)
  seg_units: u32,   // units per segment (TPO * EPT at most)
  tpo: u32,         // invocations per task, a power of two dividing WG
  pad3: u32,
  nk: u32,          // kept axes (0..8); axis 0 varies fastest with o
  nr: u32,          // reduced axes (1..8); axis 0 varies fastest
  src_offset: u32,  // element offsets inside the bound windows
  dst_offset: u32,
  seg_stride: u32,  // destination stride of the segment index
  init_mode: u32,   // 0: init_bits, 1: initv[init_offset], 2: none (partials)
  init_offset: u32,
  lane_stride: u32, // SPLIT: destination stride between the lanes
  pad1: u32,
  pad2: u32,
  init_bits: vec4<u32>,
  kshape: array<vec4<u32>, 2>,
  kin: array<vec4<u32>, 2>,
  kout: array<vec4<u32>, 2>,
  rshape: array<vec4<u32>, 2>,
  rin: array<vec4<u32>, 2>,
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> src: {{SRC_ARRAY}};
@group(0) @binding(2) var<storage, read> initv: {{INIT_ARRAY}};
@group(0) @binding(3) var<storage, read_write> dst: {{DST_ARRAY}};

var<workgroup> partial: array<V, WG>;

fn op(a: V, b: V) -> V {
  {{OP}}
}

fn load(j: u32) -> V {
  return {{LOAD}};
}

fn loadv(q: u32) -> array<V, NV> {
  {{LOADV}}
}

fn init_value() -> V {
  if (P.init_mode == 1u) {
    let j = P.init_offset;
    return {{LOAD_INIT}};
  }
  return {{INIT_BITS}};
}

// Unit index of unit `u` of the task whose first element is at `base`: the
// element offset for NV = 1, the vec4 index for NV > 1 (then either the
// reduced axis is one contiguous axis and `base` a multiple of NV, or SPLIT).
fn unit_index(base: u32, u: u32) -> u32 {
  if (NV > 1u && !SPLIT) {
    return base / NV + u;
  }
  var rem = u;
  var off = base;
  let last = P.nr - 1u;
  for (var d = 0u; d < last; d++) {
    let n = P.rshape[d >> 2u][d & 3u];
    off += (rem % n) * P.rin[d >> 2u][d & 3u];
    rem = rem / n;
  }
  off += rem * P.rin[last >> 2u][last & 3u];
  if (NV > 1u) {
    return off / NV;
  }
  return off;
}

// Stores a task's result: as is (a partial result) or combined with init.
fn store_result(k: u32, r: V, raw: bool) {
  var val = r;
  if (!raw) {
    val = op(init_value(), r);
  }
  {{STORE}};
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let group = wid.x + nwg.x * (wid.y + nwg.y * wid.z);
  let tpo = P.tpo;
  let per = WG / tpo;  // tasks per workgroup
  var task = group * per + lid / tpo;
  var lt = lid % tpo;
  var step = 1u;  // between the invocations of a task in `partial`
  if (LANES) {
    task = group * per + lid % per;
    lt = lid / per;
    step = per;
  }
  let live = task < P.nout * P.nseg;
  let o = task % P.nout;
  let seg = task / P.nout;

  var rem = o;
  var ibase = P.src_offset;
  var k = P.dst_offset + seg * P.seg_stride;
  for (var d = 0u; d < P.nk; d++) {
    let n = P.kshape[d >> 2u][d & 3u];
    let c = rem % n;
    rem = rem / n;
    ibase += c * P.kin[d >> 2u][d & 3u];
    k += c * P.kout[d >> 2u][d & 3u];
  }
  let ulo = seg * P.seg_units;
  let uhi = min(P.munits, ulo + P.seg_units);
  // Invocations of this task that have at least one unit: a prefix.
  var nv = 0u;
  if (live && ulo < uhi) {
    nv = min(tpo, uhi - ulo);
  }

  var acc: array<V, NV>;
  if (lt < nv) {
    let u0 = ulo + lt;
    acc = loadv(unit_index(ibase, u0));
    if (uhi - ulo == tpo * EPT) {  // a full segment: no bounds to check
      for (var i = 1u; i < EPT; i++) {
        let w = loadv(unit_index(ibase, u0 + i * tpo));
        for (var e = 0u; e < NV; e++) {
          acc[e] = op(acc[e], w[e]);
        }
      }
    } else {
      for (var i = 1u; i < EPT; i++) {
        let u = u0 + i * tpo;
        if (u >= uhi) {
          break;
        }
        let w = loadv(unit_index(ibase, u));
        for (var e = 0u; e < NV; e++) {
          acc[e] = op(acc[e], w[e]);
        }
      }
    }
    if (!SPLIT) {  // the NV lanes of one reduction, pairwise
      for (var h = NV / 2u; h > 0u; h = h / 2u) {
        for (var e = 0u; e < h; e++) {
          acc[e] = op(acc[e], acc[e + h]);
        }
      }
    }
  }
  // SPLIT: NV outputs per task, lane e stored at k + e * lane_stride; else
  // one, in lane 0. Each through the tree over the task's invocations:
  // step h folds invocations [h, 2h) into [0, h).
  var nl = 1u;
  if (SPLIT) {
    nl = NV;
  }
  for (var e = 0u; e < nl; e++) {
    if (tpo > 1u && e > 0u) {
      workgroupBarrier();  // the previous lane's tree has read `partial`
    }
    if (lt < nv) {
      partial[lid] = acc[e];
    }
    for (var h = tpo / 2u; h > 0u; h = h / 2u) {
      workgroupBarrier();
      if (lt < h && lt + h < nv) {
        partial[lid] = op(partial[lid], partial[lid + h * step]);
      }
    }
    if (live && lt == 0u) {
      let kk = k + e * P.lane_stride;
      if (nv == 0u) {  // an empty reduced range: the init value alone
        store_result(kk, init_value(), true);
      } else {
        store_result(kk, partial[lid], P.init_mode == 2u);
      }
    }
  }
}
