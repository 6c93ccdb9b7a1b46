package rollout

// A property test of Chat on real chat templates (testdata/templates, see
// its README.md): random multi-turn conversations with tool calls,
// parallel ones included, are built as the engine builds a trajectory (the
// opening prompt, the policy's text of each turn, then each tool and user
// turn's Continuation) and compared with the template's rendering of the
// whole conversation.

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/artist-rl/artist/chat"
	"github.com/artist-rl/artist/policy"
)

// realTemplate is a chat template of testdata/templates and what the
// property test knows of it.
type realTemplate struct {
	name   string
	file   string
	tokens chat.SpecialTokens
	// eot is what the template writes after an assistant message's
	// content (its end of turn); stop is the text of the token the policy
	// samples to end a turn (the tokenizer's EOS).
	eot, stop string
	// thinks: assistant turns open with a think block (Qwen3).
	thinks bool
	// parallel: the template renders an assistant message with several
	// tool calls (Llama 3.1's refuses one).
	parallel bool
	// qwen: the Qwen test tokenizer encodes the template's special tokens
	// (qwentest); qwen25 picks Qwen2.5's added tokens only.
	qwen, qwen25 bool
}

var realTemplates = []realTemplate{
	{name: "qwen2.5", file: "qwen2.5-instruct.jinja", tokens: chat.SpecialTokens{EOS: "<|im_end|>", PAD: "<|endoftext|>"},
		eot: "<|im_end|>\n", stop: "<|im_end|>", parallel: true, qwen: true, qwen25: true},
	{name: "qwen3", file: "qwen3.jinja", tokens: chat.SpecialTokens{EOS: "<|im_end|>", PAD: "<|endoftext|>"},
		eot: "<|im_end|>\n", stop: "<|im_end|>", thinks: true, parallel: true, qwen: true},
	{name: "llama3.1", file: "llama-3.1-instruct.jinja", tokens: chat.SpecialTokens{BOS: "<|begin_of_text|>", EOS: "<|eot_id|>"},
		eot: "<|eot_id|>", stop: "<|eot_id|>"},
	{name: "mistral-v0.3", file: "mistral-7b-instruct-v0.3.jinja", tokens: chat.SpecialTokens{BOS: "<s>", EOS: "</s>", UNK: "<unk>"},
		eot: "</s>", stop: "</s>", parallel: true},
}

func (rt realTemplate) load(t *testing.T) *chat.Template {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "templates", rt.file))
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := chat.New(string(src), rt.tokens)
	if err != nil {
		t.Fatalf("%s: %v", rt.name, err)
	}
	return tmpl
}

// convTools are the function schemas of the random conversations.
var convTools = []json.RawMessage{
	json.RawMessage(`{"type": "function", "function": {"name": "get_weather", "description": "Current weather of a city.", "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, "required": ["city"]}}}`),
	json.RawMessage(`{"type": "function", "function": {"name": "add", "description": "Adds two integers.", "parameters": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}}}`),
	json.RawMessage(`{"type": "function", "function": {"name": "search", "description": "Searches the notes.", "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}}}`),
}

var convWords = []string{"the", "sum", "is", "Paris", "rain", "of", "notes", "42", "then", "check", "I", "will", "call", "it's", "café", "x+y", "(ok)", "\"quoted\"", "done.", "next:"}

// convGen draws random conversations.
type convGen struct {
	rng    *rand.Rand
	thinks bool
	ids    int
}

func (g *convGen) words(lo, hi int) string {
	n := lo + g.rng.Intn(hi-lo+1)
	w := make([]string, n)
	for i := range w {
		w[i] = convWords[g.rng.Intn(len(convWords))]
		if i > 0 && g.rng.Intn(8) == 0 {
			w[i] = "\n" + w[i]
		}
	}
	return strings.Join(w, " ")
}

// callID is a 9-character alphanumeric id, as Mistral's templates want.
func (g *convGen) callID() string {
	g.ids++
	return fmt.Sprintf("call%05d", g.ids)
}

