// attend_cached.cu: decoding attention, a block per (row of a span,
// key/value head): the G = H/K query heads that share the key/value head
// go together, so each cached key and value is read once for all of them
// (decoding is bound by reading the caches). Keys go in chunks of
// blockDim with an online softmax per head, as in attention.cu.
#include "attention.cuh"

#define MAX_GROUP 8  // query heads per key/value head that attend_cached takes

// Group is the shared memory of attend_cached.
struct Group {
  float *q, *acc, *sc, *m, *l, *alpha;  // [G, D], [G, D], [G, blockDim], [G] ×3
};

DEV Group group_layout(float* sm, int G, int D) {
  Group g;
  g.q = sm;
  g.acc = g.q + G * D;
  g.sc = g.acc + G * D;
  g.m = g.sc + G * blockDim.x;
  g.l = g.m + G;
  g.alpha = g.l + G;
  return g;
}

// group_scores writes sc[g·blockDim + i] = scale·q_g·k_i for the n keys
// k_i = kb + i·ld and the G heads, a warp per key: each lane reads its
// values of the key once and multiplies them into every head's sum.
DEV void group_scores(Group& s, const float* kb, long long ld, int G, int D, int n, float scale) {
  unsigned lane = threadIdx.x % WARP, nw = blockDim.x / WARP;
  for (int i = threadIdx.x / WARP; i < n; i += nw) {
    const float* kr = kb + i * ld;
    float part[MAX_GROUP];
#pragma unroll
    for (int g = 0; g < MAX_GROUP; g++) part[g] = 0.0f;
    for (int d = lane; d < D; d += WARP) {
      float kd = kr[d];
#pragma unroll
      for (int g = 0; g < MAX_GROUP; g++)
        if (g < G) part[g] += s.q[g * D + d] * kd;
    }
#pragma unroll
    for (int g = 0; g < MAX_GROUP; g++) {
      if (g >= G) break;
      float x = warp_sum(part[g]);
      if (lane == 0) s.sc[g * blockDim.x + i] = x * scale;
    }
  }
}

// group_softmax turns each head's n scores into exp(x − m) under its new
// running max, a warp per head, and updates the head's m, l and alpha.
DEV void group_softmax(Group& s, int G, int n) {
  unsigned lane = threadIdx.x % WARP, nw = blockDim.x / WARP;
  for (int g = threadIdx.x / WARP; g < G; g += nw) {
    float* sc = s.sc + g * blockDim.x;
    float mx = NEG_INF;
    for (int c = lane; c < n; c += WARP) mx = fmaxf_(mx, sc[c]);
    float mold = s.m[g], mnew = fmaxf_(mold, warp_max(mx)), sum = 0.0f;
    for (int c = lane; c < n; c += WARP) {
      float p = exp32(sc[c] - mnew);
      sc[c] = p;
      sum += p;
    }
    sum = warp_sum(sum);
    if (lane == 0) {
      float a = mold == NEG_INF ? 0.0f : exp32(mold - mnew);
      s.alpha[g] = a;
      s.l[g] = s.l[g] * a + sum;
      s.m[g] = mnew;
    }
  }
}

// attend_cached writes row blockIdx.x of span blockIdx.z for the query
// heads of key/value head blockIdx.y: the row at position p0+t attends
// over keys 0 … p0+t of its span's caches. Dynamic shared memory:
// G·(2·D + blockDim + 3) floats; G ≤ MAX_GROUP.
KERNEL(attend_cached)(float* o, const float* q, const SpanDesc* spans, int H, int K, int D, float scale) {
  DYNAMIC_SHARED(float, sm);
  SpanDesc sp = spans[blockIdx.z];
  int t = blockIdx.x, kv = blockIdx.y, G = H / K, nkeys = sp.p0 + t + 1;
  if (t >= sp.n) return;
  Group s = group_layout(sm, G, D);
  long long row = (long long)sp.row + t, HD = (long long)H * D, KD = (long long)K * D;
  const float *qb = q + row * HD + kv * G * D, *kb = sp.k + kv * D, *vb = sp.v + kv * D;
  for (int i = threadIdx.x; i < G * D; i += blockDim.x) s.q[i] = qb[i], s.acc[i] = 0.0f;
  if ((int)threadIdx.x < G) s.m[threadIdx.x] = NEG_INF, s.l[threadIdx.x] = 0.0f;
  for (int j0 = 0; j0 < nkeys; j0 += blockDim.x) {
    int n = nkeys - j0 < (int)blockDim.x ? nkeys - j0 : (int)blockDim.x;
    __syncthreads();
    group_scores(s, kb + j0 * KD, KD, G, D, n, scale);
    __syncthreads();
    group_softmax(s, G, n);
    __syncthreads();
    for (int i = threadIdx.x; i < G * D; i += blockDim.x) {
      int g = i / D, d = i % D;
      const float* sc = s.sc + g * blockDim.x;
      float a = s.acc[i] * s.alpha[g];
      for (int c = 0; c < n; c++) a += sc[c] * vb[(j0 + c) * KD + d];
      s.acc[i] = a;
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < G * D; i += blockDim.x) o[row * HD + kv * G * D + i] = s.acc[i] / s.l[i / D];
}
REGISTER(attend_cached)
