// Package arenatest is a backend for tests that holds the model to the
// device contract of package backend: it keeps every tensor in an arena
// of its own, hands out device tensors only, and refuses host memory.
//
// Its kernels run the pure-Go backend's arithmetic (cpu.NewGo) on views
// of the arena, so its results are bit for bit those of the "go"
// backend. It is a backend.Sampler too, drawing tokens with a float64
// host reference of that contract, so that decoding that samples on the
// device runs under its checks, and a backend.Widener, holding bfloat16
// weights in the arena and widening them there, so that a model frozen
// in bfloat16 computes as it does on a GPU. Everything a real device backend would
// catch is caught here:
//
//   - A host tensor given to a kernel, or to Upload and Download in
//     place of a device one, is an error that names the kernel and the
//     argument.
//   - A device tensor outside the arena, or past the end of the block
//     it was cut from, is an error.
//   - The arena is an anonymous mapping that is PROT_NONE except while
//     one of its kernels or transfers runs, so code that reads a
//     tensor's memory directly faults (run the test with
//     debug.SetPanicOnFault(true) to get a panic instead of a crash).
//
// It is not registered in the backend registry: tests construct it with
// New and give it to a model with Model.UseBackend.
package arenatest