func (g *convGen) call() chat.ToolCall {
	var name, args string
	switch g.rng.Intn(3) {
	case 0:
		name = "get_weather"
		args = fmt.Sprintf(`{"city": %q}`, g.words(1, 2))
		if g.rng.Intn(2) == 0 {
			args = fmt.Sprintf(`{"city": %q, "unit": "celsius"}`, g.words(1, 1))
		}
	case 1:
		name, args = "add", fmt.Sprintf(`{"a": %d, "b": %d}`, g.rng.Intn(100), g.rng.Intn(1000)-500)
	default:
		name, args = "search", fmt.Sprintf(`{"query": %q}`, g.words(1, 4))
	}
	return chat.ToolCall{ID: g.callID(), Type: "function", Function: chat.FunctionCall{Name: name, Arguments: json.RawMessage(args)}}
}

// assistant is an assistant message: with Qwen3 a think block (empty
// sometimes) before its text.
func (g *convGen) assistant(text string, calls []chat.ToolCall) chat.Message {
	if g.thinks {
		reasoning := ""
		if g.rng.Intn(4) > 0 {
			reasoning = g.words(1, 6)
		}
		text = "<think>\n" + reasoning + "\n</think>\n\n" + text
	}
	return chat.Message{Role: "assistant", Content: text, ToolCalls: calls}
}

// conversation is a random conversation as a chat client holds it: an
// optional system message, then rounds of a user message, tool steps
// (an assistant message with one or several calls, optionally after
// text, then one tool message per call, in order) and an answer.
// parallel allows several calls in one assistant message.
func (g *convGen) conversation(parallel bool) []chat.Message {
	var msgs []chat.Message
	if g.rng.Intn(2) == 0 {
		msgs = append(msgs, chat.Message{Role: "system", Content: "You are a careful assistant. " + g.words(0, 4)})
	}
	for range 1 + g.rng.Intn(3) {
		msgs = append(msgs, chat.Message{Role: "user", Content: g.words(1, 8) + "?"})
		for range g.rng.Intn(3) {
			n := 1
			if parallel && g.rng.Intn(3) == 0 {
				n = 2 + g.rng.Intn(2)
			}
			calls := make([]chat.ToolCall, n)
			for i := range calls {
				calls[i] = g.call()
			}
			text := ""
			if g.rng.Intn(2) == 0 {
				text = g.words(1, 6)
			}
			msgs = append(msgs, g.assistant(text, calls))
			for _, c := range calls {
				result := g.words(1, 5)
				if g.rng.Intn(3) == 0 {
					result = fmt.Sprintf(`{"result": %q}`, result)
				}
				msgs = append(msgs, chat.Message{Role: "tool", Content: result, ToolCallID: c.ID})
			}
		}
		msgs = append(msgs, g.assistant(g.words(1, 10), nil))
	}
	return msgs
}

// sequential splits every assistant message with several calls into one
// message per call, each followed by its result, the text going with the
// first: the conversation the engine holds, which pauses at each call.
func sequential(msgs []chat.Message) []chat.Message {
	var out []chat.Message
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role != "assistant" || len(m.ToolCalls) < 2 {
			out = append(out, m)
			continue
		}
		for k, c := range m.ToolCalls {
			one := chat.Message{Role: "assistant", ToolCalls: []chat.ToolCall{c}}
			if k == 0 {
				one.Content = m.Content
			}
			out = append(out, one, msgs[i+1+k])
		}
		i += len(m.ToolCalls)
	}
	return out
}

// policyText is what the template writes for the assistant message m
// after msgs, between the generation prompt and the end of the turn: the
// text a policy trained on the template writes for m.
func policyText(rt realTemplate, tmpl *chat.Template, tools []json.RawMessage, msgs []chat.Message, m chat.Message) (string, error) {
	before, err := tmpl.Render(msgs, chat.Options{Tools: tools, AddGenerationPrompt: true})
	if err != nil {
		return "", err
	}
	after, err := tmpl.Render(append(slices.Clone(msgs), m), chat.Options{Tools: tools})
	if err != nil {
		return "", err
	}
	if !strings.HasPrefix(after, before) || !strings.HasSuffix(after, rt.eot) || len(after)-len(rt.eot) < len(before) {
		return "", fmt.Errorf("the assistant message is not written after the generation prompt and before %q:\n%q\n%q", rt.eot, before, after)
	}
	return after[len(before) : len(after)-len(rt.eot)], nil
}

// chunk is one piece of a trajectory: the prompt, the policy's text of a
// turn, the stop token it ended the turn with, or a tool or user turn the
// engine appended. msg is the index of the message it belongs to.
type chunk struct {
	text string
	kind Kind
	msg  int
	stop bool // the policy's stop token: one id
}

