package family

import (
	"fmt"

	"github.com/artist-rl/artist/envs"
)

// SandboxOnly is embedded by a Family whose calls all run in the sandbox:
// it supplies ToolKinds.
type SandboxOnly struct{}

// ToolKinds implements Family: Go code in the sandbox.
func (SandboxOnly) ToolKinds() []string { return []string{SandboxTool} }

// Generated is embedded by the Set of a family whose tasks a sampler
// draws and the sandbox serves (SandboxOnly): it supplies Train, Heldout,
// TaskSeed, Tool (the family has no tool of its own) and Supplies (its
// reward components need only the format).
type Generated struct {
	Family  string       // the family's name, for errors
	Sampler envs.Sampler // training draws
	Tasks   []envs.Task  // the held-out split
	Seed    int64        // TaskSeed
}

// Train implements Set.
func (g *Generated) Train() envs.Sampler { return g.Sampler }

// Heldout implements Set.
func (g *Generated) Heldout() []envs.Task { return g.Tasks }

// TaskSeed implements Set.
func (g *Generated) TaskSeed() int64 { return g.Seed }

// Tool implements Set: every kind but the sandbox is refused.
func (g *Generated) Tool(kind string) (envs.Tool, error) {
	return nil, fmt.Errorf("%s: no tool of kind %q: use tool.kind: %s", g.Family, kind, SandboxTool)
}

// Supplies implements Set: nothing beyond the format.
func (*Generated) Supplies() []any { return nil }
