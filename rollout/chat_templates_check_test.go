package rollout

// A property test of Chat on real chat templates (testdata/templates, see
// its README.md): random multi-turn conversations with tool calls,
// parallel ones included, are built as the engine builds a trajectory (the
// opening prompt, the policy's text of each turn, then each tool and user
// turn's Continuation) and compared with the template's rendering of the
// whole conversation.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/artist-rl/artist/chat"
	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/rollout/format"
)

// TestChatRealTemplatesRender: each template of testdata/templates
// renders a conversation with tool calls, and Check takes it for the
// engine, but Mistral's: its template has no generation prompt (the
// policy's text follows [/INST] directly), which CheckGeneration refuses.
func TestChatRealTemplatesRender(t *testing.T) {
	g := &convGen{rng: rand.New(rand.NewSource(1))}
	for _, rt := range realTemplates {
		tmpl := rt.load(t)
		msgs := g.conversation(false)
		if _, err := tmpl.Render(msgs, chat.Options{Tools: convTools}); err != nil {
			t.Errorf("%s: %v", rt.name, err)
		}
		err := tmpl.CheckGeneration(chat.Options{Tools: convTools})
		if (err != nil) != (rt.name == "mistral-v0.3") {
			t.Errorf("%s: CheckGeneration: %v", rt.name, err)
		}
	}
}

// TestChatLlamaTrimsAssistantText: Llama 3.1's template trims every
// message's content, so an assistant turn whose text the policy ends (or
// starts) with whitespace is rendered without it: the trajectory keeps
// the sampled text and TemplateDiffers is set. The random conversations
// of the property test write assistant text as the template renders it,
// trimmed.
func TestChatLlamaTrimsAssistantText(t *testing.T) {
	tmpl := realTemplates[2].load(t)
	c := &Chat{Template: tmpl}
	prompt, err := c.Prompt("Hi")
	if err != nil {
		t.Fatal(err)
	}
	turn, err := c.UserTurn("And then?")
	if err != nil {
		t.Fatal(err)
	}
	for _, said := range []string{"Hello.", "Hello.\n", "\nHello."} {
		// The policy's <|eot_id|> ends its turn; the engine appends the
		// user turn after it (afterStop).
		traj := prompt + said + "<|eot_id|>" + strings.TrimPrefix(turn, "<|eot_id|>")
		msgs := []chat.Message{{Role: "user", Content: "Hi"}, {Role: "assistant", Content: said}, {Role: "user", Content: "And then?"}}
		whole, err := tmpl.Render(msgs, chat.Options{AddGenerationPrompt: true})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := strings.HasPrefix(whole, traj), said == strings.TrimSpace(said); got != want {
			t.Errorf("text %q: the rendering starts with the trajectory: %v, want %v\n%q\n%q", said, got, want, traj, whole)
		}
	}
}

