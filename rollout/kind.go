package rollout

import "fmt"

// Kind says who wrote a token of a trajectory. The loss mask derives from
// it (Kind.Mask), so every consumer that tells the policy's tokens from
// the rest (the GRPO loss, grpo.mask_tool_output, run logs) reads one
// record. Kinds are stored as small integers: 1 prompt, 2 model, 3 tool
// call, 4 tool result, 5 user turn; 0 is invalid.
type Kind uint8

const (
	// KindPrompt is the rendered task prompt the trajectory starts with.
	KindPrompt Kind = iota + 1
	// KindModel is a token the policy sampled outside a tool call.
	KindModel
	// KindToolCall is a token the policy sampled as part of a tool call:
	// from the opening code tag to the closing one (tags style), the
	// call line (art style).
	KindToolCall
	// KindToolResult is written by the engine: a tool's result with the
	// text around it (result tags, or what the chat template puts between
	// an assistant turn and the next).
	KindToolResult
	// KindUser is a later user turn of a multi-turn task or an
	// envs.UserSession's reply, with the template's text around it.
	KindUser
)

var kindNames = [...]string{"invalid", "prompt", "model", "tool_call", "tool_result", "user"}

func (k Kind) valid() bool { return k >= KindPrompt && k <= KindUser }

// String returns the kind's name: prompt, model, tool_call, tool_result
// or user.
func (k Kind) String() string {
	if !k.valid() {
		return fmt.Sprintf("Kind(%d)", uint8(k))
	}
	return kindNames[k]
}

// Sampled reports whether the policy sampled tokens of kind k.
func (k Kind) Sampled() bool { return k == KindModel || k == KindToolCall }

// Mask is the loss mask of a token of kind k: 1 when the policy sampled
// it, else 0.
func (k Kind) Mask() uint8 {
	if k.Sampled() {
		return 1
	}
	return 0
}
