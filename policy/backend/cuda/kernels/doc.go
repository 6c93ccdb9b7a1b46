// Package kernels is the CUDA C of the cuda backend (every
// backend.Kernels method but MatMul, which cuBLASLt computes, plus device
// sampling), the Go functions that launch it, and a host emulator that
// runs the same C.
//
// # The module
//
// csrc/module.cu includes every kernel source; scripts/build-ptx.sh
// compiles it with clang-19 (no CUDA toolkit, no libdevice: the maths are
// written out, the intrinsics are __nvvm_* builtins) into kernels.ptx,
// PTX 7.0 for sm_80 and newer, embedded here as PTX. The backend loads it
// once (cuModuleLoadData, with a NUL byte appended) and implements
// Launcher with cuLaunchKernel on its stream; KernelNames lists the
// entries. The kernels use shared-memory tiles, block reductions and warp
// shuffles, and none uses atomics, so every result repeats bit for bit
// from run to run; they agree with the pure-Go backend to float32
// rounding (the tests ask |got − want| ≤ 2e−5·(1 + |want|)).
//
// # Launching
//
// One function per kernel checks the sizes, picks the grid, the block and
// the shared memory (never over 48 KiB, so no kernel needs an opt-in
// attribute) and launches:
//
//	AddBias(l, y, bias, rows, M)           ColSum(l, out, x, rows, M)
//	Embed(l, out, table, ids, N, C)        EmbedBack(l, dtable, ids, dy, N, V, C)
//	RMSNorm(l, y, x, w, N, C, eps)         RMSNormBack(l, dx, dw, x, w, dy, scratch, N, C, eps)
//	Rope(l, y, x, N, nh, D, pos, cos, sin, inverse)
//	Attention(l, o, saved, q, k, v, N, heads, T)
//	AttentionBack(l, dq, dk, dv, q, k, v, o, saved, do, scratch, N, heads, T)
//	AttendCached(l, o, q, desc, spans, heads)
//	SwiGLU(l, y, saved, gate, up, n)       SwiGLUBack(l, dgate, dup, gate, up, saved, dy, n)
//	TokenLogProb(l, out, saved, logits, targets, N, V)
//	TokenLogProbBack(l, dlogits, logits, targets, saved, dy, N, V)
//	AdamW(l, p, g, m, v, n, step)          Copy(l, dst, src, n)
//	Add(l, y, x, n)    Mul(l, y, a, b, n)  Scale(l, x, n, s)  Fill(l, x, n, v)
//	Sample(l, tokens, logprobs, nucleus, logits, us, N, V, temperature, topP)
//	RoundBF16(l, dst, src, n)              WidenBF16(l, dst, src, n)
//
// Arguments are device addresses (uintptr) of float32 tensors and the
// sizes the backend knows (N rows, C channels, V vocab, heads H, K, D);
// RoundBF16's dst is n bfloat16 values (uint16 bits), the operand of a
// product that cuBLASLt computes with bfloat16 inputs; WidenBF16's src is
// n such values, weights held on the device in bfloat16.
// An address of 0 stands for an empty tensor where the backend interface
// allows one (a saved tensor, an unwanted gradient). Token ids are
// float32, as in the backend interface. What the interface passes on the
// host travels as device buffers the caller uploads before the launch,
// on the same stream:
//
//   - Rope: pos, N int32 positions (4·N bytes).
//   - AttendCached: desc, PackSpans(nil, keys, vals, spans): SpanWords
//     uint64 words per span (the cache addresses, Row, N, P0); the host
//     spans are passed too, for the grid.
//
// Scratch device memory the caller provides: RMSNormBack N floats when dw
// is wanted, AttentionBack 2·N·H floats. Functions that launch more than
// one kernel (EmbedBack, RMSNormBack, AttentionBack) rely on the launches
// of one stream running in order.
//
// # The emulator
//
// Emulator implements Launcher on the host: NewEmulator compiles the same
// sources with the host's C++ compiler (g++) together with csrc/emu.cpp,
// a runtime that runs each block's threads as fibers with real barriers,
// per-block shared memory (static and dynamic) and 32-lane warp shuffles,
// and loads the library with purego, so a binary built with
// CGO_ENABLED=0 uses it too. Device addresses are host addresses
// (HostAddr for Go slices). The package's tests run every kernel through
// it against the pure-Go backend, so the code tested is the code the GPU
// runs (the GPU may fuse multiply-adds, which the host build does not).
package kernels
