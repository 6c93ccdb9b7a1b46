// module.cu: the one translation unit of the module. build-ptx.sh compiles
// it to kernels.ptx for the GPU, and the emulator compiles it for the host
// together with emu.cpp, so both run the same source.
#include "elementwise.cu"
#include "rows.cu"
#include "attention.cu"
#include "attention_tiled.cu"
#include "attend_cached.cu"
#include "attention_back.cu"
#include "attention_back_tiled.cu"
#include "sample.cu"
#include "bf16.cu"