// TestChatRealTemplatesProperty: for each real template and several
// hundred random conversations (tool calls, parallel ones, several user
// turns; Qwen3's assistant turns open with a think block, empty at
// times), the trajectory the engine builds (engineChunks: the opening
// prompt, the policy's text of each turn as the template writes that
// assistant message, each tool result's ToolTurn and each later user
// message's UserTurn, in order; TestChatRealTemplatesEngine checks that
// the engine builds the same ids) is compared with the template's
// rendering of
//
//   - recorded: the messages the engine records, assistant turns as their
//     text (what checkTemplate renders),
//   - sequential: the conversation with one call per assistant message,
//     as tool_calls, each result a tool message with its call's id,
//   - client: the conversation as a client holds it, parallel calls in one
//     assistant message followed by one tool message per call, in order.
//
// The Qwen templates are compared as token ids (the Qwen test tokenizer,
// each chunk encoded alone as the engine encodes it), Llama 3.1 and
// Mistral as text. The test asserts, per template:
//
//   - Qwen2.5 and Llama 3.1: recorded and sequential are append-only (the
//     trajectory is a prefix of the rendering, so TemplateDiffers stays
//     false); client is append-only without parallel calls. With them,
//     Qwen2.5's rendering splits exactly at the first result of the first
//     parallel turn (the engine ends the assistant turn at its first call,
//     the client's message goes on with the next call and groups the
//     results in one user turn); Llama 3.1's template refuses the
//     conversation ("This model only supports single tool-calls at
//     once!").
//   - Qwen3: each rendering splits exactly at the start of the first
//     assistant turn the template rewrites (qwen3Rewritten: one with a
//     think block before the last user message, whose block it drops, or
//     one with an empty think block after it that is not the last message,
//     whose empty block it drops), or at the first parallel result if that
//     comes first; append-only when there is neither.
//   - Mistral v0.3 (which the engine refuses: no generation prompt): with
//     a later user message every rendering splits in the prompt, since
//     the template writes the tools block before the last user message;
//     otherwise the recorded messages split in the first assistant turn,
//     since the template writes " " around an assistant message's text.
func TestChatRealTemplatesProperty(t *testing.T) {
	const cases = 300
	for _, rt := range realTemplates {
		t.Run(rt.name, func(t *testing.T) {
			tmpl := rt.load(t)
			var tok *policy.Tokenizer
			if rt.qwen {
				tok = qwenTokenizer(t, rt.qwen25)
			}
			g := &convGen{rng: rand.New(rand.NewSource(40)), thinks: rt.thinks}
			stats := map[string]int{}
			for n := range cases {
				msgs := g.conversation(true)
				checkConversation(t, rt, tmpl, tok, msgs, stats)
				if t.Failed() {
					t.Fatalf("case %d: %s", n, convString(msgs))
				}
			}
			t.Logf("%s over %d conversations: %v", rt.name, cases, stats)
		})
	}
}

func convString(msgs []chat.Message) string {
	b, _ := json.MarshalIndent(msgs, "", " ")
	return string(b)
}

// expectSplit is where a comparison should split: msg -1 for
// append-only, else the chunk of message msg and kind, at its start.
type expectSplit struct {
	msg  int
	kind Kind
}

// earlier is the earlier of two expected splits.
func earlier(a, b expectSplit) expectSplit {
	if a.msg < 0 || (b.msg >= 0 && b.msg < a.msg) {
		return b
	}
	return a
}

var appendOnly = expectSplit{msg: -1}

