// attention_back.cu: the gradients of attention, one row per block (the
// tiled kernels of attention_back_tiled.cu do the same with tiles). With P the
// probabilities, dP = dO·Vᵀ, delta_t = rowdot(dO_t, O_t) and
// dS = P ⊙ (dP − delta)·scale: dQ = dS·K, dK = dSᵀ·Q, dV = Pᵀ·dO, dK and
// dV summed over the query heads of their key/value head.
//
// attention_back_q runs first, a block per (query row, head): it writes
// dQ and, per query row and head, stats = (log-sum-exp, delta).
// attention_back_kv then runs a block per (key row, key/value head) and
// sums its query heads and rows with P from saved or from the stats, in a
// fixed order, so results repeat bit for bit without atomics.
#include "attention.cuh"

// row_stats returns log Σ_j exp(s_j) of the scores s_j = scale·qs·k_j of
// keys j < nkeys (k_j = kb + j·ld), with an online max over chunks.
DEV float row_stats(const float* qs, const float* kb, long long ld, int D, int nkeys, float scale, float* sc,
                    float* red) {
  float m = NEG_INF, l = 0.0f;
  for (int j0 = 0; j0 < nkeys; j0 += blockDim.x) {
    int n = nkeys - j0 < (int)blockDim.x ? nkeys - j0 : (int)blockDim.x;
    chunk_dots(sc, qs, kb + j0 * ld, ld, D, n, scale);
    __syncthreads();
    bool mine = (int)threadIdx.x < n;
    float mnew = fmaxf_(m, block_max(mine ? sc[threadIdx.x] : NEG_INF, red));
    l = l * exp32(m - mnew) + block_sum(mine ? exp32(sc[threadIdx.x] - mnew) : 0.0f, red);
    m = mnew;
  }
  return m + log_approx(l);
}

// attention_back_q writes dq for row t = blockIdx.x, head h = blockIdx.y
// of sequence blockIdx.z, and stats[2·(row·H + h)] = (lse, delta); p is
// the saved probabilities or null. Dynamic shared memory: 3·D +
// 2·blockDim + 32 floats.
KERNEL(attention_back_q)(float* dq, float* stats, const float* q, const float* k, const float* v, const float* o,
                         const float* saved, const float* dout, int T, int H, int K, int D, float scale) {
  DYNAMIC_SHARED(float, sm);
  float *qs = sm, *dos = sm + D, *acc = sm + 2 * D, *sc = sm + 3 * D, *dp = sc + blockDim.x, *red = dp + blockDim.x;
  int t = blockIdx.x, h = blockIdx.y, kv = h / (H / K);
  long long row = (long long)blockIdx.z * T + t, HD = (long long)H * D, KD = (long long)K * D;
  const float* kb = k + (long long)blockIdx.z * T * KD + kv * D;
  const float* vb = v + (long long)blockIdx.z * T * KD + kv * D;
  const float* p = saved ? saved + (((long long)blockIdx.z * H + h) * T + t) * T : nullptr;
  load(qs, q + row * HD + h * D, D);
  load(dos, dout + row * HD + h * D, D);
  float delta = 0.0f;
  for (int d = threadIdx.x; d < D; d += blockDim.x) {
    delta += dos[d] * o[row * HD + h * D + d];
    acc[d] = 0.0f;
  }
  delta = block_sum(delta, red);
  float lse = p ? 0.0f : row_stats(qs, kb, KD, D, t + 1, scale, sc, red);
  for (int j0 = 0; j0 <= t; j0 += blockDim.x) {
    int n = t + 1 - j0 < (int)blockDim.x ? t + 1 - j0 : (int)blockDim.x;
    if (!p) chunk_dots(sc, qs, kb + j0 * KD, KD, D, n, scale);
    chunk_dots(dp, dos, vb + j0 * KD, KD, D, n, 1.0f);
    __syncthreads();
    if ((int)threadIdx.x < n) {
      float pj = p ? p[j0 + threadIdx.x] : exp32(sc[threadIdx.x] - lse);
      sc[threadIdx.x] = pj * (dp[threadIdx.x] - delta) * scale;
    }
    __syncthreads();
    for (int d = threadIdx.x; d < D; d += blockDim.x) {
      float a = acc[d];
      for (int i = 0; i < n; i++) a += sc[i] * kb[(j0 + i) * KD + d];
      acc[d] = a;
    }
    __syncthreads();
  }
  for (int d = threadIdx.x; d < D; d += blockDim.x) dq[row * HD + h * D + d] = acc[d];
  if (threadIdx.x == 0) {
    stats[2 * (row * H + h)] = lse;
    stats[2 * (row * H + h) + 1] = delta;
  }
}
REGISTER(attention_back_q)

// attention_back_kv writes dk and dv for key row j = blockIdx.x, key/value
// head blockIdx.y of sequence blockIdx.z: warp w takes the (query head,
// query row t ≥ j) pairs w, w+nw, … and sums into its own shared row;
// the warps' rows are added in order at the end. Dynamic shared memory:
// 2·D + 2·(blockDim/32)·D floats.
KERNEL(attention_back_kv)(float* dk, float* dv, const float* q, const float* k, const float* v, const float* saved,
                          const float* dout, const float* stats, int T, int H, int K, int D, float scale) {
  DYNAMIC_SHARED(float, sm);
  unsigned lane = threadIdx.x % WARP, w = threadIdx.x / WARP, nw = blockDim.x / WARP;
  float *ks = sm, *vs = sm + D, *pk = sm + 2 * D, *pv = pk + nw * D;
  int j = blockIdx.x, kv = blockIdx.y, G = H / K, rows = T - j;
  long long seq = (long long)blockIdx.z * T, HD = (long long)H * D, KD = (long long)K * D;
  long long at = (seq + j) * KD + kv * D;
  load(ks, k + at, D);
  load(vs, v + at, D);
  for (int d = lane; d < D; d += WARP) pk[w * D + d] = pv[w * D + d] = 0.0f;
  for (int u = w; u < G * rows; u += nw) {
    int h = kv * G + u / rows;
    long long t = j + u % rows, qr = (seq + t) * HD + h * D;
    float s = 0.0f, dp = 0.0f;
    for (int d = lane; d < D; d += WARP) {
      s += q[qr + d] * ks[d];
      dp += dout[qr + d] * vs[d];
    }
    s = warp_sum(s);
    dp = warp_sum(dp);
    const float* st = stats + 2 * ((seq + t) * H + h);
    float P = saved ? saved[(((long long)blockIdx.z * H + h) * T + t) * T + j] : exp32(s * scale - st[0]);
    float ds = P * (dp - st[1]) * scale;
    for (int d = lane; d < D; d += WARP) {
      pk[w * D + d] += ds * q[qr + d];
      pv[w * D + d] += P * dout[qr + d];
    }
  }
  __syncthreads();
  for (int d = threadIdx.x; d < D; d += blockDim.x) {
    float a = 0.0f, b = 0.0f;
    for (unsigned i = 0; i < nw; i++) {
      a += pk[i * D + d];
      b += pv[i * D + d];
    }
    dk[at + d] = a;
    dv[at + d] = b;
  }
}
REGISTER(attention_back_kv)
