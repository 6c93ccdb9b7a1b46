package evalbench

// The tests run with the benchmarks the artist command registers.
import _ "github.com/artist-rl/artist/envs/builtin"
