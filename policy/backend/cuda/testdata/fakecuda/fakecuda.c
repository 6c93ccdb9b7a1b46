// fakecuda.c: a stand-in for libcuda.so.1, for tests on machines without
// a GPU. Memory is host memory, kernels run in the CUDA emulator library
// named by FAKECUDA_EMULATOR (its emu_launch), and every call that needs
// a context fails with CUDA_ERROR_INVALID_CONTEXT unless it comes from
// the thread that made the context current: the Go side must make all its
// calls from one locked thread. Only what the backend calls is here.
#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef uint64_t CUdeviceptr;

enum {
  OK = 0, INVALID_VALUE = 1, NOT_INITIALIZED = 3, INVALID_CONTEXT = 201,
  INVALID_IMAGE = 200, NOT_FOUND = 500, LAUNCH_FAILED = 719,
};

static int initialized;
static int retained;
static __thread int current;  // this thread has the context current
static void* emu;
// emu_launch is the emulator library's entry point (package kernels'
// csrc/emu.cpp); this declaration must follow it.
static int (*emu_launch)(const char*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                         void**, const unsigned char*, int, char*, int);
static int (*emu_arity)(const char*);
static long calls_off_thread;
static size_t allocated;  // bytes of live allocations (malloc_usable_size)

#define NEED_CONTEXT()        \
  do {                        \
    if (!current) {           \
      calls_off_thread++;     \
      return INVALID_CONTEXT; \
    }                         \
  } while (0)

CUresult cuInit(unsigned flags) {
  if (flags != 0) return INVALID_VALUE;
  const char* path = getenv("FAKECUDA_EMULATOR");
  if (!path || !(emu = dlopen(path, RTLD_NOW | RTLD_LOCAL))) return NOT_INITIALIZED;
  emu_launch = dlsym(emu, "emu_launch");
  emu_arity = dlsym(emu, "emu_arity");
  if (!emu_launch || !emu_arity) return NOT_INITIALIZED;
  initialized = 1;
  return OK;
}

CUresult cuDriverGetVersion(int* v) { *v = 13000; return OK; }
CUresult cuDeviceGetCount(int* n) { *n = initialized ? 1 : 0; return initialized ? OK : NOT_INITIALIZED; }
CUresult cuDeviceGet(int* dev, int ordinal) { if (ordinal != 0) return INVALID_VALUE; *dev = 0; return OK; }
CUresult cuDeviceGetName(char* name, int len, int dev) {
  if (dev != 0 || len < 16) return INVALID_VALUE;
  snprintf(name, len, "Fake GPU");
  return OK;
}
CUresult cuDeviceTotalMem_v2(size_t* bytes, int dev) { *bytes = (size_t)3 << 30; return dev == 0 ? OK : INVALID_VALUE; }
CUresult cuDevicePrimaryCtxRetain(void** ctx, int dev) { retained++; *ctx = &retained; return dev == 0 ? OK : INVALID_VALUE; }
CUresult cuDevicePrimaryCtxRelease_v2(int dev) { retained--; return dev == 0 ? OK : INVALID_VALUE; }
CUresult cuCtxSetCurrent(void* ctx) { current = ctx == &retained; return current ? OK : INVALID_CONTEXT; }
CUresult cuCtxSynchronize(void) { NEED_CONTEXT(); return OK; }

CUresult cuMemAlloc_v2(CUdeviceptr* p, size_t n) {
  NEED_CONTEXT();
  void* m = malloc(n);
  if (!m) return 2;  // CUDA_ERROR_OUT_OF_MEMORY
  memset(m, 0xA5, n);  // garbage, as device memory is
  allocated += malloc_usable_size(m);
  *p = (CUdeviceptr)(uintptr_t)m;
  return OK;
}
CUresult cuMemFree_v2(CUdeviceptr p) {
  NEED_CONTEXT();
  allocated -= malloc_usable_size((void*)(uintptr_t)p);
  free((void*)(uintptr_t)p);
  return OK;
}
// The device's 3 GiB less 64 MiB for the context and what is allocated.
CUresult cuMemGetInfo_v2(size_t* free_bytes, size_t* total) {
  NEED_CONTEXT();
  *total = (size_t)3 << 30;
  *free_bytes = *total - ((size_t)64 << 20) - allocated;
  return OK;
}
CUresult cuMemsetD8_v2(CUdeviceptr p, unsigned char v, size_t n) {
  NEED_CONTEXT();
  memset((void*)(uintptr_t)p, v, n);
  return OK;
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, size_t n) {
  NEED_CONTEXT();
  memcpy((void*)(uintptr_t)dst, src, n);
  return OK;
}
CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, size_t n) {
  NEED_CONTEXT();
  memcpy(dst, (void*)(uintptr_t)src, n);
  return OK;
}
CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  NEED_CONTEXT();
  memmove((void*)(uintptr_t)dst, (void*)(uintptr_t)src, n);
  return OK;
}