func checkConversation(t *testing.T, rt realTemplate, tmpl *chat.Template, tok *policy.Tokenizer, msgs []chat.Message, stats map[string]int) {
	t.Helper()
	seq := sequential(msgs)
	c := &Chat{Template: tmpl, Tools: convTools}
	if seq[0].Role == "system" {
		c.System = seq[0].Content
	}
	said := map[int]string{}
	for i, m := range seq {
		if m.Role != "assistant" {
			continue
		}
		text, err := policyText(rt, tmpl, convTools, seq[:i], m)
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		said[i] = text
	}
	chunks, recorded, err := engineChunks(rt, c, seq, said)
	if err != nil {
		t.Fatal(err)
	}
	compare := func(ref string) split {
		if tok != nil {
			return tokenSplit(tok, chunks, ref)
		}
		return textSplit(chunks, ref)
	}
	where := func(s split) string {
		if s.k < 0 {
			return "append-only"
		}
		ch := chunks[s.k]
		return fmt.Sprintf("message %d (%s, %s) +%d", ch.msg, seq[ch.msg].Role, ch.kind, s.off)
	}
	class := func(s split) string {
		if s.k < 0 {
			return "append-only"
		}
		if s.off > 0 {
			return fmt.Sprintf("inside a %s chunk", chunks[s.k].kind)
		}
		return fmt.Sprintf("at a %s chunk", chunks[s.k].kind)
	}
	users, firstAssistant := 0, -1
	for i, m := range seq {
		if m.Role == "user" {
			users++
		}
		if m.Role == "assistant" && firstAssistant < 0 {
			firstAssistant = i
		}
	}
	parallel := expectSplit{msg: firstParallel(msgs, seq), kind: KindToolResult}
	rewritten := appendOnly
	if rt.thinks {
		rewritten = expectSplit{msg: qwen3Rewritten(recorded), kind: KindModel}
	}

	refs := []struct {
		name string
		msgs []chat.Message
		want expectSplit
	}{
		// The engine's own messages, which checkTemplate renders.
		{"recorded", recorded, rewritten},
		// One call per assistant message, each with its tool_calls.
		{"sequential", seq, rewritten},
		// The conversation as a client holds it, parallel calls in one
		// assistant message.
		{"client", msgs, earlier(rewritten, parallel)},
	}
	for _, ref := range refs {
		text, err := tmpl.Render(ref.msgs, chat.Options{Tools: convTools})
		var raise *chat.RaiseError
		switch {
		case err != nil && !rt.parallel && ref.name == "client" && parallel.msg >= 0 && errors.As(err, &raise):
			stats[ref.name+": refused (parallel calls)"]++
			continue
		case err != nil:
			t.Fatalf("%s conversation: %v", ref.name, err)
		}
		s := compare(text)
		stats[ref.name+": "+class(s)]++
		if ref.name == "recorded" && rt.thinks && s.k >= 0 {
			if strings.HasPrefix(said[chunks[s.k].msg], "<think>\n\n</think>") {
				stats["recorded: empty think block dropped"]++
			} else {
				stats["recorded: think block dropped"]++
			}
		}
		if rt.name == "mistral-v0.3" {
			// Mistral's template writes the tools block before the last
			// user message (a later user message moves it out of the
			// prompt) and " " around an assistant message's text, which
			// the engine's recorded text then holds twice.
			switch {
			case users > 1 && s.k != 0:
				t.Fatalf("%s conversation splits at %s, want in the prompt (the tools block moves to the last user message)", ref.name, where(s))
			case users == 1 && ref.name == "recorded" && (s.k < 0 || chunks[s.k].msg != firstAssistant):
				t.Fatalf("recorded conversation splits at %s, want in the first assistant turn (message %d)", where(s), firstAssistant)
			}
			continue
		}
		switch {
		case ref.want.msg < 0 && s.k >= 0:
			t.Fatalf("%s conversation splits at %s, want append-only", ref.name, where(s))
		case ref.want.msg >= 0 && (s.k < 0 || chunks[s.k].msg != ref.want.msg || chunks[s.k].kind != ref.want.kind || s.off != 0):
			t.Fatalf("%s conversation splits at %s, want at the start of message %d's %s", ref.name, where(s), ref.want.msg, ref.want.kind)
		}
		if ref.name == "recorded" {
			// checkTemplate: TemplateDiffers is set exactly when the
			// rendering does not start with the trajectory's text.
			differs := !strings.HasPrefix(text, joinChunks(chunks))
			if differs != (ref.want.msg >= 0) {
				t.Fatalf("TemplateDiffers would be %v, want %v", differs, ref.want.msg >= 0)
			}
		}
	}
}

func joinChunks(chunks []chunk) string {
	var b strings.Builder
	for _, c := range chunks {
		b.WriteString(c.text)
	}
	return b.String()
}

// TestChatRealTemplatesEngine drives the engine (Engine.Run with a
// scripted policy) through random conversations under the Qwen
// templates, with the Qwen test tokenizer and calls in the templates' own
// syntax (format.code tool_call): its ids are engineChunks' (the
// property test's trajectory), up to the turn after the first message the
// template rewrites, where the trajectory splits (template_drift split,
// the default) exactly when the template rewrites an earlier turn. A
// parallel turn is scripted as the client's whole message, all its
// calls: the engine pauses at the first closing </tool_call>, appends
// that call's result, and the policy writes the next call in a new
// assistant turn.
func TestChatRealTemplatesEngine(t *testing.T) {
	for _, rt := range realTemplates {
		if !rt.qwen {
			continue
		}
		t.Run(rt.name, func(t *testing.T) {
			tmpl := rt.load(t)
			tok := qwenTokenizer(t, rt.qwen25)
			g := &convGen{rng: rand.New(rand.NewSource(41)), thinks: rt.thinks}
			parallelTurns := 0
			for n := range 12 {
				msgs := g.conversation(true)
				parallelTurns += engineConversation(t, rt, tmpl, tok, msgs)
				if t.Failed() {
					t.Fatalf("case %d: %s", n, convString(msgs))
				}
			}
			if parallelTurns == 0 {
				t.Fatal("no conversation had a parallel turn")
			}
		})
	}
}

