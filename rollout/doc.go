// Package rollout samples trajectories from a policy that reasons with a
// tool, and records them for training.
//
// An Engine decodes Config.GroupSize trajectories per task. Each
// trajectory is one agent loop, a small state machine over a generator
// (a Completer: a row of the engine's continuous Batcher over the
// policy, or rollout servers):
//
//	generating -> calling tool -> generating ... -> done
//
// While generating, each decode step of the batch feeds one new token per
// ready row; rows that wait for a tool or a user hold no step. When the text
// the policy wrote since its last tool result ends with the closing code
// tag, the row pauses: decoding stops at the tag, so nothing the policy
// would have written next (an invented result, say) enters the text. The
// engine runs the code with an envs.Tool and appends the real result as
//
//	<output>result</output>\n
//
// (tag names from Format) with loss mask 0, then the row resumes. A row is
// done when it writes the closing answer tag (StopAnswer), samples the
// end-of-sequence token (StopEOS, the token kept with mask 1), spends its
// sampled-token budget (StopLength), or closes a code block after
// max_tool_calls calls (StopMaxTurns, the code not run).
//
// Conversations: a task with later user messages (envs.Task.Turns) goes
// on when the policy ends its turn with the closing answer tag or
// end-of-sequence: the engine appends the next message, rendered by
// Engine.UserTurn, with loss mask 0, tells the trajectory's tool session
// (envs.TurnSession), and the row generates again; each Call records its
// turn. The rollout stops when no message is left or a budget runs out.
//
// Users who react: with an envs.UserTool (a simulated customer), the next
// message comes from the trajectory's envs.UserSession instead of
// Task.Turns. At each end of turn the engine hands it what the policy said
// (the text since the last tool result or user message, without the stop
// token), asks for the replies of all waiting rows concurrently, as it
// runs calls, records each exchange in Trajectory.Replies and appends the
// reply (rendered by Engine.UserTurn, cut in the middle to
// max_result_tokens plus the rendering's own tokens) with loss mask 0,
// until the user ends the conversation or MaxReplies replies were given.
//
// Budgets: max_response_tokens counts only tokens the policy sampled; each
// result is cut in the middle to max_result_tokens tokens around
// TruncationMark; so a trajectory holds at most max_response_tokens +
// max_tool_calls × (max_result_tokens + output tag tokens) tokens after
// its prompt and user turns, which is the room each Session row gets
// beyond them (Engine.MaxLen).
//
// Sampling uses temperature and nucleus (top-p) filtering with one uniform
// number per token drawn from the trajectory's own stream (Streams), so a
// seed fixes the output however the rows are batched; temperature 0 is
// greedy. On a DeviceSession the batch draws on the device at the same
// numbers when its rows share the sampler. The log-prob recorded for
// a sampled token is log softmax(logits / T)[token] over the whole
// vocabulary at the sampling temperature T (Trajectory.LogProbs), and with
// top_p < 1 also over the renormalised nucleus it was drawn from
// (Trajectory.NucleusLogProbs), computed in float64 and stored as float32:
// the first is what the training path recomputes at the same temperature
// (policy.Model.SetTemperature) under the sampling weights.
//
// Tags are detected on decoded text, not token ids, so a tag may span
// several tokens of a real tokenizer.
//
// Remote is the engine against a policy behind an OpenAI-compatible
// completions server (package openai) whose tokens are not known: its
// generator sends text and its tokens are pieces of the text the server
// returns, so the agent loop is the same one, and a remote rollout of a
// deterministic server equals the engine's.
//
// Demo is a worked solution in the same text, written by a task family
// for the warm start: its segments alternate the policy's text and the
// text the policy does not write (tool results, later user turns).
package rollout
