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
// Function calling (BFCL v3) registers fc_state (0.5 × matching state
// attributes), fc_function (0.5 × matched gold calls), both replaying the
// entries of the bfcl.Scope the family supplies (see FC), and fc_format
// (0.025 per tag pair, 0.1 more when the order is strict), which reads the
// format's think, code and output tags as reasoning, calls and results.
//
// tau-bench registers taubench_reward (the benchmark's 0/1 reward),
// taubench_state (1 when the final database is the gold one),
// taubench_function (share of gold actions matched), taubench_outputs
// (share of required outputs said) and taubench_format (share of well
// formed actions, 0 with none), each replaying the trajectory's episode on
// the *taubench.Set the family supplies.
//
// The answer component, Correct and Answers (the judge and voter of tasks
// with final answers) grade with the math grader, package mathgrade:
// mathgrade.Extract finds the final answer of a response, mathgrade.Equal
// compares it with the gold one under math equivalence.
package reward
