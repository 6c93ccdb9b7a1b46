// fakecublaslt.c: a stand-in for libcublasLt.so.13, for tests without a
// GPU. It keeps cuBLASLt's C interface (opaque descriptors, the 96-byte
// heuristic result, the 16 arguments of cublasLtMatmul, host alpha and
// beta) and computes the product on the host by the column-major
// definition. A and B are CUDA_R_32F, or both CUDA_R_16BF (bfloat16 bits,
// widened exactly; products and sums in f32, as CUBLAS_COMPUTE_32F); C
// and D are CUDA_R_32F. It refuses what the backend must not ask: another
// compute or data type, A and B of different types, unknown attributes,
// inconsistent layouts, an algorithm it did not hand out, a missing
// workspace, a stream other than 0. fake_bf16_products counts the
// products it computed from bfloat16 operands.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int cublasStatus_t;
enum { SUCCESS = 0, INVALID_VALUE = 7, NOT_SUPPORTED = 15 };
enum { COMPUTE_32F = 68, R_32F = 0, R_16BF = 14, OP_N = 0, OP_T = 1 };
#define MAGIC 0x61727469737443ull

typedef struct { int32_t transa, transb; } Desc;
typedef struct { uint64_t rows, cols; int64_t ld; int type; } Layout;
typedef struct { uint64_t workspace; uint32_t align[4]; } Pref;  // min alignment of A, B, C, D
typedef struct { uint64_t data[8]; } Algo;
typedef struct {
  Algo algo;
  size_t workspaceSize;
  cublasStatus_t state;
  float wavesCount;
  int reserved[4];
} HeuristicResult;
_Static_assert(sizeof(HeuristicResult) == 96, "cublasLtMatmulHeuristicResult_t is 96 bytes");

static int handle;
static long bf16_products;
long fake_bf16_products(void) { return bf16_products; }

cublasStatus_t cublasLtCreate(void** h) { *h = &handle; return SUCCESS; }
size_t cublasLtGetVersion(void) { return 130000; }

cublasStatus_t cublasLtMatmulDescCreate(Desc** d, int compute, int scale) {
  if (compute != COMPUTE_32F || scale != R_32F) return NOT_SUPPORTED;
  *d = calloc(1, sizeof(Desc));
  return SUCCESS;
}
cublasStatus_t cublasLtMatmulDescSetAttribute(Desc* d, int attr, const void* buf, size_t size) {
  int32_t v;
  if (size != 4) return INVALID_VALUE;
  memcpy(&v, buf, 4);
  if (v != OP_N && v != OP_T) return INVALID_VALUE;
  if (attr == 3) d->transa = v;
  else if (attr == 4) d->transb = v;
  else return INVALID_VALUE;
  return SUCCESS;
}
cublasStatus_t cublasLtMatrixLayoutCreate(Layout** l, int type, uint64_t rows, uint64_t cols, int64_t ld) {
  if (type != R_32F && type != R_16BF) return NOT_SUPPORTED;
  if (ld < (int64_t)(rows ? rows : 1)) return INVALID_VALUE;
  *l = malloc(sizeof(Layout));
  (*l)->rows = rows, (*l)->cols = cols, (*l)->ld = ld, (*l)->type = type;
  return SUCCESS;
}
cublasStatus_t cublasLtMatmulPreferenceCreate(Pref** p) {
  *p = calloc(1, sizeof(Pref));
  for (int i = 0; i < 4; i++) (*p)->align[i] = 256;  // cuBLASLt's default
  return SUCCESS;
}
cublasStatus_t cublasLtMatmulPreferenceDestroy(Pref* p) {
  free(p);
  return SUCCESS;
}
cublasStatus_t cublasLtMatmulPreferenceSetAttribute(Pref* p, int attr, const void* buf, size_t size) {
  if (attr == 1 && size == 8) {
    memcpy(&p->workspace, buf, 8);
    return SUCCESS;
  }
  if (attr >= 5 && attr <= 8 && size == 4) {  // CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_{A,B,C,D}_BYTES
    memcpy(&p->align[attr - 5], buf, 4);
    return SUCCESS;
  }
  return INVALID_VALUE;
}

// opShape is the shape of op(X).
static void opShape(int t, const Layout* l, uint64_t* r, uint64_t* c) {
  *r = t == OP_T ? l->cols : l->rows;
  *c = t == OP_T ? l->rows : l->cols;
}

// consistent checks the shapes and the types: A and B alike (f32 or
// bf16), C and D f32.
static int consistent(const Desc* d, const Layout* a, const Layout* b, const Layout* c, const Layout* dd) {
  uint64_t ar, ac, br, bc;
  if (a->type != b->type || c->type != R_32F || dd->type != R_32F) return 0;
  opShape(d->transa, a, &ar, &ac);
  opShape(d->transb, b, &br, &bc);
  return ac == br && c->rows == ar && c->cols == bc && dd->rows == c->rows && dd->cols == c->cols && dd->ld == c->ld;
}

cublasStatus_t cublasLtMatmulAlgoGetHeuristic(void* h, Desc* d, Layout* a, Layout* b, Layout* c, Layout* dd,
                                              Pref* p, int requested, HeuristicResult* out, int* count) {
  if (h != &handle || requested < 1 || p->workspace == 0) return INVALID_VALUE;
  if (!consistent(d, a, b, c, dd)) return INVALID_VALUE;
  memset(out, 0, sizeof *out * requested);
  out[0].algo.data[0] = MAGIC;
  for (int i = 0; i < 4; i++) out[0].algo.data[1 + i] = p->align[i];  // the algorithm needs this alignment
  out[0].workspaceSize = p->workspace / 2;
  out[0].state = SUCCESS;
  out[0].wavesCount = 1;
  *count = 1;
  return SUCCESS;
}

// at is op(X)(i, j), widened from bfloat16 bits when the layout says so.
static float at(int t, const Layout* l, const void* x, uint64_t i, uint64_t j) {
  uint64_t k = t == OP_T ? j + i * l->ld : i + j * l->ld;
  if (l->type == R_16BF) {
    uint32_t bits = (uint32_t)((const uint16_t*)x)[k] << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
  }
  return ((const float*)x)[k];
}

cublasStatus_t cublasLtMatmul(void* h, Desc* d, const float* alpha, const void* A, Layout* a, const void* B,
                              Layout* b, const float* beta, const float* C, Layout* c, float* D, Layout* dd,
                              const Algo* algo, void* workspace, size_t wsBytes, void* stream) {
  if (h != &handle || !algo || algo->data[0] != MAGIC || !workspace || wsBytes == 0 || stream != NULL)
    return INVALID_VALUE;
  if (!consistent(d, a, b, c, dd)) return INVALID_VALUE;
  const void* ptrs[4] = {A, B, C, D};
  for (int i = 0; i < 4; i++)
    if ((uintptr_t)ptrs[i] % algo->data[1 + i] != 0) return NOT_SUPPORTED;  // as an algorithm for aligned operands
  uint64_t M = c->rows, N = c->cols, K;
  uint64_t ar, ac;
  opShape(d->transa, a, &ar, &ac);
  K = ac;
  if (a->type == R_16BF) bf16_products++;
  for (uint64_t j = 0; j < N; j++)
    for (uint64_t i = 0; i < M; i++) {
      float s = 0;
      for (uint64_t l = 0; l < K; l++) s += at(d->transa, a, A, i, l) * at(d->transb, b, B, l, j);
      s *= *alpha;
      if (*beta != 0) s += *beta * C[i + j * c->ld];
      D[i + j * dd->ld] = s;
    }
  return SUCCESS;
}
