// attention_back_tiled.cu: the gradients of attention (see
// attention_back.cu for the formulas) with tiles of BR query rows and BC
// keys in shared memory, as attention_tiled computes the forward:
// attention_back_q_tiled writes dQ and the stats (lse, delta) of a query
// tile, then attention_back_kv_tiled sums dK and dV of a key tile over
// the query tiles and heads of its group, in registers, in a fixed order.
#include "attention.cuh"

#define KV_REGS 24  // dK and dV values per thread: BC·D ≤ KV_REGS·blockDim

// tile_dots writes out[r·(BC+1)+c] = scale·a_r·b_c (rows of a at stride
// lda, of b at stride ldb) where r < ra, c < cb and key j0+c ≤ query
// t0+r; masked elsewhere.
DEV void tile_dots(float* out, const float* a, int lda, const float* b, int ldb, int D, int ra, int cb, int t0,
                   int j0, float scale, float masked) {
  for (int e = threadIdx.x; e < BR * BC; e += blockDim.x) {
    int r = e / BC, c = e % BC;
    float x = masked;
    if (r < ra && c < cb && j0 + c <= t0 + r) {
      float dot = 0.0f;
      for (int d = 0; d < D; d++) dot += a[r * lda + d] * b[c * ldb + d];
      x = dot * scale;
    }
    out[r * (BC + 1) + c] = x;
  }
}

// load_rows copies rows r < rows of x (stride ldx) into the shared tile s
// (stride lds, n rows of D values), zeros below.
DEV void load_rows(float* s, int lds, const float* x, long long ldx, int D, int rows, int n) {
  for (int i = threadIdx.x; i < n * D; i += blockDim.x) {
    int r = i / D, d = i % D;
    s[r * lds + d] = r < rows ? x[r * ldx + d] : 0.0f;
  }
}

// tile_grads turns the scores s and dp = dO·Vᵀ of a tile into dS (in s)
// and P (in dp): P from saved (rows of stride T from the tile's first
// element) or exp(s − lse); both zero where masked, whatever the stats
// of rows past the end hold.
DEV void tile_grads(float* s, float* dp, const float* lse, const float* delta, const float* saved, int T, int ra,
                    int cb, int t0, int j0, float scale) {
  for (int e = threadIdx.x; e < BR * BC; e += blockDim.x) {
    int r = e / BC, c = e % BC, at = r * (BC + 1) + c;
    float p = 0.0f, ds = 0.0f;
    if (r < ra && c < cb && j0 + c <= t0 + r) {
      p = saved ? saved[(long long)r * T + c] : exp32(s[at] - lse[r]);
      ds = p * (dp[at] - delta[r]) * scale;
    }
    s[at] = ds;
    dp[at] = p;
  }
}

// tile_lse writes lse[r] = log Σ_j exp(scale·q_r·k_j) over the keys
// j ≤ t0+r of kb (stride ld), loading tiles of keys into k.
DEV void tile_lse(float* lse, float* m, float* l, float* s, float* k, const float* q, int ldq, const float* kb,
                  long long ld, int D, int rows, int t0, float scale) {
  unsigned lane = threadIdx.x % WARP, nw = blockDim.x / WARP;
  if (threadIdx.x < BR) m[threadIdx.x] = NEG_INF, l[threadIdx.x] = 0.0f;
  for (int j0 = 0; j0 < t0 + rows; j0 += BC) {
    int nk = t0 + rows - j0 < BC ? t0 + rows - j0 : BC;
    __syncthreads();
    load_rows(k, D + 1, kb + j0 * ld, ld, D, nk, BC);
    __syncthreads();
    tile_dots(s, q, ldq, k, D + 1, D, rows, nk, t0, j0, scale, NEG_INF);
    __syncthreads();
    for (unsigned r = threadIdx.x / WARP; r < BR; r += nw) {
      float x = lane < BC ? s[r * (BC + 1) + lane] : NEG_INF;
      float mnew = fmaxf_(m[r], warp_max(x));
      float sum = warp_sum(x == NEG_INF ? 0.0f : exp32(x - mnew));
      if (lane == 0 && mnew != NEG_INF) l[r] = l[r] * exp32(m[r] - mnew) + sum, m[r] = mnew;
    }
  }
  __syncthreads();
  if (threadIdx.x < BR) lse[threadIdx.x] = m[threadIdx.x] + log_approx(l[threadIdx.x]);
}

