package rollout

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/artist-rl/artist/chat"
	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/internal/qwentest"
	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/rollout/format"
)

// qwenTokenizer loads the test tokenizer (internal/qwentest); qwen25
// keeps Qwen2.5's added tokens only, so it is Qwen2.5's tokenizer.
func qwenTokenizer(t *testing.T, qwen25 bool) *policy.Tokenizer {
	t.Helper()
	path, err := qwentest.Unpack(t.TempDir(), qwen25)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := policy.LoadTokenizer(path)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// idScript is a policy that writes fixed token ids: segment k after the
// k-th chunk the engine fed (the prompt, each tool or user turn), then
// EOS.
type idScript struct {
	segs [][]int
	eos  int
	V    int
}

type idSession struct {
	p        *idScript
	seg, pos []int
}

func (p *idScript) NewSession(n, _ int) Session {
	s := &idSession{p: p, seg: make([]int, n), pos: make([]int, n)}
	for i := range s.seg {
		s.seg[i] = -1
	}
	return s
}

func (p *idScript) Context() int { return 0 }

func (s *idSession) Step(feed [][]int) ([][]float32, error) {
	out := make([][]float32, len(feed))
	for i, f := range feed {
		if len(f) == 0 {
			continue
		}
		if len(f) > 1 { // the engine wrote a chunk: the next segment starts
			s.seg[i]++
			s.pos[i] = 0
		} else {
			s.pos[i]++
		}
		next := s.p.eos
		if k := s.seg[i]; k < len(s.p.segs) && s.pos[i] < len(s.p.segs[k]) {
			next = s.p.segs[k][s.pos[i]]
		}
		row := make([]float32, s.p.V)
		row[next] = 50
		out[i] = row
	}
	return out, nil
}

// runChat rolls out one task greedily with the scripted segments.
func runChat(t *testing.T, tok *policy.Tokenizer, c *Chat, task envs.Task, tool envs.Tool, segs ...string) *Trajectory {
	t.Helper()
	p := &idScript{eos: tok.EOS(), V: tok.VocabSize()}
	for _, s := range segs {
		p.segs = append(p.segs, tok.Encode(s))
	}
	cfg := DefaultConfig()
	cfg.GroupSize, cfg.Temperature, cfg.MaxToolCalls, cfg.MaxResponseTokens = 1, 0, 4, 200
	e := &Engine{Policy: p, Tokenizer: tok, Tool: tool, Format: format.DefaultFormat(), Config: cfg, Chat: c}
	if err := c.Check(tok); err != nil {
		t.Fatal(err)
	}
	trajs, err := e.Run(context.Background(), []envs.Task{task}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := trajs[0].Validate(); err != nil {
		t.Fatal(err)
	}
	return trajs[0]
}

var printTool = toolFunc(func(_ context.Context, in string) envs.Result {
	v := map[string]string{"fmt.Println(2+3)": "5\n", "fmt.Println(5*4)": "20\n", "fmt.Println(20-1)": "19\n"}[in]
	return envs.Result{Status: envs.StatusOK, Output: v}
})

// TestChatQwen25TokenInTokenOut: with Qwen2.5's chat template and
// tokenizer, the ids the engine builds for a conversation with three tool
// turns are the tokenization of the template's rendering of the same
// messages (system, user, then assistant and tool messages), followed by
// the final answer.
func TestChatQwen25TokenInTokenOut(t *testing.T) {
	tok := qwenTokenizer(t, true)
	if n := len(tok.Encode("<tool_response>")); n == 1 {
		t.Fatal("<tool_response> is one token: the tokenizer is not Qwen2.5's")
	}
	c := &Chat{Template: chat.Fallback(chat.SpecialTokens{EOS: "<|im_end|>", PAD: "<|endoftext|>"}), System: "Use the code tool."}
	segs := []string{"<think>add first</think><code>fmt.Println(2+3)</code>", "<code>fmt.Println(5*4)</code>", "Then subtract one: <code>fmt.Println(20-1)</code>", "<answer>19</answer>"}
	task := envs.Task{ID: "q", Prompt: "What is (2+3)*4-1?"}
	tr := runChat(t, tok, c, task, printTool, segs...)

	msgs := []chat.Message{{Role: "system", Content: c.System}, {Role: "user", Content: task.Prompt}}
	for k, out := range []string{"5\n", "20\n", "19\n"} {
		msgs = append(msgs, chat.Message{Role: "assistant", Content: segs[k]}, chat.Message{Role: "tool", Content: out})
	}
	text, err := c.Template.Render(msgs, chat.Options{AddGenerationPrompt: true})
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Concat(tok.Encode(text), tok.Encode(segs[3])) // the closing answer tag ends the rollout
	if !reflect.DeepEqual(tr.Tokens, want) {
		t.Fatalf("engine ids differ from the template's rendering\n got %q\nwant %q", tok.Decode(tr.Tokens), tok.Decode(want))
	}
	between := "<|im_end|>\n<|im_start|>user\n<tool_response>\n5\n\n</tool_response><|im_end|>\n<|im_start|>assistant\n"
	if !strings.Contains(tok.Decode(tr.Tokens), segs[0]+between+segs[1]) {
		t.Errorf("the first tool turn is not %q", between)
	}
	if len(tr.Calls) != 3 || tr.Stop != StopAnswer || tr.TemplateDiffers {
		t.Errorf("calls %d stop %s template differs %v, want 3 answer false", len(tr.Calls), tr.Stop, tr.TemplateDiffers)
	}
	runs := kindRuns(tr, tok)
	if !slices.Contains(runs, "tool_result:"+between) || !slices.Contains(runs, "tool_call:<code>fmt.Println(5*4)</code>") {
		t.Errorf("kinds %q: want the tool turn as tool_result and the call as tool_call", runs)
	}
}

// TestChatQwen3HistoryRewrite: Qwen3's template drops the <think> block
// of an assistant turn before a later user message. Under
// template_drift split (the default) the trajectory's first sequence
// keeps the ids the policy saw (the think block stays, the user turn
// follows the sampled <|im_end|> without a second one) and the rollout
// goes on in a second sequence (TestDriftQwen3Split checks it); a
// conversation the template does not rewrite is one sequence and says
// nothing.
func TestChatQwen3HistoryRewrite(t *testing.T) {
	tok := qwenTokenizer(t, false)
	tmpl, err := chat.Load(qwentest.Dir())
	if err != nil {
		t.Fatal(err)
	}
	c := &Chat{Template: tmpl}
	task := envs.Task{ID: "m", Prompt: "Hi", Turns: []string{"And then?"}}
	tr := runChat(t, tok, c, task, printTool, "<think>\nhm\n</think>\n\nHello.", "<think>\nok\n</think>\n\nBye.")
	if len(tr.Splits) != 1 {
		t.Fatalf("%d splits, want 1: Qwen3's template drops the first turn's think block", len(tr.Splits))
	}
	first := tr.Rows()[0]
	text := tok.Decode(first.Tokens)
	if !strings.HasSuffix(text, "<think>\nhm\n</think>\n\nHello.<|im_end|>\n<|im_start|>user\nAnd then?<|im_end|>\n<|im_start|>assistant\n") {
		t.Fatalf("first sequence reads %q: want the first turn's think block kept and one <|im_end|> before the user turn", text)
	}
	if kindRuns(first, tok)[2] != "user:\n<|im_start|>user\nAnd then?<|im_end|>\n<|im_start|>assistant\n" {
		t.Errorf("kinds %q: want the user turn as kind user", kindRuns(first, tok))
	}
	one := runChat(t, tok, c, envs.Task{ID: "s", Prompt: "Hi"}, printTool, "<think>\nhm\n</think>\n\nHello.")
	if one.TemplateDiffers || len(one.Splits) != 0 {
		t.Errorf("TemplateDiffers %v, %d splits for %q, which the template renders as it is", one.TemplateDiffers, len(one.Splits), tok.Decode(one.Tokens))
	}
}
