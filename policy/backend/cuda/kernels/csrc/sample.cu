// sample.cu: drawing the next token of each row of logits [N, V] on the
// device, one block per row, as package rollout's sampler draws on the
// host: greedy argmax at temperature 0, else softmax(logits/T) restricted
// to the top-p nucleus and inverted at a uniform number u in index order.
// The caller gives u, one per row (us), drawn on the host from its own
// seeded streams: the device adds no randomness of its own.
#include "prelude.cuh"

// order maps a float's bits to an unsigned that sorts as the float does.
DEV unsigned order(float f) {
  unsigned u = __builtin_bit_cast(unsigned, f);
  return u & 0x80000000u ? ~u : u | 0x80000000u;
}

// block_argmax returns, in every thread, the first index of the largest
// of the V values of x; *bad is set when one is NaN.
DEV int block_argmax(const float* x, int V, float* red, int* redi, bool* bad) {
  float best = NEG_INF, nan = 0.0f;
  int at = 0x7fffffff;
  for (int i = threadIdx.x; i < V; i += blockDim.x) {
    if (x[i] != x[i]) nan = 1.0f;
    if (x[i] > best || at == 0x7fffffff) best = x[i], at = i;
  }
  for (int o = WARP / 2; o > 0; o >>= 1) {
    float b = shfl_xor(best, o);
    int a = shfl_xor_int(at, o);
    if (b > best || (b == best && a < at)) best = b, at = a;
  }
  unsigned lane = threadIdx.x % WARP, w = threadIdx.x / WARP, nw = blockDim.x / WARP;
  if (lane == 0) red[w] = best, redi[w] = at;
  *bad = block_max(nan, red + WARP) > 0.0f;  // its barriers publish red and redi
  best = red[0], at = redi[0];
  for (unsigned i = 1; i < nw; i++)
    if (red[i] > best || (red[i] == best && redi[i] < at)) best = red[i], at = redi[i];
  __syncthreads();
  return at;
}

// kept_mass is Σ w_i over the values x_i with order(x_i) ≥ key, where
// w_i = exp((x_i − m)·inv), in every thread.
DEV float kept_mass(const float* x, int V, float m, float inv, unsigned key, float* red) {
  float s = 0.0f;
  for (int i = threadIdx.x; i < V; i += blockDim.x)
    if (order(x[i]) >= key) s += exp32((x[i] - m) * inv);
  return block_sum(s, red);
}

// nucleus_key returns the largest key such that the values at or above
// it hold at least need of the mass: the nucleus is every value with
// order(x) ≥ key (ties at its lowest member all belong to it).
DEV unsigned nucleus_key(const float* x, int V, float m, float inv, float need, float* red) {
  unsigned lo = 0, hi = order(m);
  while (lo < hi) {
    unsigned mid = lo + (hi - lo + 1) / 2;
    if (kept_mass(x, V, m, inv, mid, red) >= need)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

// exclusive_scan returns the sum of v over the threads before this one,
// and the block's total in *total; red is 32 floats of shared memory.
DEV float exclusive_scan(float v, float* red, float* total) {
  unsigned lane = threadIdx.x % WARP, w = threadIdx.x / WARP, nw = blockDim.x / WARP;
  float x = v;
  for (unsigned o = 1; o < WARP; o <<= 1) {
    float y = shfl_up(x, o);
    if (lane >= o) x += y;
  }
  if (lane == WARP - 1) red[w] = x;
  float before = shfl_up(x, 1);
  __syncthreads();
  float off = 0.0f, all = 0.0f;
  for (unsigned i = 0; i < nw; i++) {
    if (i < w) off += red[i];
    all += red[i];
  }
  __syncthreads();
  *total = all;
  return off + (lane == 0 ? 0.0f : before);
}

// Draw is a token and its log-probabilities (see sample).
struct Draw {
  int tok;
  float mass;  // the nucleus's mass of exp((x − m)·inv)
};

// invert returns the first index, in index order, at which the running
// sum of the weights of the values at or above key passes u times their
// total: each thread sums a contiguous segment, a scan orders the
// segments, and the segment that holds the crossing walks its values.
DEV Draw invert(const float* x, int V, float m, float inv, unsigned key, float u, float* red) {
  int seg = (V + blockDim.x - 1) / blockDim.x, lo = threadIdx.x * seg, hi = lo + seg < V ? lo + seg : V;
  float s = 0.0f;
  int last = -1;
  for (int i = lo; i < hi; i++)
    if (order(x[i]) >= key) {
      float w = exp32((x[i] - m) * inv);
      if (w > 0.0f) s += w, last = i;
    }
  float total, acc = exclusive_scan(s, red, &total), target = u * total;
  int pick = 0x7fffffff;
  if (s > 0.0f && acc + s > target)
    for (int i = lo; i < hi && pick == 0x7fffffff; i++)
      if (order(x[i]) >= key) {
        float w = exp32((x[i] - m) * inv);
        if (w > 0.0f && (acc += w) > target) pick = i;
      }
  // The first crossing in index order wins; none (u·total rounded up to
  // the total) takes the last kept value.
  float first = -block_max(pick == 0x7fffffff ? NEG_INF : -(float)pick, red);
  float lastAll = block_max((float)last, red);
  return Draw{first == -NEG_INF ? (int)lastAll : (int)first, total};
}

// sample writes, for row r = blockIdx.x of logits [N, V], tokens[r] (a
// float32 token id), logprobs[r] = log softmax(logits/T)[token] over the
// whole vocabulary and, when nucleus is not null, nucleus[r] = the
// log-prob under the distribution drawn from (the renormalised nucleus).
// temperature 0 is greedy: the first largest logit, both log-probs
// log softmax(logits)[token]. A row with a NaN, or whose largest logit
// is infinite, gives token −1 and NaN log-probs. us [N] is read at
// temperature > 0 only: row r inverts at us[r], in [0, 1] (1 takes the
// last token of the nucleus).
KERNEL(sample)(float* tokens, float* logprobs, float* nucleus, const float* logits, const float* us, int V,
               float temperature, float top_p) {
  SHARED float red[2 * WARP];
  SHARED int redi[WARP];
  int r = blockIdx.x;
  const float* x = logits + (long long)r * V;
  bool bad;
  int top = block_argmax(x, V, red, redi, &bad);
  float m = x[top];
  if (bad || m - m != 0.0f) {
    if (threadIdx.x == 0) {
      tokens[r] = -1.0f;
      logprobs[r] = bits_float(0x7fc00000u);
      if (nucleus) nucleus[r] = bits_float(0x7fc00000u);
    }
    return;
  }
  float inv = temperature > 0.0f ? 1.0f / temperature : 1.0f;
  float z = kept_mass(x, V, m, inv, 0u, red);
  Draw d{top, z};
  if (temperature > 0.0f) {
    unsigned key = top_p < 1.0f ? nucleus_key(x, V, m, inv, top_p * z, red) : 0u;
    d = invert(x, V, m, inv, key, us[r], red);
  }
  if (threadIdx.x == 0) {
    float scaled = (x[d.tok] - m) * inv;
    tokens[r] = (float)d.tok;
    logprobs[r] = scaled - log_approx(z);
    if (nucleus) nucleus[r] = scaled - log_approx(d.mass);
  }
}
REGISTER(sample)
