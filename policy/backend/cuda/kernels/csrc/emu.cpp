// emu.cpp: the host runtime of the emulator (see emu.h). The C interface
// at the end is what the Go package calls through purego.
#include "emu.h"

#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>

#include "fiber.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

thread_local emu::Dim threadIdx, blockIdx, blockDim, gridDim;

namespace emu {
namespace {

struct Kernel {
  void (*fn)();
  Trampoline tramp;
  int arity;
  const unsigned char* sizes;  // bytes of each parameter
};

std::map<std::string, Kernel>& registry() {
  static std::map<std::string, Kernel> kernels;
  return kernels;
}

const std::size_t kStack = 32 << 10;  // bytes of stack per emulated thread
const std::size_t kGuard = 4 << 10;   // an inaccessible page below each stack
const unsigned kMaxThreads = 1024;    // threads per block, as on a GPU
// The dynamic shared memory a GPU gives a kernel without opting in
// (cuFuncSetAttribute), which the launch functions stay within.
const std::size_t kMaxShared = 48 << 10;

// Barrier releases its waiters once every live thread of its group
// (block or warp) has arrived; gen counts the releases.
struct Barrier {
  int count = 0;
  unsigned gen = 0;
};

struct Fiber {
  Context ctx;
  Dim tid;
  bool done;
  Barrier* waits;  // the barrier the fiber waits at, or nullptr
  unsigned gen;    // waits->gen when it arrived
};

// Block is the state of the block that an OS thread runs now.
struct Block {
  std::vector<Fiber> fibers;
  char* stacks = nullptr;
  std::size_t stacks_len = 0;
  Context sched;
  int cur = 0, live = 0;
  Barrier block;
  std::vector<Barrier> warps;
  std::vector<int> warp_live;
  std::vector<unsigned> exchange;  // two slots per thread: shuffles alternate
  std::vector<unsigned char> shared;
  const Kernel* kernel = nullptr;
  void** params = nullptr;

