//go:build !linux || !(amd64 || arm64)

package pysandbox

import (
	"errors"
	"os"
	"os/exec"
)

// jail is never built outside Linux on amd64 or arm64.
type jail struct {
	runnerFilter []byte
	pidInsn      int
}

func newJail(Runtime) (*jail, error) {
	return nil, errors.New("pysandbox: the Python jail needs Linux (amd64 or arm64) with bubblewrap")
}

func (*jail) command() (*exec.Cmd, *os.File, error) { return nil, nil, errors.ErrUnsupported }
