package main

// The compute backends this binary holds register themselves (package
// policy/backend); the libraries link none. backend_cuda.go adds the GPU
// backends.
import _ "github.com/artist-rl/artist/policy/backend/cpu" // go and openblas
