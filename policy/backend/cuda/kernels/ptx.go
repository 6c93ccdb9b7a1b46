package kernels

import "embed"

// PTX is the module of every kernel, PTX 7.0 for sm_80 and newer, as
// scripts/build-ptx.sh compiles it from csrc/module.cu. A CUDA backend
// loads it once with cuModuleLoadData (the driver JIT-compiles it; append
// a NUL byte, which the driver expects at the end of PTX text) and
// launches the kernels by the names the launch functions use.
//
//go:embed kernels.ptx
var PTX []byte

// sources are the CUDA C sources and the emulator's runtime, which
// NewEmulator compiles for the host.
//
//go:embed csrc/*.cu csrc/*.cuh csrc/*.h csrc/*.cpp
var sources embed.FS
