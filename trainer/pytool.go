package trainer

import (
	"fmt"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/pysandbox"
)

// openPython builds the Python code tool of tool.kind python: jailed
// python3 workers with the limits of tool.sandbox and the runtime of
// tool.python. A library of Go functions (tool.library) does not apply;
// validateTool refuses one. close releases the workers. Libraries of the
// returned tool's *pysandbox.Sandbox lists what code can import, for the
// run's log and summary.
func openPython(c ToolConfig) (envs.Tool, func() error, error) {
	s, err := pysandbox.New(pysandbox.Config{Limits: c.Sandbox, Runtime: c.Python})
	if err != nil {
		return nil, nil, fmt.Errorf("trainer: tool: %w", err)
	}
	return s, s.Close, nil
}
