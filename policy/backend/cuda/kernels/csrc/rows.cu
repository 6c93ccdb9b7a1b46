// rows.cu: kernels that reduce along rows (one block per row: rmsnorm,
// rmsnorm_back_dx, token_logprob, token_logprob_back) or along columns
// (a block of 32×8 threads per 32 columns: col_sum, rmsnorm_back_dw; one
// thread per column: embed_back). Column sums add their rows in a fixed
// order, so every result repeats bit for bit; no kernel uses atomics.
#include "prelude.cuh"

// column_sum returns, in thread (x, 0) of a 32×8 block, the sum over rows
// r < rows of term(r) (terms of the thread's column); part is shared
// scratch of 8×33 floats. The eight partial sums of strided rows are added
// in order.
template <typename Term>
DEV float column_sum(int rows, float* part, Term term) {
  float s = 0.0f;
  for (int r = threadIdx.y; r < rows; r += blockDim.y) s += term(r);
  part[threadIdx.y * 33 + threadIdx.x] = s;
  __syncthreads();
  s = 0.0f;
  if (threadIdx.y == 0)
    for (unsigned y = 0; y < blockDim.y; y++) s += part[y * 33 + threadIdx.x];
  return s;
}

// col_sum writes out [M] = Σ_r x[r] over the rows of x [rows, M].
KERNEL(col_sum)(float* out, const float* x, int rows, int M) {
  SHARED float part[8 * 33];
  int c = blockIdx.x * WARP + threadIdx.x;
  float s = column_sum(rows, part, [&](int r) { return c < M ? x[(long long)r * M + c] : 0.0f; });
  if (threadIdx.y == 0 && c < M) out[c] = s;
}
REGISTER(col_sum)

// embed_back adds the rows of dy [N, C] into the rows ids[r] of dtable
// [V, C], which the caller cleared: one thread per column, rows in order.
KERNEL(embed_back)(float* dtable, const float* ids, const float* dy, int N, int C) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= C) return;
  for (int r = 0; r < N; r++) dtable[(long long)ids[r] * C + c] += dy[(long long)r * C + c];
}
REGISTER(embed_back)

// rms_inv is 1/sqrt(mean(x²) + eps) of the C values of x, in every
// thread of the block.
DEV float rms_inv(const float* x, int C, float eps, float* red) {
  float ss = 0.0f;
  for (int j = threadIdx.x; j < C; j += blockDim.x) ss += x[j] * x[j];
  ss = block_sum(ss, red);
  return 1.0f / sqrt_rn(ss / (float)C + eps);
}

// rmsnorm writes y[r] = x[r]·rms_inv(x[r])⊙w for row r = blockIdx.x of
// x [N, C]; y may equal x (every read of the row precedes the barrier of
// the reduction, and each thread then rewrites what it alone reads).
KERNEL(rmsnorm)(float* y, const float* x, const float* w, int C, float eps) {
  SHARED float red[WARP];
  long long at = (long long)blockIdx.x * C;
  float inv = rms_inv(x + at, C, eps, red);
  for (int j = threadIdx.x; j < C; j += blockDim.x) y[at + j] = x[at + j] * inv * w[j];
}
REGISTER(rmsnorm)

// rmsnorm_back_dx writes, for row r = blockIdx.x, inv[r] = rms_inv(x[r])
// when inv is not null and, when dx is not null,
// dx_j = inv·w_j·dy_j − x_j·inv³/C·Σ_k dy_k·w_k·x_k.
KERNEL(rmsnorm_back_dx)(float* dx, float* inv, const float* x, const float* w, const float* dy, int C, float eps) {
  SHARED float red[WARP];
  long long at = (long long)blockIdx.x * C;
  float r = rms_inv(x + at, C, eps, red);
  if (inv && threadIdx.x == 0) inv[blockIdx.x] = r;
  if (!dx) return;
  float s = 0.0f;
  for (int j = threadIdx.x; j < C; j += blockDim.x) s += dy[at + j] * w[j] * x[at + j];
  s = block_sum(s, red);
  float k = r * r * r * s / (float)C;
  for (int j = threadIdx.x; j < C; j += blockDim.x) dx[at + j] = r * w[j] * dy[at + j] - x[at + j] * k;
}
REGISTER(rmsnorm_back_dx)

// rmsnorm_back_dw writes dw [C] = Σ_r dy[r]⊙x[r]·inv[r].
KERNEL(rmsnorm_back_dw)(float* dw, const float* inv, const float* x, const float* dy, int N, int C) {
  SHARED float part[8 * 33];
  int c = blockIdx.x * WARP + threadIdx.x;
  float s = column_sum(N, part, [&](int r) {
    long long at = (long long)r * C + c;
    return c < C ? dy[at] * x[at] * inv[r] : 0.0f;
  });
  if (threadIdx.y == 0 && c < C) dw[c] = s;
}
REGISTER(rmsnorm_back_dw)

// log_sum_exp is log Σ exp(x) of the V values of x, in every thread.
DEV float log_sum_exp(const float* x, int V, float* red) {
  float mx = NEG_INF;
  for (int j = threadIdx.x; j < V; j += blockDim.x) mx = fmaxf_(mx, x[j]);
  mx = block_max(mx, red);
  float s = 0.0f;
  for (int j = threadIdx.x; j < V; j += blockDim.x) s += exp32(x[j] - mx);
  s = block_sum(s, red);
  return mx + log_approx(s);
}

// token_logprob writes out[r] = logits[r][t] − logsumexp(logits[r]) for
// row r = blockIdx.x and t = targets[r], and saved[r] = the log-sum-exp
// when saved is not null; a negative target gives 0 and saves nothing.
KERNEL(token_logprob)(float* out, float* saved, const float* logits, const float* targets, int V) {
  SHARED float red[WARP];
  int r = blockIdx.x, t = (int)targets[r];
  if (t < 0) {
    if (threadIdx.x == 0) out[r] = 0.0f;
    return;
  }
  const float* row = logits + (long long)r * V;
  float lse = log_sum_exp(row, V, red);
  if (threadIdx.x == 0) {
    out[r] = row[t] - lse;
    if (saved) saved[r] = lse;
  }
}
REGISTER(token_logprob)

// token_logprob_back writes row r = blockIdx.x of dlogits [N, V]:
// dy[r]·(onehot(t) − softmax(logits[r])), zeros when t < 0 or dy[r] = 0,
// with the log-sum-exp from saved when not null.
KERNEL(token_logprob_back)(float* dlogits, const float* logits, const float* targets, const float* saved,
                           const float* dy, int V) {
  SHARED float red[WARP];
  int r = blockIdx.x, t = (int)targets[r];
  float d = dy[r];
  float* o = dlogits + (long long)r * V;
  if (t < 0 || d == 0.0f) {
    for (int j = threadIdx.x; j < V; j += blockDim.x) o[j] = 0.0f;
    return;
  }
  const float* row = logits + (long long)r * V;
  float lse = saved ? saved[r] : log_sum_exp(row, V, red);
  for (int j = threadIdx.x; j < V; j += blockDim.x) {
    float g = -d * exp32(row[j] - lse);
    o[j] = j == t ? g + d : g;
  }
}
REGISTER(token_logprob_back)