// A module is accepted when it is NUL-terminated PTX text with entries.
CUresult cuModuleLoadData(void** mod, const void* image) {
  NEED_CONTEXT();
  const char* s = image;
  if (!s || !strstr(s, ".entry")) return INVALID_IMAGE;
  *mod = strdup(s);  // the driver keeps no pointer to the image
  return OK;
}
CUresult cuModuleUnload(void* mod) {
  NEED_CONTEXT();
  if (!mod) return INVALID_VALUE;
  free(mod);
  return OK;
}

// A function handle holds the kernel's name and its parameters' sizes,
// read from the entry's declaration in the module's PTX
// (".entry name(" then ".param .u64 ...", ".param .f32 ..."), as the
// driver reads them: the emulator checks them against the C types.
typedef struct {
  char name[128];
  int n;
  unsigned char sizes[64];
} Function;

static int paramSizes(const char* ptx, const char* name, unsigned char* sizes, int max) {
  char entry[160];
  snprintf(entry, sizeof entry, ".entry %s(", name);
  const char* p = strstr(ptx, entry);
  if (!p) return -1;
  const char* end = strchr(p, ')');
  int n = 0;
  for (p = strstr(p, ".param "); p && p < end && n < max; p = strstr(p + 1, ".param ")) {
    const char* t = p + strlen(".param .");
    sizes[n++] = (t[1] == '6' || t[1] == '3') ? (t[1] == '6' ? 8 : 4) : 0;  // .u64 .s64 .b64 .f64 / .u32 ...
  }
  return n;
}

CUresult cuModuleGetFunction(void** fn, void* mod, const char* name) {
  NEED_CONTEXT();
  Function* f = calloc(1, sizeof *f);
  if (!mod || strlen(name) >= sizeof f->name || (f->n = paramSizes(mod, name, f->sizes, 64)) < 0 ||
      emu_arity(name) != f->n) {
    free(f);
    return NOT_FOUND;
  }
  strcpy(f->name, name);
  *fn = f;
  return OK;
}

CUresult cuLaunchKernel(void* fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, void* stream, void** params, void** extra) {
  NEED_CONTEXT();
  const Function* f = fn;
  // Above 48 KiB of dynamic shared memory a kernel must opt in
  // (cuFuncSetAttribute), which the backend does not do.
  if (stream != NULL || extra != NULL || (f->n > 0 && params == NULL) || shared > 48 * 1024) return INVALID_VALUE;
  char err[512];
  if (emu_launch(f->name, gx, gy, gz, bx, by, bz, shared, params, f->sizes, f->n, err, sizeof err) != 0) {
    fprintf(stderr, "fakecuda: %s: %s\n", f->name, err);
    return LAUNCH_FAILED;
  }
  return OK;
}

CUresult cuGetErrorName(CUresult r, const char** s) {
  switch (r) {
    case INVALID_CONTEXT: *s = "CUDA_ERROR_INVALID_CONTEXT"; return OK;
    case LAUNCH_FAILED: *s = "CUDA_ERROR_LAUNCH_FAILED"; return OK;
    case INVALID_VALUE: *s = "CUDA_ERROR_INVALID_VALUE"; return OK;
  }
  *s = "CUDA_ERROR_UNKNOWN";
  return OK;
}
CUresult cuGetErrorString(CUresult r, const char** s) { *s = "fake error"; return OK; }

// fake_calls_off_thread counts calls that came from a thread without the
// context, for the test to read.
long fake_calls_off_thread(void) { return calls_off_thread; }
int fake_retained(void) { return retained; }