  ~Block() {
    if (stacks) munmap(stacks, stacks_len);
  }
};

thread_local Block* running;

// arrive counts the running fiber at bar and, unless that completes the
// group of live threads, switches to the scheduler until it does.
void arrive(Barrier& bar, int live) {
  Block& b = *running;
  if (++bar.count >= live) {
    bar.count = 0;
    bar.gen++;
    return;
  }
  Fiber& f = b.fibers[b.cur];
  f.waits = &bar;
  f.gen = bar.gen;
  switch_to(&f.ctx, &b.sched);
}

// release lets the waiters of bar go when the threads that exited were
// the ones it waited for.
void release(Barrier& bar, int live) {
  if (bar.count > 0 && bar.count >= live) {
    bar.count = 0;
    bar.gen++;
  }
}

void entry() {
  Block& b = *running;
  b.kernel->tramp(b.kernel->fn, b.params);
  int w = b.cur / 32;
  b.fibers[b.cur].done = true;
  b.live--;
  b.warp_live[w]--;
  release(b.block, b.live);
  release(b.warps[w], b.warp_live[w]);
}

// start is where a fiber begins; it never returns.
[[noreturn]] void start() {
  entry();
  Block& b = *running;
  switch_to(&b.fibers[b.cur].ctx, &b.sched);
  __builtin_unreachable();
}

// prepare sizes b for n threads and shared bytes of dynamic shared
// memory; it returns false when stacks cannot be mapped.
bool prepare(Block& b, unsigned n, unsigned shared) {
  std::size_t need = n * (kGuard + kStack);
  if (b.stacks_len < need) {
    if (b.stacks) munmap(b.stacks, b.stacks_len);
    void* p = mmap(nullptr, need, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    b.stacks = p == MAP_FAILED ? nullptr : static_cast<char*>(p);
    b.stacks_len = b.stacks ? need : 0;
    if (!b.stacks) return false;
    for (unsigned i = 0; i < n; i++) mprotect(b.stacks + i * (kGuard + kStack), kGuard, PROT_NONE);
  }
  b.fibers.resize(n);
  b.warps.assign((n + 31) / 32, Barrier{});
  b.warp_live.resize((n + 31) / 32);
  b.exchange.assign(2 * n, 0);
  b.shared.resize(shared + 16);
  return true;
}

// run_block runs block bidx of the launch to its end; it returns an
// error message, or nullptr.
const char* run_block(Block& b, Dim bidx) {
  Dim bd = blockDim;
  unsigned n = bd.x * bd.y * bd.z;
  blockIdx = bidx;
  std::memset(b.shared.data(), 0xff, b.shared.size());  // NaNs catch reads of unwritten memory
  for (unsigned i = 0; i < n; i++) {
    Fiber& f = b.fibers[i];
    f.tid = Dim{i % bd.x, i / bd.x % bd.y, i / (bd.x * bd.y)};
    f.done = false;
    f.waits = nullptr;
    make_context(&f.ctx, b.stacks + i * (kGuard + kStack) + kGuard, kStack, start);
  }
  b.live = n;
  for (unsigned w = 0; w < b.warp_live.size(); w++) b.warp_live[w] = n - 32 * w < 32 ? n - 32 * w : 32;
  for (Barrier& w : b.warps) w = Barrier{};
  b.block = Barrier{};
  while (b.live > 0) {
    bool ran = false;
    for (unsigned i = 0; i < n; i++) {
      Fiber& f = b.fibers[i];
      if (f.done || (f.waits && f.waits->gen == f.gen)) continue;
      f.waits = nullptr;
      b.cur = i;
      threadIdx = f.tid;
      ran = true;
      switch_to(&b.sched, &f.ctx);
    }
    if (!ran) return "deadlock: threads wait at barriers that not all threads reach";
  }
  return nullptr;
}

// exchange publishes bits as the running lane's value and returns the
// value of lane src of its warp (its own when src is not a live lane).
// Successive shuffles of a warp use alternate slots, so one barrier
// each suffices: a lane writes a slot again only after every lane has
// passed the shuffle between, and so has read it.
unsigned exchange(unsigned bits, int src) {
  Block& b = *running;
  int i = b.cur, lane = i % 32, w = i / 32, n = (int)b.fibers.size();
  unsigned* slots = b.exchange.data() + (b.warps[w].gen & 1) * n;
  slots[i] = bits;
  arrive(b.warps[w], b.warp_live[w]);
  int j = i - lane + src;
  return src >= 0 && src < 32 && j < n ? slots[j] : bits;
}

unsigned to_bits(float v) {
  unsigned u;
  std::memcpy(&u, &v, 4);
  return u;
}

}  // namespace

void add(const char* name, void (*kernel)(), Trampoline t, int arity, const unsigned char* sizes) {
  registry()[name] = Kernel{kernel, t, arity, sizes};
}

void syncthreads() { arrive(running->block, running->live); }

void* dynamic_shared() { return running->shared.data(); }

float shfl_xor(float v, int lanemask) {
  return bits_float(exchange(to_bits(v), (running->cur % 32) ^ lanemask));
}

float shfl_down(float v, unsigned delta) {
  return bits_float(exchange(to_bits(v), running->cur % 32 + (int)delta));
}

float shfl_up(float v, unsigned delta) {
  return bits_float(exchange(to_bits(v), running->cur % 32 - (int)delta));
}

int shfl_xor_int(int v, int lanemask) {
  return (int)exchange((unsigned)v, (running->cur % 32) ^ lanemask);
}

namespace {

// Launch is one emu_launch: its blocks are taken in order by workers.
struct Launch {
  const Kernel* kernel;
  void** params;
  Dim grid, block;
  unsigned shared;
  std::atomic<unsigned long> next{0};
  std::mutex mu;
  std::string err;
};

// run_blocks runs blocks of the launch on b until none is left.
void run_blocks(Launch* l, Block& b) {
  gridDim = l->grid;
  blockDim = l->block;
  if (!prepare(b, l->block.x * l->block.y * l->block.z, l->shared)) {
    std::lock_guard<std::mutex> g(l->mu);
    l->err = "cannot map fiber stacks";
    return;
  }
  b.kernel = l->kernel;
  b.params = l->params;
  running = &b;
  unsigned long total = (unsigned long)l->grid.x * l->grid.y * l->grid.z;
  for (unsigned long i; (i = l->next.fetch_add(1)) < total;) {
    Dim bidx{unsigned(i % l->grid.x), unsigned(i / l->grid.x % l->grid.y), unsigned(i / l->grid.x / l->grid.y)};
    if (const char* e = run_block(b, bidx)) {
      std::lock_guard<std::mutex> g(l->mu);
      l->err = e;
      l->next = total;
    }
  }
  running = nullptr;
}

// Blocks are kept for later launches, whichever OS thread runs them:
// mapping and first touching the fibers' stacks costs more than a small
// launch.
std::mutex pool_mu;
std::vector<Block*> spare;

Block* take_block() {
  std::lock_guard<std::mutex> g(pool_mu);
  if (spare.empty()) return new Block;
  Block* b = spare.back();
  spare.pop_back();
  return b;
}

void give_block(Block* b) {
  std::lock_guard<std::mutex> g(pool_mu);
  spare.push_back(b);
}

// work runs blocks of the launch on this OS thread.
void work(Launch* l) {
  Block& b = *take_block();
  run_blocks(l, b);
  give_block(&b);
}

// helper is work on a thread of the launch's own, which blocks every
// signal: signals are for the thread that called emu_launch (a Go
// thread, whose runtime handles them).
void helper(Launch* l) {
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
  work(l);
}

unsigned workers(unsigned long blocks) {
  unsigned n = std::thread::hardware_concurrency();
  if (const char* s = std::getenv("ARTIST_CUDAEMU_THREADS")) n = (unsigned)std::atoi(s);
  if (n < 1) n = 1;
  if (n > 16) n = 16;
  return blocks < n ? (unsigned)blocks : n;
}

}  // namespace
}  // namespace emu

// emu_arity returns the number of parameters of kernel name, -1 when the
// module has no such kernel.
extern "C" int emu_arity(const char* name) {
  auto it = emu::registry().find(name);
  return it == emu::registry().end() ? -1 : it->second.arity;
}

// emu_launch runs kernel name over the grid and returns once every block
// has finished: 0, or 1 with a message in err (errlen bytes, NUL-ended).
// params holds nparams pointers to the kernel's arguments, in order, and
// sizes the size in bytes of each argument's value, which must be that
// of the C parameter (as cuLaunchKernel copies it).
extern "C" int emu_launch(const char* name, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                          unsigned bz, unsigned shared, void** params, const unsigned char* sizes, int nparams,
                          char* err, int errlen) {
  auto fail = [&](const std::string& msg) {
    std::snprintf(err, errlen, "%s", msg.c_str());
    return 1;
  };
  auto it = emu::registry().find(name);
  if (it == emu::registry().end()) return fail(std::string("no kernel ") + name);
  if (it->second.arity != nparams)
    return fail(std::string(name) + " takes " + std::to_string(it->second.arity) + " parameters, got " +
                std::to_string(nparams));
  for (int i = 0; i < nparams; i++)
    if (sizes[i] != it->second.sizes[i])
      return fail("parameter " + std::to_string(i) + " of " + name + " is " + std::to_string(it->second.sizes[i]) +
                  " bytes in C, got a value of " + std::to_string(sizes[i]));
  unsigned long threads = (unsigned long)bx * by * bz, blocks = (unsigned long)gx * gy * gz;
  if (threads == 0 || threads > emu::kMaxThreads || blocks == 0 || gy > 65535 || gz > 65535)
    return fail("invalid launch configuration");
  if (shared > emu::kMaxShared)
    return fail(std::to_string(shared) + " bytes of dynamic shared memory: over 48 KiB needs an opt-in on a GPU");
  emu::Launch l;
  l.kernel = &it->second;
  l.params = params;
  l.grid = emu::Dim{gx, gy, gz};
  l.block = emu::Dim{bx, by, bz};
  l.shared = shared;
  unsigned n = emu::workers(blocks);
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < n; i++) pool.emplace_back(emu::helper, &l);
  emu::work(&l);
  for (auto& t : pool) t.join();
  if (!l.err.empty()) return fail(l.err);
  return 0;
}
