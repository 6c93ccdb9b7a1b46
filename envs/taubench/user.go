package taubench

import (
	"context"
	"errors"
	"strings"
)

// StopMarker is the text whose presence anywhere in a user reply ends the
// episode.
const StopMarker = "###STOP###"

// Greeting stands for the agent's opening line in the simulated user's
// own history; the real agent never sees it.
const Greeting = "Hi! How can I help you today?"

// IsStop reports whether a user utterance ends the episode.
func IsStop(utterance string) bool { return strings.Contains(utterance, StopMarker) }

// User is the simulated customer of an episode.
type User interface {
	// Start begins a conversation on a task instruction and returns the
	// user's first utterance.
	Start(ctx context.Context, instruction string) (string, error)
	// Reply returns the user's answer to the agent's message. A reply that
	// contains StopMarker ends the episode.
	Reply(ctx context.Context, message string) (string, error)
}

// ScriptedUser replays fixed utterances: Start returns the first, each
// Reply the next, and once they are used up every Reply is StopMarker.
// With no utterances Start returns StopMarker too.
type ScriptedUser struct {
	Utterances []string
	next       int
	// Heard records the agent messages the user received.
	Heard []string
}

// Start implements User.
func (s *ScriptedUser) Start(context.Context, string) (string, error) {
	s.next, s.Heard = 0, nil
	return s.pop(), nil
}

// Reply implements User.
func (s *ScriptedUser) Reply(_ context.Context, message string) (string, error) {
	s.Heard = append(s.Heard, message)
	return s.pop(), nil
}

func (s *ScriptedUser) pop() string {
	if s.next >= len(s.Utterances) {
		return StopMarker
	}
	s.next++
	return s.Utterances[s.next-1]
}

// ChatMessage is one message of a chat-completion request.
type ChatMessage struct {
	Role    string `json:"role"` // "system", "user" or "assistant"
	Content string `json:"content"`
}

// ChatFunc sends chat messages to a language model and returns its reply
// text. The caller supplies it (an OpenAI-compatible client, a local
// policy); it must not keep or change the slice.
type ChatFunc func(ctx context.Context, messages []ChatMessage) (string, error)

// LLMUser is a user simulated by a language model. Its history has the
// roles reversed: the system message is Prompt(instruction), then Greeting
// as a "user" message; each model reply is appended as "assistant" and
// returned as the customer's utterance, and each agent message is
// appended as "user" before the next call.
type LLMUser struct {
	Chat ChatFunc
	// Prompt builds the system prompt; nil means UserPrompt.
	Prompt func(instruction string) string

	history []ChatMessage
}

// Start implements User.
func (u *LLMUser) Start(ctx context.Context, instruction string) (string, error) {
	if u.Chat == nil {
		return "", errors.New("taubench: LLMUser.Chat is nil: set it to a function that calls the user model")
	}
	prompt := u.Prompt
	if prompt == nil {
		prompt = UserPrompt
	}
	u.history = []ChatMessage{{Role: "system", Content: prompt(instruction)}, {Role: "user", Content: Greeting}}
	return u.call(ctx)
}

// Resume begins a conversation whose first utterance is already known
// (it was generated once for the task and shared by every trial): the
// history is as Start would leave it had the model said first.
func (u *LLMUser) Resume(instruction, first string) {
	prompt := u.Prompt
	if prompt == nil {
		prompt = UserPrompt
	}
	u.history = []ChatMessage{{Role: "system", Content: prompt(instruction)}, {Role: "user", Content: Greeting}, {Role: "assistant", Content: first}}
}

// Reply implements User.
func (u *LLMUser) Reply(ctx context.Context, message string) (string, error) {
	if u.history == nil {
		return "", errors.New("taubench: LLMUser.Reply before Start")
	}
	u.history = append(u.history, ChatMessage{Role: "user", Content: message})
	return u.call(ctx)
}

func (u *LLMUser) call(ctx context.Context) (string, error) {
	reply, err := u.Chat(ctx, append([]ChatMessage(nil), u.history...))
	if err != nil {
		return "", err
	}
	u.history = append(u.history, ChatMessage{Role: "assistant", Content: reply})
	return reply, nil
}

// History returns a copy of the simulator's own chat history.
func (u *LLMUser) History() []ChatMessage { return append([]ChatMessage(nil), u.history...) }

// UserPrompt is the system prompt of the simulated customer, written for
// this project. It asks the model to play the customer of the
// instruction, one short message at a time, to reveal details only when
// they are needed, to invent nothing the instruction does not give, not to
// recite the instruction, to keep the persona, and to send StopMarker
// alone once the goal is met.
func UserPrompt(instruction string) string {
	var b strings.Builder
	b.WriteString("You are playing a customer who is chatting with a customer-service agent. The agent speaks to you; you answer as the customer.\n")
	if instruction != "" {
		b.WriteString("\nYour situation and goal:\n" + instruction + "\n")
	}
	b.WriteString(`
How to play:
- Write one short message per turn, as a real customer would type it.
- Share details only when the agent needs them for the current step; do not reveal your whole situation at once.
- Never invent facts your situation does not give. If the agent asks for something you were not told (an order number, a date), say that you do not know or do not have it.
- Put things in your own words rather than repeating the text of your situation.
- Keep the personality and preferences your situation describes, and stay in character.
- When your goal has been fully met, reply with ` + StopMarker + ` alone, with nothing else in the message.`)
	return b.String()
}
