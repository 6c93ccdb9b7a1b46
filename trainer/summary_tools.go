package trainer

import (
	"github.com/artist-rl/artist/envs/pysandbox"
)

// toolLibraries is what the run's code tool lets the policy import, for
// summary.json: with tool.kind python, the interpreter and its version
// first, then each preloaded library with its version, as the sandbox's
// first worker reported them (pysandbox.Sandbox.Libraries); nil for any
// other tool.
func (r *Run) toolLibraries() []string {
	if s, ok := r.Tool.(*pysandbox.Sandbox); ok {
		return s.Libraries()
	}
	return nil
}
