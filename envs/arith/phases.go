package arith

import (
	"fmt"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/family"
)

var _ family.PhaseTeacher = Family{}

// opTools is the tool each operation needs, named and described unlike
// the seed library's (configs/library/arith-tools.json: product, share,
// leftover), which Stored names, so that the selector matches by meaning.
var opTools = map[Op]family.NeededTool{
	Mul: {
		Name:        "multiply",
		Description: "multiply returns a times b: the items in b groups of a items each.",
		Stored:      []string{"product"},
		Source: `// multiply returns a times b: the items in b groups of a items each.
//
//	multiply(4821, 37) == 178377
//	multiply(12, 0) == 0
func multiply(a, b int) int { return a * b }`,
	},
	Div: {
		Name:        "divide",
		Description: "divide returns total divided by n: how many each of n equal parts gets.",
		Stored:      []string{"share"},
		Source: `// divide returns total divided by n: how many each of n equal parts gets.
//
//	divide(84, 4) == 21
//	divide(6144, 96) == 64
func divide(total, n int) int { return total / n }`,
	},
	Mod: {
		Name:        "remainder",
		Description: "remainder returns what is left of total after taking out groups of size.",
		Stored:      []string{"leftover"},
		Source: `// remainder returns what is left of total after taking out groups of size.
//
//	remainder(84, 5) == 4
//	remainder(10, 2) == 0
func remainder(total, size int) int { return total % size }`,
	},
}

// opVerbs is how a subtask says each operation.
var opVerbs = map[Op]string{Mul: "Multiply %d by %d.", Div: "Divide %d by %d.", Mod: "Find the remainder of %d divided by %d."}

// PhaseTruth implements family.PhaseTeacher: the problem's two numbers,
// then its one operation, done by the operation's tool.
func (Family) PhaseTruth(t envs.Task) (family.PhaseTruth, bool) {
	p, ok := parseID(t.ID)
	if !ok {
		return family.PhaseTruth{}, false
	}
	tool := opTools[p.Op]
	tool.Stored = append([]string(nil), tool.Stored...)
	return family.PhaseTruth{
		Subtasks: []string{
			fmt.Sprintf("Read the numbers %d and %d.", p.A, p.B),
			fmt.Sprintf(opVerbs[p.Op], p.A, p.B),
		},
		Tools: []family.NeededTool{tool},
	}, true
}
