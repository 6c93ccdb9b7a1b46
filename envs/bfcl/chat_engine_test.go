package bfcl

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/artist-rl/artist/chat"
	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/internal/qwentest"
	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// qwenTokenizer loads the test tokenizer (internal/qwentest), whose
// end of turn is <|im_end|>.
func qwenTokenizer(t *testing.T) *policy.Tokenizer {
	t.Helper()
	path, err := qwentest.Unpack(t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := policy.LoadTokenizer(path)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// scripted writes one fixed text per turn of the conversation (after the
// prompt and after each tool or user turn the engine appends), then its
// end-of-turn token.
type scripted struct {
	segs [][]int
	eos  int
	V    int
}

type scriptedSession struct {
	p        *scripted
	seg, pos []int
}

func (p *scripted) NewSession(n, _ int) rollout.Session {
	s := &scriptedSession{p: p, seg: make([]int, n), pos: make([]int, n)}
	for i := range s.seg {
		s.seg[i] = -1
	}
	return s
}

func (p *scripted) Context() int { return 0 }

func (s *scriptedSession) Step(feed [][]int) ([][]float32, error) {
	out := make([][]float32, len(feed))
	for i, f := range feed {
		if len(f) == 0 {
			continue
		}
		if len(f) > 1 {
			s.seg[i]++
			s.pos[i] = 0
		} else {
			s.pos[i]++
		}
		next := s.p.eos
		if k := s.seg[i]; k < len(s.p.segs) && s.pos[i] < len(s.p.segs[k]) {
			next = s.p.segs[k][s.pos[i]]
		}
		out[i] = make([]float32, s.p.V)
		out[i][next] = 50
	}
	return out, nil
}

// TestChatTemplateToolCalls: a BFCL task under Qwen2.5's chat template
// is presented as a chat client presents it (the functions as the
// template's tools, not as documentation lines in the user message); a
// call in the template's own syntax (<tool_call> JSON) runs in the
// session; and the trajectory's Response transcribes the conversation in
// the format's tags, so fc_format scores it as it scores a plain rollout.
func TestChatTemplateToolCalls(t *testing.T) {
	d := testData(t)
	entry := testEntries(t, "base")[0] // a file system under lab/ holding reports/
	tasks, err := Tasks(d, []Entry{entry}, TaskOptions{Docs: DocsJSON})
	if err != nil {
		t.Fatal(err)
	}
	task := tasks[0]
	task.Turns = nil // one turn is enough here
	tok := qwenTokenizer(t)
	f := format.Format{Think: "reasoning", Code: "tool_call", Output: "tool_result", Answer: "answer"}
	c := &rollout.Chat{Template: chat.Fallback(chat.SpecialTokens{EOS: "<|im_end|>", PAD: "<|endoftext|>"}), System: "Think first.", Adapter: Chat{}}
	if err := c.Check(tok); err != nil {
		t.Fatal(err)
	}
	segs := []string{
		"<reasoning>Go to the reports.</reasoning>\n<tool_call>\n{\"name\": \"cd\", \"arguments\": {\"folder\": \"reports\"}}\n</tool_call>",
		"<reasoning>Done.</reasoning>\nI am in the reports folder.",
	}
	p := &scripted{eos: tok.EOS(), V: tok.VocabSize()}
	for _, s := range segs {
		p.segs = append(p.segs, tok.Encode(s))
	}
	cfg := rollout.DefaultConfig()
	cfg.GroupSize, cfg.Temperature, cfg.MaxToolCalls, cfg.MaxResponseTokens = 1, 0, 4, 300
	e := &rollout.Engine{Policy: p, Tokenizer: tok, Tool: NewTool(d, []Entry{entry}), Format: f, Config: cfg, Chat: c}
	trajs, err := e.Run(context.Background(), []envs.Task{task}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr := trajs[0]
	prompt := tok.Decode(tr.Tokens[:tr.PromptLen])
	for _, want := range []string{"Think first.", "<tools>", `"name": "cd"`, "<tool_call>"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("prompt lacks %q:\n%s", want, prompt)
		}
	}
	if strings.Contains(prompt, "Functions:") {
		t.Errorf("the user message still holds the documentation lines:\n%s", prompt)
	}
	if len(tr.Calls) != 1 || tr.Calls[0].Result.Status != envs.StatusOK {
		t.Fatalf("calls %+v, want one cd that ran", tr.Calls)
	}
	text := tok.Decode(tr.Tokens)
	if !strings.Contains(text, "<tool_response>") || strings.Contains(text, "<tool_result>") {
		t.Errorf("the ids should hold the template's tool turn, not result tags:\n%s", text)
	}
	want := segs[0] + "<tool_result>"
	if !strings.HasPrefix(tr.Response, want) || !strings.HasSuffix(tr.Response, "</tool_result>\n"+segs[1]) {
		t.Errorf("Response %q, want the transcription %q ... </tool_result>\\n%q", tr.Response, want, segs[1])
	}
	score, _ := FormatFC(f)(tr, task)
	if math.Abs(score-(3*fcPerTag+fcStrictScore)) > 1e-12 {
		t.Errorf("fc_format %.3f, want the full %.3f", score, 3*fcPerTag+fcStrictScore)
	}
	if tr.TemplateDiffers {
		t.Errorf("the template renders this conversation other than its ids:\n%s", text)
	}
}
