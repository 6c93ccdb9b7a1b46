package trainer

// The tests run with the families the artist command registers.
import _ "github.com/artist-rl/artist/envs/builtin"