// engineConversation rolls out msgs with the engine and checks its ids;
// it returns the number of parallel turns.
func engineConversation(t *testing.T, rt realTemplate, tmpl *chat.Template, tok *policy.Tokenizer, msgs []chat.Message) int {
	t.Helper()
	seq := sequential(msgs)
	c := &Chat{Template: tmpl, Tools: convTools}
	first := 0
	if seq[0].Role == "system" {
		c.System, first = seq[0].Content, 1
	}
	task := envs.Task{ID: "c", Prompt: seq[first].Content}
	said := map[int]string{}
	var segs [][]int
	var results []string
	parallelTurns := 0
	for i, m := range seq {
		switch m.Role {
		case "assistant":
			text, err := policyText(rt, tmpl, convTools, seq[:i], m)
			if err != nil {
				t.Fatal(err)
			}
			said[i] = text
			segs = append(segs, tok.Encode(text))
		case "tool":
			results = append(results, m.Content)
		case "user":
			if i > first {
				task.Turns = append(task.Turns, m.Content)
			}
		}
	}
	// Script each parallel turn as the client's whole message.
	k := 0
	for i, m := range msgs {
		if m.Role != "assistant" {
			continue
		}
		if len(m.ToolCalls) > 1 {
			whole, err := policyText(rt, tmpl, convTools, msgs[:i], m)
			if err != nil {
				t.Fatal(err)
			}
			segs[k] = tok.Encode(whole)
			parallelTurns++
		}
		k += max(1, len(m.ToolCalls))
	}
	calls := 0
	tool := toolFunc(func(_ context.Context, in string) envs.Result {
		calls++
		return envs.Result{Status: envs.StatusOK, Output: results[calls-1]}
	})
	cfg := DefaultConfig()
	cfg.GroupSize, cfg.Temperature, cfg.MaxToolCalls, cfg.MaxResponseTokens, cfg.MaxResultTokens = 1, 0, 64, 4000, 1000
	f := format.Format{Think: "think", Code: "tool_call", Output: "tool_response", Answer: "answer"}
	e := &Engine{Policy: &idScript{segs: segs, eos: tok.EOS(), V: tok.VocabSize()}, Tokenizer: tok, Tool: tool, Format: f, Config: cfg, Chat: c}
	if err := c.Check(tok); err != nil {
		t.Fatal(err)
	}
	trajs, err := e.Run(context.Background(), []envs.Task{task}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr := trajs[0]
	if err := tr.Validate(); err != nil {
		t.Fatal(err)
	}
	chunks, recorded, err := engineChunks(rt, c, seq, said)
	if err != nil {
		t.Fatal(err)
	}
	var want []int
	for _, ch := range chunks {
		if ch.stop {
			want = append(want, tok.EOS())
			continue
		}
		want = append(want, tok.Encode(ch.text)...)
	}
	rewritten := -1
	if rt.thinks {
		rewritten = qwen3Rewritten(recorded)
	}
	// Under template_drift split (the default) a rewritten conversation
	// splits at the turn after the rewritten message: the first sequence
	// is the property test's trajectory up to there, and the last one
	// agrees with the template (TemplateDiffers stays false).
	got := tr.Rows()[0].Tokens
	if rewritten >= 0 {
		want = want[:min(len(want), len(got))]
	}
	if !slices.Equal(got, want) {
		t.Fatalf("engine ids differ from the property test's trajectory at %d\n got %q\nwant %q", firstDiff([][]int{got}, want).off, tok.Decode(got), tok.Decode(want))
	}
	if len(tr.Calls) != calls || calls != len(results) {
		t.Fatalf("%d calls recorded, %d run, %d in the conversation", len(tr.Calls), calls, len(results))
	}
	if (len(tr.Splits) > 0) != (rewritten >= 0) || tr.TemplateDiffers {
		t.Fatalf("%d splits, TemplateDiffers %v: want splits %v, false (rewritten message %d)", len(tr.Splits), tr.TemplateDiffers, rewritten >= 0, rewritten)
	}
	return parallelTurns
}
