package family

import "github.com/artist-rl/artist/envs"

// PhaseTeacher is a Family that knows, from a task's ground truth, the
// correct replies of the ATLASS phases (package atlass) on it: how the
// task splits into subtasks and which tools solve it. The trainer writes
// warm-start demonstrations of the phases from it
// (tool.library.atlass.warm_fraction), so that a policy learns the
// phases' replies before it runs them inside GRPO rollouts. A family
// implements it optionally, next to Family.
type PhaseTeacher interface {
	// PhaseTruth returns the phases' ground truth for t, or ok false when
	// t is not a task the family can tell it for.
	PhaseTruth(t envs.Task) (truth PhaseTruth, ok bool)
}

// PhaseTruth is what the phases should conclude about one task.
type PhaseTruth struct {
	// Subtasks are the analyzer's reply: short imperative sentences, in
	// order, that together solve the task.
	Subtasks []string
	// Tools are the tool master's reply: the functions the solver should
	// call, none when the task needs no tool.
	Tools []NeededTool
}

// NeededTool is one tool a task needs.
type NeededTool struct {
	// Name is a Go identifier, and Description one sentence that says
	// what the tool computes from which inputs. A family should give
	// names that differ from its seed library's, so that a selector
	// trained on them learns to match by meaning, not by name.
	Name, Description string
	// Stored names the tools of the family's seed library that do the
	// same job: the selector's correct choice when the database offers
	// one of them (or a tool named Name) as a candidate, and none
	// otherwise.
	Stored []string
	// Source is the generator's reply when no stored tool matches: one
	// documented Go function named Name with at least two doc examples
	// ("//\tEXPR == WANT") that hold, as toollib verification requires.
	Source string
}