// attention_back_q_tiled writes dq of query rows blockIdx.x·BR … of head
// blockIdx.y of sequence blockIdx.z, and their stats. Dynamic shared
// memory: 4·BR·(D+1) + BR·D + 2·BR·(BC+1) + 4·BR floats.
KERNEL(attention_back_q_tiled)(float* dq, float* stats, const float* q, const float* k, const float* v, const float* o,
                               const float* saved, const float* dout, int T, int H, int K, int D, float scale) {
  DYNAMIC_SHARED(float, sm);
  int ld = D + 1, t0 = blockIdx.x * BR, h = blockIdx.y, kv = h / (H / K), rows = T - t0 < BR ? T - t0 : BR;
  float *qs = sm, *dos = qs + BR * ld, *ks = dos + BR * ld, *vs = ks + BC * ld, *s = vs + BC * ld;
  float *dp = s + BR * (BC + 1), *acc = dp + BR * (BC + 1), *lse = acc + BR * D, *delta = lse + BR;
  float *m = delta + BR, *l = m + BR;
  long long seq = (long long)blockIdx.z * T, HD = (long long)H * D, KD = (long long)K * D;
  const float *kb = k + seq * KD + kv * D, *vb = v + seq * KD + kv * D, *ob = o + (seq + t0) * HD + h * D;
  const float* pb = saved ? saved + (((long long)blockIdx.z * H + h) * T + t0) * T : nullptr;
  load_rows(qs, ld, q + (seq + t0) * HD + h * D, HD, D, rows, BR);
  load_rows(dos, ld, dout + (seq + t0) * HD + h * D, HD, D, rows, BR);
  for (int i = threadIdx.x; i < BR * D; i += blockDim.x) acc[i] = 0.0f;
  __syncthreads();
  unsigned lane = threadIdx.x % WARP, nw = blockDim.x / WARP;
  for (unsigned r = threadIdx.x / WARP; r < BR; r += nw) {
    float x = 0.0f;
    for (int d = lane; d < D && (int)r < rows; d += WARP) x += dos[r * ld + d] * ob[r * HD + d];
    x = warp_sum(x);
    if (lane == 0) delta[r] = x;
  }
  if (!pb) tile_lse(lse, m, l, s, ks, qs, ld, kb, KD, D, rows, t0, scale);
  for (int j0 = 0; j0 < t0 + rows; j0 += BC) {
    int nk = t0 + rows - j0 < BC ? t0 + rows - j0 : BC;
    __syncthreads();
    load_rows(ks, ld, kb + j0 * KD, KD, D, nk, BC);
    load_rows(vs, ld, vb + j0 * KD, KD, D, nk, BC);
    __syncthreads();
    if (!pb) tile_dots(s, qs, ld, ks, ld, D, rows, nk, t0, j0, scale, NEG_INF);
    tile_dots(dp, dos, ld, vs, ld, D, rows, nk, t0, j0, 1.0f, 0.0f);
    __syncthreads();
    tile_grads(s, dp, lse, delta, pb ? pb + j0 : nullptr, T, rows, nk, t0, j0, scale);
    __syncthreads();
    for (int i = threadIdx.x; i < BR * D; i += blockDim.x) {
      int r = i / D, d = i % D;
      float a = acc[i];
      for (int c = 0; c < nk; c++) a += s[r * (BC + 1) + c] * ks[c * ld + d];
      acc[i] = a;
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < rows * D; i += blockDim.x) dq[(seq + t0 + i / D) * HD + h * D + i % D] = acc[i];
  if ((int)threadIdx.x < rows) {
    long long at = 2 * ((seq + t0 + threadIdx.x) * H + h);
    stats[at] = pb ? 0.0f : lse[threadIdx.x];
    stats[at + 1] = delta[threadIdx.x];
  }
}
REGISTER(attention_back_q_tiled)

// kv_accumulate adds to the thread's registers ak and av its elements
// i = threadIdx.x + n·blockDim.x of dK [BC, D] += dSᵀ·Q and dV += Pᵀ·dO
// for one query tile (ds and p [BR, BC+1], q and dO [BR, D]).
DEV void kv_accumulate(float* ak, float* av, const float* ds, const float* p, const float* qs, const float* dos,
                       int D) {
#pragma unroll
  for (int n = 0; n < KV_REGS; n++) {
    int i = threadIdx.x + n * blockDim.x, c = i / D, d = i % D;
    if (i < BC * D) {
      float a = 0.0f, b = 0.0f;
      for (int r = 0; r < BR; r++) {
        a += ds[r * (BC + 1) + c] * qs[r * D + d];
        b += p[r * (BC + 1) + c] * dos[r * D + d];
      }
      ak[n] += a;
      av[n] += b;
    }
  }
}

// attention_back_kv_tiled writes dk and dv of keys blockIdx.x·BC … of
// key/value head blockIdx.y of sequence blockIdx.z: the query heads of
// the group in order, and for each the query tiles from the key tile's
// own on. Dynamic shared memory: 2·BC·(D+1) + 2·BR·D + 2·BR·(BC+1) +
// 2·BR floats; BC·D ≤ KV_REGS·blockDim.
KERNEL(attention_back_kv_tiled)(float* dk, float* dv, const float* q, const float* k, const float* v,
                                const float* saved, const float* dout, const float* stats, int T, int H, int K, int D,
                                float scale) {
  DYNAMIC_SHARED(float, sm);
  int ld = D + 1, j0 = blockIdx.x * BC, kv = blockIdx.y, G = H / K, nk = T - j0 < BC ? T - j0 : BC;
  float *ks = sm, *vs = ks + BC * ld, *qs = vs + BC * ld, *dos = qs + BR * D, *s = dos + BR * D;
  float *dp = s + BR * (BC + 1), *lse = dp + BR * (BC + 1), *delta = lse + BR;
  long long seq = (long long)blockIdx.z * T, HD = (long long)H * D, KD = (long long)K * D;
  load_rows(ks, ld, k + (seq + j0) * KD + kv * D, KD, D, nk, BC);
  load_rows(vs, ld, v + (seq + j0) * KD + kv * D, KD, D, nk, BC);
  float ak[KV_REGS], av[KV_REGS];
#pragma unroll
  for (int n = 0; n < KV_REGS; n++) ak[n] = av[n] = 0.0f;
  for (int h = kv * G; h < (kv + 1) * G; h++) {
    const float* pb = saved ? saved + ((long long)blockIdx.z * H + h) * T * T : nullptr;
    for (int t0 = j0; t0 < T; t0 += BR) {
      int rows = T - t0 < BR ? T - t0 : BR;
      __syncthreads();
      load_rows(qs, D, q + (seq + t0) * HD + h * D, HD, D, rows, BR);
      load_rows(dos, D, dout + (seq + t0) * HD + h * D, HD, D, rows, BR);
      if ((int)threadIdx.x < rows) {
        const float* st = stats + 2 * ((seq + t0 + threadIdx.x) * H + h);
        lse[threadIdx.x] = st[0], delta[threadIdx.x] = st[1];
      }
      __syncthreads();
      if (!pb) tile_dots(s, qs, D, ks, ld, D, rows, nk, t0, j0, scale, NEG_INF);
      tile_dots(dp, dos, D, vs, ld, D, rows, nk, t0, j0, 1.0f, 0.0f);
      __syncthreads();
      tile_grads(s, dp, lse, delta, pb ? pb + (long long)t0 * T + j0 : nullptr, T, rows, nk, t0, j0, scale);
      __syncthreads();
      kv_accumulate(ak, av, s, dp, qs, dos, D);
    }
  }
#pragma unroll
  for (int n = 0; n < KV_REGS; n++) {
    int i = threadIdx.x + n * blockDim.x, c = i / D, d = i % D;
    if (i < nk * D) {
      dk[(seq + j0 + c) * KD + kv * D + d] = ak[n];
      dv[(seq + j0 + c) * KD + kv * D + d] = av[n];
    }
  }
}
REGISTER(attention_back_kv_tiled)
