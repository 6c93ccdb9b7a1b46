// Package runlog defines the machine-readable record of a sampled rollout
// that a run folder keeps beside its text samples, and writes and reads it.
//
// # Files
//
// Each evaluation of a run that saves rollouts writes
//
//	samples/<eval>.jsonl
//
// beside samples/<eval>.txt: one JSON object (a Sample) per line, in the
// order the rollouts were drawn. <eval> is the evaluation's tag
// ("warmstart", "step-000050", "final"). WriteSamples replaces the file
// atomically, so a reader never sees a torn file; ReadSamples reads one.
//
// # Segments
//
// Segments splits a rollout.Trajectory into the spans a reader tells
// apart, in text order, covering every token exactly once:
//
//   - prompt: the first PromptLen tokens (loss mask 0);
//   - model: text the policy sampled (mask 1), outside tool calls;
//   - tool_call: a tool call the policy wrote, from its opening code tag
//     to its closing tag (mask 1; to the end of the run when the call was
//     cut off unclosed);
//   - tool_result: a result block the engine wrote, output tags included
//     (mask 0);
//   - user_turn: a later user message of a conversation (mask 0).
//
// Segment boundaries fall on token boundaries: a tag that a token of a
// real tokenizer straddles moves the boundary to that token's edge, so
// the token counts of the segments always sum to the trajectory's length
// and the texts concatenate to the trajectory's decoded text (exactly, for
// a tokenizer whose decoding of a prefix is a prefix of the decoding).
// Masked is true for exactly the mask-0 segments, i.e. the tokens that
// never enter the loss. The k-th tool_result segment carries the status
// of the k-th call of Trajectory.Calls.
package runlog
