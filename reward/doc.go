// Package reward scores rollouts: the reward components of ARTIST
// (arXiv 2505.01441) and the one registry of components.
//
// Every component is a plain Func of a trajectory and its task, and reads
// only t.Response (the decoded text after the prompt, tool results included
// as output blocks written by the engine) and t.Calls. Tag names come from a
// format.Format, never from literals. The math components, with the
// paper's values (total at most 4 under DefaultWeights):
//
//	answer          2 if the final answer equals the gold answer, else 0
//	format_relaxed  0.125 per tag pair present (think, code, output, answer)
//	format_strict   0.5 if the response is think (code output think?)+ answer
//	tool_success    successful calls / calls, 0 without a call
//
// Every component, whatever task it judges, is in one registry: Register
// adds a Constructor under the name reward.weights uses, which builds the
// Func from an Env (the rollout format, the values the task family
// supplies, and the names the family allows). A Composite is a list of
// (name, function, weight) built from config by NewComposite; it returns
// the weighted total and each component on its own for logging. Unknown
// names are errors that list the valid ones.
//
// The components of one task family live in the family's package and
// register there: package bfcl registers fc_state, fc_function and
// fc_format (see bfcl.FC), package taubench the taubench_* components.
// This package keeps the shared ones above and the registry.
//
// The answer component, Correct and Answers (the judge and voter of tasks
// with final answers) grade with the math grader, package mathgrade:
// mathgrade.Extract finds the final answer of a response, mathgrade.Equal
// compares it with the gold one under math equivalence.
package reward
