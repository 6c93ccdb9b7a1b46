package policy

import (
	"errors"
	"fmt"
	"strings"
)

// Qwen2.5's chat format (ChatML): every turn is
//
//	<|im_start|>ROLE\nCONTENT<|im_end|>\n
//
// and the model writes its turn after "<|im_start|>assistant\n", ending it
// with <|im_end|> (the eos_token of Qwen2.5-Instruct's tokenizer_config.json).
// The functions below reproduce the chat_template of Qwen2.5-Instruct for
// conversations without a tool list.

// Message is one turn of a conversation.
type Message struct {
	Role    string // "system", "user", "assistant" or "tool"
	Content string
}

// QwenDefaultSystem is the system prompt Qwen2.5's chat template inserts
// when a conversation does not start with a system message.
const QwenDefaultSystem = "You are Qwen, created by Alibaba Cloud. You are a helpful assistant."

// Qwen chat markers, all single added tokens of the Qwen2.5 tokenizer.
const (
	ImStart = "<|im_start|>"
	ImEnd   = "<|im_end|>"
)

// ChatTemplate renders a conversation as Qwen2.5-Instruct's chat_template
// does (transformers' apply_chat_template with tokenize=False and no tools):
//
//   - a first system message becomes the system turn; without one, the turn
//     holds QwenDefaultSystem;
//   - user and assistant messages, and later system messages, become turns
//     of their role;
//   - consecutive tool messages share one user turn, each content wrapped as
//     "\n<tool_response>\n" + content + "\n</tool_response>";
//   - addGenerationPrompt appends "<|im_start|>assistant\n", the prefix the
//     model continues.
//
// Contents are inserted verbatim. An empty conversation or an unknown role
// is an error.
func ChatTemplate(msgs []Message, addGenerationPrompt bool) (string, error) {
	if len(msgs) == 0 {
		return "", errors.New("policy: chat template: no messages")
	}
	var b strings.Builder
	rest := msgs
	if len(msgs) > 0 && msgs[0].Role == "system" {
		writeTurn(&b, "system", msgs[0].Content)
		rest = msgs[1:]
	} else {
		writeTurn(&b, "system", QwenDefaultSystem)
	}
	for i, m := range rest {
		switch m.Role {
		case "system", "user", "assistant":
			writeTurn(&b, m.Role, m.Content)
		case "tool":
			if i == 0 || rest[i-1].Role != "tool" {
				b.WriteString(ImStart + "user")
			}
			b.WriteString("\n<tool_response>\n" + m.Content + "\n</tool_response>")
			if i == len(rest)-1 || rest[i+1].Role != "tool" {
				b.WriteString(ImEnd + "\n")
			}
		default:
			return "", fmt.Errorf("policy: chat template: message %d has role %q: want system, user, assistant or tool", i+len(msgs)-len(rest), m.Role)
		}
	}
	if addGenerationPrompt {
		b.WriteString(ImStart + "assistant\n")
	}
	return b.String(), nil
}

func writeTurn(b *strings.Builder, role, content string) {
	b.WriteString(ImStart + role + "\n" + content + ImEnd + "\n")
}

// ChatPrompt returns the prompt of a one-question chat: a system turn
// (QwenDefaultSystem when system is empty), the user turn, and the
// assistant prefix "<|im_start|>assistant\n". It equals ChatTemplate with
// those two messages and addGenerationPrompt true. A rollout using it as its
// prompt renderer should stop at <|im_end|> (the tokenizer's EOS) and insert
// tool results inside the assistant turn, as plain text between its result
// tags.
func ChatPrompt(system, user string) string {
	if system == "" {
		system = QwenDefaultSystem
	}
	var b strings.Builder
	writeTurn(&b, "system", system)
	writeTurn(&b, "user", user)
	b.WriteString(ImStart + "assistant\n")
	return b.String()
}
