package family

import (
	"strings"

	"github.com/artist-rl/artist/envs"
)

// BlockResult is the result of a tool block whose calls gave outputs, in
// order: the outputs one per line, StatusError with Error holding the
// first output that failed reports as failed, else StatusOK. A family's
// session returns it for a block of several calls.
func BlockResult(outputs []string, failed func(output string) bool) envs.Result {
	res := envs.Result{Status: envs.StatusOK, Output: strings.Join(outputs, "\n")}
	for _, out := range outputs {
		if failed(out) {
			res.Status, res.Error = envs.StatusError, out
			break
		}
	}
	return res
}
