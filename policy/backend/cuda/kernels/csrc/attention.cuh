// attention.cuh: what the attention kernels share: span descriptors,
// chunked dot products, the online softmax of one query row and loads.
#pragma once
#include "prelude.cuh"

// The tiled kernels take BR query rows per block and BC keys per tile
// (kernels.tileRows in Go).
#define BR 16
#define BC 16

// SpanDesc is one span of attend_cached (kernels.PackSpans writes it):
// its caches and rows N from Row on at positions P0 … P0+N−1.
struct SpanDesc {
  const float* k;
  const float* v;
  int row, n, p0, pad;
};

// chunk_dots writes sc[i] = scale·(a·x_i) for the n rows x_i = x + i·ld
// (D values each), a warp per row; a is in shared memory.
DEV void chunk_dots(float* sc, const float* a, const float* x, long long ld, int D, int n, float scale) {
  unsigned lane = threadIdx.x % WARP, nw = blockDim.x / WARP;
  for (int i = threadIdx.x / WARP; i < n; i += nw) {
    const float* xi = x + i * ld;
    float s = 0.0f;
    for (int d = lane; d < D; d += WARP) s += a[d] * xi[d];
    s = warp_sum(s);
    if (lane == 0) sc[i] = s * scale;
  }
}

// Row is the online softmax state of one query row: max m, sum l.
struct Row {
  float m, l;
};

// attend_row computes acc [D] (shared) = Σ_j exp(s_j − m)·v_j and its
// Row for the scores s_j = scale·qs·k_j of keys j < nkeys, where k_j =
// kb + j·ld and v_j = vb + j·ld; qs is the query in shared memory, sc
// and red are shared scratch of blockDim and 32 floats.
DEV Row attend_row(float* acc, const float* qs, const float* kb, const float* vb, long long ld, int D, int nkeys,
                   float scale, float* sc, float* red) {
  Row st{NEG_INF, 0.0f};
  for (int d = threadIdx.x; d < D; d += blockDim.x) acc[d] = 0.0f;
  for (int j0 = 0; j0 < nkeys; j0 += blockDim.x) {
    int n = nkeys - j0 < (int)blockDim.x ? nkeys - j0 : (int)blockDim.x;
    chunk_dots(sc, qs, kb + j0 * ld, ld, D, n, scale);
    __syncthreads();
    bool mine = (int)threadIdx.x < n;
    float mnew = fmaxf_(st.m, block_max(mine ? sc[threadIdx.x] : NEG_INF, red));
    float p = mine ? exp32(sc[threadIdx.x] - mnew) : 0.0f;
    float alpha = exp32(st.m - mnew);
    st.l = st.l * alpha + block_sum(p, red);
    st.m = mnew;
    if (mine) sc[threadIdx.x] = p;
    __syncthreads();
    for (int d = threadIdx.x; d < D; d += blockDim.x) {
      float a = acc[d] * alpha;
      for (int i = 0; i < n; i++) a += sc[i] * vb[(j0 + i) * ld + d];
      acc[d] = a;
    }
    __syncthreads();
  }
  return st;
}

// load copies n values of x into shared s and waits for the block.
DEV void load(float* s, const float* x, int n) {
  for (int d = threadIdx.x; d < n; d += blockDim.x) s[d] = x[d];
  __syncthreads();
}
