// elementwise.cu: kernels whose elements are independent, grid-stride
// over n values: fill, copy, add, mul, scale, add_bias, embed, rope,
// swiglu, swiglu_back, adamw.
#include "prelude.cuh"

KERNEL(fill)(float* x, long long n, float v) {
  GRID_STRIDE(i, n) x[i] = v;
}
REGISTER(fill)

KERNEL(copy)(float* dst, const float* src, long long n) {
  GRID_STRIDE(i, n) dst[i] = src[i];
}
REGISTER(copy)

KERNEL(add)(float* y, const float* x, long long n) {
  GRID_STRIDE(i, n) y[i] += x[i];
}
REGISTER(add)

// mul writes y = a ⊙ b; y may equal a or b (each element is read before
// it is written, by the same thread).
KERNEL(mul)(float* y, const float* a, const float* b, long long n) {
  GRID_STRIDE(i, n) y[i] = a[i] * b[i];
}
REGISTER(mul)

KERNEL(scale)(float* x, long long n, float s) {
  GRID_STRIDE(i, n) x[i] *= s;
}
REGISTER(scale)

// add_bias adds bias [M] to every row of y [n/M, M].
KERNEL(add_bias)(float* y, const float* bias, long long n, int M) {
  GRID_STRIDE(i, n) y[i] += bias[i % M];
}
REGISTER(add_bias)

// embed copies rows ids[r] (float32 token ids) of table [V, C] into
// out [N, C].
KERNEL(embed)(float* out, const float* table, const float* ids, int N, int C) {
  GRID_STRIDE(i, (long long)N * C) {
    long long r = i / C, c = i % C;
    out[i] = table[(long long)ids[r] * C + c];
  }
}
REGISTER(embed)

// rope rotates the pairs (j, j+D/2) of every head of every row of x
// [N, nh·D] into y by the angle of the row's position pos[r]; one thread
// per pair, which reads both values before writing, so y may equal x.
KERNEL(rope)(float* y, const float* x, const int* pos, const float* cos, const float* sin, int N, int nh, int D,
             int inverse) {
  int half = D / 2;
  GRID_STRIDE(i, (long long)N * nh * half) {
    long long r = i / ((long long)nh * half);
    int h = (int)(i / half % nh), j = (int)(i % half);
    long long at = r * nh * D + (long long)h * D + j, t = (long long)pos[r] * half + j;
    float c = cos[t], s = inverse ? -sin[t] : sin[t];
    float a = x[at], b = x[at + half];
    y[at] = a * c - b * s;
    y[at + half] = b * c + a * s;
  }
}
REGISTER(rope)

// swiglu writes y = gate·sigmoid(gate)·up and, when saved is not null,
// saved = exp(−gate); y may equal gate.
KERNEL(swiglu)(float* y, float* saved, const float* gate, const float* up, long long n) {
  GRID_STRIDE(i, n) {
    float g = gate[i], e = exp32(-g);
    if (saved) saved[i] = e;
    y[i] = g / (1.0f + e) * up[i];
  }
}
REGISTER(swiglu)

// swiglu_back writes dgate = dy·up·σ(g)·(1 + g·(1−σ(g))) and
// dup = dy·silu(g), each when not null, with exp(−g) from saved when not
// null.
KERNEL(swiglu_back)(float* dgate, float* dup, const float* gate, const float* up, const float* saved, const float* dy,
                    long long n) {
  GRID_STRIDE(i, n) {
    float g = gate[i], e = saved ? saved[i] : exp32(-g);
    if (dgate) {
      float sg = 1.0f / (1.0f + e);
      dgate[i] = dy[i] * up[i] * sg * (1.0f + g * (1.0f - sg));
    }
    if (dup) dup[i] = dy[i] * g / (1.0f + e);
  }
}
REGISTER(swiglu_back)

// adamw updates p, m and v in place (see backend.Kernels.AdamW).
KERNEL(adamw)(float* p, const float* g, float* m, float* v, long long n, float scale, float beta1, float beta2,
              float rootbc2, float eps, float decay, float stepsize) {
  GRID_STRIDE(i, n) {
    float gi = g[i] * scale;
    float mi = beta1 * m[i] + (1.0f - beta1) * gi;
    float vi = beta2 * v[i] + (1.0f - beta2) * gi * gi;
    m[i] = mi;
    v[i] = vi;
    p[i] = p[i] * decay - stepsize * mi / (sqrt_rn(vi) / rootbc2 + eps);
  }
}
REGISTER(adamw)
