package main

// The CUDA backends register themselves when their package is linked.
import _ "github.com/artist-rl/artist/policy/backend/cuda" // registers "cuda" and "cudaemu"
