// Package backend is the model's compute: a small interface that the
// training graph and the sampler call for every operation, and a registry
// of the implementations this binary holds, chosen when the process
// starts.
//
// # What a backend implements
//
// A Backend is three things (see the interfaces for each contract):
//
//   - Memory: Alloc, Free, Mirror, Upload and Download. Tensors live in
//     the backend's memory; Tensor is only a handle (a host slice, or a
//     device address and a length). Data crosses between the host and
//     the backend only at the edges of a computation: weights once
//     (Mirror, then Upload again after the host values change: package
//     policy's Model.SyncWeights), token ids in and log-probs or logits
//     out per call. Everything between, the key/value caches and the
//     activations, stays where the backend keeps it, so a device backend
//     moves nothing from one kernel to the next. A host backend copies
//     nothing at these edges either: Mirror wraps the caller's slice, and
//     Upload and Download of a tensor into its own storage are free.
//   - Kernels: the model's operations, forward and backward: MatMul and
//     the row operations around it (AddBias, ColSum, Embed, EmbedBack),
//     RMSNorm, rotary positions, causal grouped-query attention (training
//     and cached decoding), SwiGLU, the log-softmax-and-gather of target
//     tokens, AdamW, and the element operations Copy, Add, Mul and Scale.
//     Each kernel reads and writes whole tensors of the
//     backend's kind; shapes follow the model's legend. Each returns an
//     error (a device launch can fail, and a tensor of another kind is
//     refused), which the graph operations' Do, Session.Step,
//     Model.LogProbs and the optimizer's Step pass up.
//   - Info: its name, its thread counts and, for a library, the library
//     and the kernel type it chose (OpenBLAS's "Haswell", "Zen", ...),
//     which runs print at start and record in summary.json. Host backends
//     also give HostBLAS, which gonum and gorgonia then use for whatever
//     they compute themselves.
//
// One capability is optional: ComputeDTyper, a backend whose products
// can round their operands to bfloat16 (compute dtype bf16, f32 sums).
// SetComputeDType sets it on any backend and refuses bf16 on the others
// (the CPU backends compute in f32 only). A device backend may also be a
// Widener: it holds bfloat16 values (weights frozen in bfloat16) in its
// memory, uploaded once, and widens them to float32 there before a
// product; callers check for it with a type assertion.
//
// gorgonia stays the graph layer: package policy's graph operations are
// gorgonia Ops whose Do calls one kernel each, so autodiff, the tape
// machine and the graph cache are unchanged whichever backend computes.
//
// # How a backend is chosen
//
// Backends register a constructor under a name with a preference
// (Register; a second registration of a name panics). Select, which
// package policy calls once per process, takes the name in ARTIST_BACKEND
// when it is set, else tries the registered backends from the most
// preferred down and takes the first that opens. A forced backend that
// cannot open is an error that says what to install; so is an unknown
// name. The automatic choice reports why it passed over the backends it
// skipped.
//
// Package policy/backend/cpu registers "go" (pure Go, gonum's BLAS,
// always there; preference 0) and "openblas" (the same Go kernels with
// their matrix products in OpenBLAS; preference 10). Libraries are opened
// at run time with LoadLibrary (dlopen through purego, no cgo), so one
// binary runs with or without them; a GPU backend loads cuBLAS the same
// way and registers with a higher preference. Libraries link no backend:
// the command imports the backend packages it holds for their
// registration (cmd/artist imports policy/backend/cpu), and so do the
// tests of packages that build models; without one, Select fails with
// ErrNoBackend.
//
// Host kernels split their work over Threads goroutines, which
// PinThreads fixes whatever GOMAXPROCS becomes; code that sizes the Go
// scheduler for its own goroutines pins it first, whichever backend runs.
//
// # Agreement
//
// Package policy/backend/arenatest is a device backend for tests: every
// tensor in an arena that is unreadable between its kernels, host tensors
// refused, the pure-Go arithmetic. Package policy's inference runs on it
// bit for bit as on "go", which checks that the inference path goes
// through Memory alone, and so does a training step (the training graph
// is kernels only, the fused LM head and LoRA dropout included);
// docs/ARCHITECTURE.md says what is left (gradients come back to the
// host).
//
// The pure-Go backend is the reference: its arithmetic is that of the
// model before backends existed, so runs with ARTIST_BACKEND=go repeat
// bit for bit. Other backends agree with it to float32 rounding (libraries
// sum in other orders), which package policy's tests check for log-probs
// and every gradient.
package backend
