// Package builtin registers the built-in task families, the ones the
// artist command knows, in order: the first is the default task
// (task.name), and benchmarks are listed family by family. Import it for its effect:
//
//	import _ "github.com/artist-rl/artist/envs/builtin"
//
// Adding a family is its own package and one line here.
package builtin

import (
	"github.com/artist-rl/artist/envs/arith"
	"github.com/artist-rl/artist/envs/bfcl"
	"github.com/artist-rl/artist/envs/family"
	"github.com/artist-rl/artist/envs/fcsynth"
	"github.com/artist-rl/artist/envs/mathtask"
	"github.com/artist-rl/artist/envs/taubench"
)

func init() {
	family.Register(arith.Family{})
	family.Register(mathtask.Family{})
	family.Register(bfcl.Family{})
	family.Register(fcsynth.Family{})
	family.Register(taubench.Family{})
	family.Register(arith.MultiStep{})
}
