package trainer

import (
	"fmt"
	"strings"

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

// noteToolLibraries prints, when the run's tool is Python, one line
// saying what its code can import (toolLibraries, as describeLibraries
// words it); it prints nothing for any other tool.
func (r *Run) noteToolLibraries() {
	if libs := r.toolLibraries(); len(libs) > 0 {
		fmt.Fprintf(r.out, "python tool: %s\n", describeLibraries(libs))
	}
}

// describeLibraries words a Python tool's libraries (the interpreter
// first, then the preloaded libraries, as pysandbox.Sandbox.Libraries
// lists them) for the run log: "python 3.11.2 with the standard library,
// numpy 1.24.2, sympy 1.11.1".
func describeLibraries(libs []string) string {
	if len(libs) == 0 {
		return ""
	}
	return strings.Join(append([]string{libs[0] + " with the standard library"}, libs[1:]...), ", ")
}