// engineChunks builds the trajectory of the sequential conversation seq as
// the engine does (promptText, then per turn the policy's text, pushTurn
// of ToolTurn or UserTurn after afterStop): c renders, said[i] is the
// policy's text of assistant message i. It returns the chunks and the
// messages the engine records (w.msgs: assistant messages as their text,
// tool messages as their result), which checkTemplate renders.
func engineChunks(rt realTemplate, c *Chat, seq []chat.Message, said map[int]string) ([]chunk, []chat.Message, error) {
	first := 0
	if seq[0].Role == "system" {
		first = 1
	}
	prompt, err := c.Prompt(seq[first].Content)
	if err != nil {
		return nil, nil, err
	}
	chunks := []chunk{{text: prompt, kind: KindPrompt, msg: first}}
	recorded := slices.Clone(seq[:first+1])
	for i := first + 1; i < len(seq); i++ {
		m := seq[i]
		switch m.Role {
		case "assistant":
			chunks = append(chunks, chunk{text: said[i], kind: KindModel, msg: i})
			if len(m.ToolCalls) == 0 { // the policy ends its turn with the stop token
				chunks = append(chunks, chunk{text: rt.stop, kind: KindModel, msg: i, stop: true})
			}
			recorded = append(recorded, chat.Message{Role: "assistant", Content: said[i]})
		case "tool":
			text, err := c.ToolTurn(m.Content)
			if err != nil {
				return nil, nil, err
			}
			chunks = append(chunks, chunk{text: text, kind: KindToolResult, msg: i})
			recorded = append(recorded, chat.Message{Role: "tool", Content: m.Content})
		case "user":
			text, err := c.UserTurn(m.Content)
			if err != nil {
				return nil, nil, err
			}
			chunks = append(chunks, chunk{text: strings.TrimPrefix(text, rt.stop), kind: KindUser, msg: i})
			recorded = append(recorded, m)
		}
	}
	return chunks, recorded, nil
}

// split is where a trajectory leaves a reference rendering: at chunk
// k, off units (bytes or tokens) into it; k is -1 when the trajectory is
// a prefix of the reference.
type split struct {
	k, off int
}

// firstDiff is the split of units (per chunk) against ref.
func firstDiff[T comparable](units [][]T, ref []T) split {
	pos := 0
	for k, u := range units {
		for j, x := range u {
			if pos >= len(ref) || ref[pos] != x {
				return split{k, j}
			}
			pos++
		}
	}
	return split{-1, 0}
}

// textSplit and tokenSplit compare the chunks with ref's text and with
// tok's encoding of it (each chunk encoded alone, as the engine encodes
// what it appends; a stop chunk is the one stop token).
func textSplit(chunks []chunk, ref string) split {
	units := make([][]byte, len(chunks))
	for k, c := range chunks {
		units[k] = []byte(c.text)
	}
	return firstDiff(units, []byte(ref))
}

func tokenSplit(tok *policy.Tokenizer, chunks []chunk, ref string) split {
	units := make([][]int, len(chunks))
	for k, c := range chunks {
		units[k] = tok.Encode(c.text)
		if c.stop {
			units[k] = []int{tok.EOS()}
		}
	}
	return firstDiff(units, tok.Encode(ref))
}

// qwen3Rewritten is the first assistant message of recorded (the engine's
// messages) that Qwen3's template renders other than its text: one with
// a think block before the last user message (the template drops the
// block), or one with an empty think block after it that is not the last
// message (the template drops the empty block). -1 for none.
func qwen3Rewritten(recorded []chat.Message) int {
	lastUser := -1
	for i, m := range recorded {
		if m.Role == "user" {
			lastUser = i
		}
	}
	for i, m := range recorded {
		if m.Role != "assistant" || !strings.Contains(m.Content, "</think>") {
			continue
		}
		empty := strings.HasPrefix(m.Content, "<think>\n\n</think>")
		if i < lastUser || (empty && i < len(recorded)-1) {
			return i
		}
	}
	return -1
}

// firstParallel is the index in seq of the first result of the first
// assistant message of msgs with several calls, -1 for none: where the
// engine's conversation first leaves the client's (the engine ends the
// assistant turn at the first call; the client's message goes on with
// the next call).
func firstParallel(msgs, seq []chat.Message) int {
	for i, m := range msgs {
		if m.Role == "assistant" && len(m.ToolCalls) > 1 {
			// seq holds msgs[:i] unchanged, then the first call and its result.
			return i + 1
		}
	}
	return -1
}
