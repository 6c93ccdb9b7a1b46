// attention.cu: causal grouped-query attention, one query row and head
// per block: attention_rows (training) and attend_cached_rows (decoding),
// which Attention and AttendCached use where the tiled and grouped
// kernels do not fit (large head dims, groups of more than 8 heads).
// Training sequences are blocks of T rows: q [N, H·D], k and v [N, K·D];
// query head h reads key/value head h/(H/K). Decoding attends each span's
// rows over the sequence's cache [P, K·D]. A block runs an online softmax
// over chunks of blockDim keys: a warp per key for the scores (lanes over
// the head dim, then a shuffle sum), a thread per head dim for the
// weighted sum of values. No kernel uses atomics.
#include "attention.cuh"

// attention_rows writes row t = blockIdx.x, head h = blockIdx.y of sequence
// blockIdx.z of o, and when saved is not null its probabilities into
// saved [N/T, H, T, T] (row t: t+1 probabilities, then zeros). Dynamic
// shared memory: 2·D + blockDim + 32 floats.
KERNEL(attention_rows)(float* o, float* saved, const float* q, const float* k, const float* v, int T, int H, int K,
                  int D, float scale) {
  DYNAMIC_SHARED(float, sm);
  float *qs = sm, *acc = sm + D, *sc = sm + 2 * D, *red = sc + blockDim.x;
  int t = blockIdx.x, h = blockIdx.y, kv = h / (H / K);
  long long row = (long long)blockIdx.z * T + t, HD = (long long)H * D, KD = (long long)K * D;
  const float* kb = k + (long long)blockIdx.z * T * KD + kv * D;
  const float* vb = v + (long long)blockIdx.z * T * KD + kv * D;
  load(qs, q + row * HD + h * D, D);
  Row st = attend_row(acc, qs, kb, vb, KD, D, t + 1, scale, sc, red);
  for (int d = threadIdx.x; d < D; d += blockDim.x) o[row * HD + h * D + d] = acc[d] / st.l;
  if (!saved) return;
  float* p = saved + (((long long)blockIdx.z * H + h) * T + t) * T;
  for (int j = threadIdx.x; j < T; j += blockDim.x) {
    float s = 0.0f;
    if (j <= t) {
      for (int d = 0; d < D; d++) s += qs[d] * kb[j * KD + d];
      s = exp32(s * scale - st.m) / st.l;
    }
    p[j] = s;
  }
}
REGISTER(attention_rows)

// attend_cached_rows writes row blockIdx.x of span blockIdx.z, head blockIdx.y,
// of o: the row at position p0+t attends over keys 0 … p0+t of its
// span's caches. Dynamic shared memory: 2·D + blockDim + 32 floats.
KERNEL(attend_cached_rows)(float* o, const float* q, const SpanDesc* spans, int H, int K, int D, float scale) {
  DYNAMIC_SHARED(float, sm);
  float *qs = sm, *acc = sm + D, *sc = sm + 2 * D, *red = sc + blockDim.x;
  SpanDesc sp = spans[blockIdx.z];
  int t = blockIdx.x, h = blockIdx.y, kv = h / (H / K);
  if (t >= sp.n) return;
  long long row = (long long)sp.row + t, HD = (long long)H * D, KD = (long long)K * D;
  load(qs, q + row * HD + h * D, D);
  Row st = attend_row(acc, qs, sp.k + kv * D, sp.v + kv * D, KD, D, sp.p0 + t + 1, scale, sc, red);
  for (int d = threadIdx.x; d < D; d += blockDim.x) o[row * HD + h * D + d] = acc[d] / st.l;
}
REGISTER(attend_cached_rows)
