// attention_tiled.cu: the training forward of attention for a tile of BR
// query rows of one head per block. Tiles of BC keys and values are
// loaded into shared memory once and serve every row of the tile, which
// divides the traffic of attention_rows (a block per row) by BR. Row
// softmax is online: a warp per row, shuffles for its max and sum.
#include "attention.cuh"

// Tile is the shared memory of attention_tiled, rows padded to D+1
// values where threads read across rows (no bank conflicts).
struct Tile {
  float *q, *k, *v, *acc, *s, *m, *l, *alpha;
  int ld;  // D + 1
};

DEV Tile tile_layout(float* sm, int D) {
  Tile t;
  t.ld = D + 1;
  t.q = sm;                   // [BR, D+1]
  t.k = t.q + BR * t.ld;      // [BC, D+1]
  t.v = t.k + BC * t.ld;      // [BC, D]
  t.acc = t.v + BC * D;       // [BR, D]
  t.s = t.acc + BR * D;       // [BR, BC+1] scores, then probabilities
  t.m = t.s + BR * (BC + 1);  // [BR] running max
  t.l = t.m + BR;             // [BR] running sum
  t.alpha = t.l + BR;         // [BR] rescaling of acc for this key tile
  return t;
}

// tile_scores writes the scaled scores of the tile's rows r < rows
// (positions t0+r) against keys j0+c, c < nk, −∞ where masked.
DEV void tile_scores(Tile& t, int D, int rows, int t0, int j0, int nk, float scale) {
  for (int e = threadIdx.x; e < BR * BC; e += blockDim.x) {
    int r = e / BC, c = e % BC;
    float x = NEG_INF;
    if (r < rows && c < nk && j0 + c <= t0 + r) {
      float dot = 0.0f;
      for (int d = 0; d < D; d++) dot += t.q[r * t.ld + d] * t.k[c * t.ld + d];
      x = dot * scale;
    }
    t.s[r * (BC + 1) + c] = x;
  }
}

// tile_softmax turns each row's scores into exp(x − m) under its new
// running max m, a warp per row, and updates the row's m, l and alpha.
DEV void tile_softmax(Tile& t) {
  unsigned lane = threadIdx.x % WARP, nw = blockDim.x / WARP;
  for (unsigned r = threadIdx.x / WARP; r < BR; r += nw) {
    float x = lane < BC ? t.s[r * (BC + 1) + lane] : NEG_INF;
    float mold = t.m[r], mnew = fmaxf_(mold, warp_max(x));
    float p = x == NEG_INF ? 0.0f : exp32(x - mnew);
    float sum = warp_sum(p);
    if (lane < BC) t.s[r * (BC + 1) + lane] = p;
    if (lane == 0) {
      float a = mold == NEG_INF ? 0.0f : exp32(mold - mnew);
      t.alpha[r] = a;
      t.l[r] = t.l[r] * a + sum;
      t.m[r] = mnew;
    }
  }
}

// attention_tiled writes rows blockIdx.x·BR … of head blockIdx.y of
// sequence blockIdx.z of o, and their probabilities into saved when not
// null (as attention_rows). Dynamic shared memory: tile_layout's.
KERNEL(attention_tiled)(float* o, float* saved, const float* q, const float* k, const float* v, int T, int H, int K,
                        int D, float scale) {
  DYNAMIC_SHARED(float, sm);
  Tile t = tile_layout(sm, D);
  int t0 = blockIdx.x * BR, h = blockIdx.y, kv = h / (H / K), rows = T - t0 < BR ? T - t0 : BR;
  long long seq = (long long)blockIdx.z * T, HD = (long long)H * D, KD = (long long)K * D;
  for (int i = threadIdx.x; i < BR * D; i += blockDim.x) {
    int r = i / D, d = i % D;
    t.q[r * t.ld + d] = r < rows ? q[(seq + t0 + r) * HD + h * D + d] : 0.0f;
    t.acc[i] = 0.0f;
  }
  if (threadIdx.x < BR) t.m[threadIdx.x] = NEG_INF, t.l[threadIdx.x] = 0.0f;
  for (int j0 = 0; j0 < t0 + rows; j0 += BC) {
    int nk = t0 + rows - j0 < BC ? t0 + rows - j0 : BC;
    __syncthreads();  // the previous tile is used up
    for (int i = threadIdx.x; i < BC * D; i += blockDim.x) {
      int c = i / D, d = i % D;
      long long at = (seq + j0 + c) * KD + kv * D + d;
      t.k[c * t.ld + d] = c < nk ? k[at] : 0.0f;
      t.v[i] = c < nk ? v[at] : 0.0f;
    }
    __syncthreads();
    tile_scores(t, D, rows, t0, j0, nk, scale);
    __syncthreads();
    tile_softmax(t);
    __syncthreads();
    for (int i = threadIdx.x; i < BR * D; i += blockDim.x) {
      int r = i / D, d = i % D;
      float a = t.acc[i] * t.alpha[r];
      for (int c = 0; c < nk; c++) a += t.s[r * (BC + 1) + c] * t.v[c * D + d];
      t.acc[i] = a;
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < rows * D; i += blockDim.x)
    o[(seq + t0 + i / D) * HD + h * D + i % D] = t.acc[i] / t.l[i / D];
  if (!saved) return;
  const float* kb = k + seq * KD + kv * D;
  float* p = saved + (((long long)blockIdx.z * H + h) * T + t0) * T;
  for (long long e = threadIdx.x; e < (long long)rows * T; e += blockDim.x) {
    int r = (int)(e / T), j = (int)(e % T);
    float x = 0.0f;
    if (j <= t0 + r) {
      for (int d = 0; d < D; d++) x += t.q[r * t.ld + d] * kb[j * KD + d];
      x = exp32(x * scale - t.m[r]) / t.l[r];
    }
    p[e] = x;
  }
}
REGISTER(attention_tiled)
