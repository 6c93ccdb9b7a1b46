// Package cuda is the CUDA backend: the model's tensors live in GPU
// memory, matrix products run in cuBLASLt, and the other kernels are
// package policy/backend/cuda/kernels' CUDA C, embedded as PTX that the
// driver compiles for the GPU at start. Nothing is linked: libcuda.so.1
// and libcublasLt are opened at run time through purego (no cgo), so the
// one binary runs with or without a GPU.
//
// # Registrations
//
// The package registers two backends (import it for its side effect, as
// cmd/artist does):
//
//   - "cuda", preference 20 (above "openblas"): the first GPU of the
//     process (CUDA_VISIBLE_DEVICES picks it). Open fails at once, in one
//     line, with what is missing and the fix: no driver, no GPU, no
//     cuBLASLt; the automatic choice prints it as it passes over cuda.
//   - "cudaemu", preference −10 (never chosen automatically; only with
//     ARTIST_BACKEND=cudaemu): the same backend over an emulated device,
//     for tests on machines without a GPU (see below).
//
// # Layers
//
// Backend (the backend.Backend contract: argument checks, host tensors
// refused with an error naming the kernel, sizes derived from the
// tensors, host inputs such as Rope's positions and AttendCached's span
// descriptors uploaded into a scratch buffer with the launch) sits on a
// small device interface: memory, launch, GEMM, sync. Two devices
// implement it:
//
//   - gpu: the driver API on one goroutine locked to its OS thread, with
//     the device's primary context current there; every CUDA call of the
//     process goes through that thread, in order, on the legacy default
//     stream. Errors name the call and CUDA's error name.
//   - emu: host memory (anonymous mappings, whose addresses stand for
//     device addresses), kernels run by kernels.Emulator (the same CUDA C
//     compiled for the host), and GEMMs run by EmulateColMajor, the
//     column-major contract of cublasLtMatmul.
//
// # Matrix products
//
// MatMul is row-major; cuBLASLt is column-major. A row-major matrix is
// the column-major matrix of its transpose, so c = op(a)·op(b) is
// computed as cᵀ = op(b)ᵀ·op(a)ᵀ: cuBLASLt's A is the backend's b.
// ColMajorGEMM computes the arguments (transposes, m, n, k, leading
// dimensions); the tests check them against the pure-Go backend, and the
// emulated device runs every product through them. Products are float32
// with CUBLAS_COMPUTE_32F (no TF32), which agrees with the CPU backends
// to float32 rounding. With compute dtype bf16 (SetComputeDType, the
// backend.ComputeDTyper capability; model.compute_dtype) MatMul rounds
// both operands into pooled bfloat16 scratch (kernel round_bf16) and
// cuBLASLt reads them as CUDA_R_16BF, still with f32 products, sums and
// result (Precision BF16Inputs); the emulated device widens them and
// computes the same f32 contract. The bf16 path has run on the emulator
// and over the fake libraries only, untested on a device. As a
// backend.Widener it holds weights frozen in bfloat16 as their bits
// (MirrorBF16, two a float32 slot) and widens them with kernel
// widen_bf16 (WidenBF16) into the float32 tensor a product reads.
//
// # Libraries
//
// LibraryCandidates lists where the libraries are looked for: the folder
// in ARTIST_CUDA_LIBDIR, the loader's own search (LD_LIBRARY_PATH, the
// loader cache), the CUDA toolkit and distribution folders, then the
// NVIDIA wheels of the Python installations (nvidia/cu13/lib,
// nvidia/cublas/lib); libcublasLt.so.13 before .so.12.
package cuda
