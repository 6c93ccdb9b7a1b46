package rollout

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/artist-rl/artist/chat"
	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/internal/qwentest"
	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/rollout/format"
)

// Reset, Add and Size make an idSession Rows: after a reset the script
// goes on with its next segment when the new sequence's prompt is fed.
func (s *idSession) Reset(int) {}

func (s *idSession) Add() int {
	s.seg, s.pos = append(s.seg, -1), append(s.pos, 0)
	return len(s.seg) - 1
}

func (s *idSession) Size() int { return len(s.seg) }

// heldPolicy wraps a policy and records, per row, the tokens its session
// holds: what it was fed since the row was last reset.
type heldPolicy struct {
	Policy
	sess *heldSession
}

type heldSession struct {
	Rows
	held   [][]int
	resets int
}

func (p *heldPolicy) NewSession(n, maxLen int) Session {
	p.sess = &heldSession{Rows: p.Policy.NewSession(n, maxLen).(Rows), held: make([][]int, n)}
	return p.sess
}

func (s *heldSession) Step(feed [][]int) ([][]float32, error) {
	for i, f := range feed {
		s.held[i] = append(s.held[i], f...)
	}
	return s.Rows.Step(feed)
}

func (s *heldSession) Add() int {
	s.held = append(s.held, nil)
	return s.Rows.Add()
}

func (s *heldSession) Reset(i int) {
	s.held[i] = nil
	s.resets++
	s.Rows.Reset(i)
}

// driftScript is a tool turn after a think block, then a user turn: the
// conversation Qwen3's template re-renders at the user turn, dropping
// both earlier think blocks.
var driftScript = []string{
	"<think>\nadd\n</think>\n\n<code>fmt.Println(2+3)</code>",
	"<think>\nfive\n</think>\n\nIt is 5.",
	"<think>\nok\n</think>\n\nBye.",
}

// driftTask is driftScript's task: a question, then a later user turn.
var driftTask = envs.Task{ID: "d", Prompt: "Hi", Turns: []string{"And then?"}}

// driftMessages is driftScript's conversation up to the later user turn.
func driftMessages() []chat.Message {
	return []chat.Message{
		{Role: "user", Content: "Hi"},
		{Role: "assistant", Content: driftScript[0]}, {Role: "tool", Content: "5\n"},
		{Role: "assistant", Content: driftScript[1]}, {Role: "user", Content: "And then?"},
	}
}

// runDrift rolls out driftTask greedily under c with template_drift
// mode, recording what the session holds.
func runDrift(t *testing.T, tok *policy.Tokenizer, c *Chat, mode string) (*Trajectory, *heldSession, error) {
	t.Helper()
	p := &idScript{eos: tok.EOS(), V: tok.VocabSize()}
	for _, s := range driftScript {
		p.segs = append(p.segs, tok.Encode(s))
	}
	cfg := DefaultConfig()
	cfg.GroupSize, cfg.Temperature, cfg.MaxToolCalls, cfg.MaxResponseTokens = 1, 0, 4, 200
	cfg.TemplateDrift = mode
	hp := &heldPolicy{Policy: p}
	e := &Engine{Policy: hp, Tokenizer: tok, Tool: printTool, Format: format.DefaultFormat(), Config: cfg, Chat: c}
	if err := c.Check(tok); err != nil {
		t.Fatal(err)
	}
	trajs, err := e.Run(context.Background(), []envs.Task{driftTask}, nil)
	if err != nil {
		return nil, hp.sess, err
	}
	if err := trajs[0].Validate(); err != nil {
		t.Fatal(err)
	}
	return trajs[0], hp.sess, nil
}

// TestDriftQwen3Split: under split, Qwen3's template re-renders the
// conversation at the later user turn, so the trajectory has two
// sequences: the first holds the ids the policy saw up to that turn
// (think blocks kept); the second starts with the tokenization of the
// template's rendering of the conversation so far, which drops the
// earlier think blocks, all of it prompt (mask 0), then the last turn the
// policy wrote (mask 1). The session was reset and
// fed the new prompt.
func TestDriftQwen3Split(t *testing.T) {
	tok := qwenTokenizer(t, false)
	tmpl, err := chat.Load(qwentest.Dir())
	if err != nil {
		t.Fatal(err)
	}
	c := &Chat{Template: tmpl}
	tr, sess, err := runDrift(t, tok, c, DriftSplit)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Splits) != 1 {
		t.Fatalf("%d splits, want 1", len(tr.Splits))
	}
	first := tr.Splits[0]
	if text := tok.Decode(first.Tokens); !strings.Contains(text, "<think>\nadd\n</think>") || !strings.HasSuffix(text, "<|im_start|>user\nAnd then?<|im_end|>\n<|im_start|>assistant\n") {
		t.Errorf("first sequence reads %q: want the think blocks kept, ending at the user turn", text)
	}
	render, err := c.RenderNext(driftMessages())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(render, "<think>\nadd") || strings.Contains(render, "<think>\nfive") {
		t.Fatalf("the template's rendering keeps an earlier think block: %q", render)
	}
	prompt := tok.Encode(render)
	want := slices.Concat(prompt, tok.Encode(driftScript[2]), []int{tok.EOS()})
	if !slices.Equal(tr.Tokens, want) {
		t.Fatalf("second sequence\n got %q\nwant %q", tok.Decode(tr.Tokens), tok.Decode(want))
	}
	if tr.PromptLen != len(prompt) || slices.ContainsFunc(tr.Kinds[:len(prompt)], func(k Kind) bool { return k != KindPrompt }) {
		t.Errorf("second sequence: prompt length %d, want %d, all of it prompt", tr.PromptLen, len(prompt))
	}
	for k, m := range tr.Mask {
		if sampled := k >= len(prompt); (m == 1) != sampled || !sampled && tr.LogProbs[k] != 0 {
			t.Fatalf("token %d: mask %d log-prob %g, want sampled %v", k, m, tr.LogProbs[k], sampled)
		}
	}
	if first.PromptLen >= len(first.Tokens) || first.Mask[first.PromptLen] != 1 {
		t.Errorf("first sequence: prompt %d of %d tokens, the policy's first token has mask %d", first.PromptLen, len(first.Tokens), first.Mask[first.PromptLen])
	}
	if got := sess.held[0]; sess.resets != 1 || !slices.Equal(got, tr.Tokens[:len(tr.Tokens)-1]) {
		t.Errorf("session reset %d times and holds %q, want once and the second sequence but its last token", sess.resets, tok.Decode(got))
	}
	if tr.TemplateDiffers || tr.Stop != StopEOS || len(tr.Calls) != 1 {
		t.Errorf("template differs %v, stop %s, %d calls: want false, eos, 1", tr.TemplateDiffers, tr.Stop, len(tr.Calls))
	}
	if n, m := tr.ModelTokens(), len(tok.Encode(driftScript[0]))+len(tok.Encode(driftScript[1]))+len(tok.Encode(driftScript[2]))+2; n != m {
		t.Errorf("ModelTokens %d, want %d (every sequence's)", n, m)
	}
}

// TestDriftModes: under fail, Qwen3's rollout stops with an error naming
// the template and the message after which it re-renders (the user turn,
// message 4); Qwen2.5's template only appends, so it gives one sequence,
// the same ids under either mode, and the session is never reset.
func TestDriftModes(t *testing.T) {
	qwen3, err := chat.Load(qwentest.Dir())
	if err != nil {
		t.Fatal(err)
	}
	qwen25 := chat.Fallback(chat.SpecialTokens{EOS: "<|im_end|>", PAD: "<|endoftext|>"})
	cases := []struct {
		name    string
		tmpl    *chat.Template
		qwen25  bool
		mode    string
		wantErr []string // substrings of the error; nil: no error
	}{
		{"qwen3 fail", qwen3, false, DriftFail, []string{qwen3.Origin(), "not append-only", "after message 4 (user)", "template_drift is fail"}},
		{"qwen2.5 split", qwen25, true, DriftSplit, nil},
		{"qwen2.5 fail", qwen25, true, DriftFail, nil},
	}
	var ids [][]int
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tok := qwenTokenizer(t, tc.qwen25)
			tr, sess, err := runDrift(t, tok, &Chat{Template: tc.tmpl}, tc.mode)
			if tc.wantErr != nil {
				if err == nil {
					t.Fatalf("no error, want one naming %q", tc.wantErr)
				}
				for _, s := range tc.wantErr {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not say %q", err, s)
					}
				}
				t.Log(err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Splits) != 0 || sess.resets != 0 || tr.TemplateDiffers {
				t.Errorf("%d splits, %d resets, template differs %v: want none", len(tr.Splits), sess.resets, tr.TemplateDiffers)
			}
			ids = append(ids, tr.Tokens)
		})
	}
	if len(ids) == 2 && !slices.Equal(ids[0], ids[1]) {
		t.Error("Qwen2.5's trajectory differs between split and fail")
	}
}

// TestConfigTemplateDrift: template_drift takes split or fail; anything
// else is an error that names both.
func TestConfigTemplateDrift(t *testing.T) {
	for _, tc := range []struct {
		value string
		ok    bool
	}{{DriftSplit, true}, {DriftFail, true}, {"", true}, {"keep", false}} {
		cfg := DefaultConfig()
		cfg.TemplateDrift = tc.value
		err := cfg.Validate()
		if (err == nil) != tc.ok {
			t.Errorf("template_drift %q: error %v, want ok %v", tc.value, err, tc.ok)
		}
		if err != nil && !(strings.Contains(err.Error(), "template_drift \"keep\"") && strings.Contains(err.Error(), DriftSplit) && strings.Contains(err.Error(), DriftFail)) {
			t.Errorf("error %q does not name the value and both modes", err)
		}
	}
}

// TestTrajectoryRows: a split trajectory gives one row per sequence, each
// with the trajectory's task and stop and its own tokens; one never split
// is its own row.
func TestTrajectoryRows(t *testing.T) {
	tr := &Trajectory{Task: envs.Task{ID: "r"}, Group: 3, Stop: StopEOS, PromptLen: 2}
	tr.Append([]int{1, 2}, KindPrompt, nil)
	tr.Append([]int{3}, KindModel, []float32{-0.5})
	if rows := tr.Rows(); len(rows) != 1 || rows[0] != tr {
		t.Fatalf("Rows of an unsplit trajectory: %v", rows)
	}
	tr.Append([]int{4}, KindUser, nil)
	tr.split([]int{1, 2, 4})
	tr.Append([]int{5, 6}, KindModel, []float32{-1, -2})
	if err := tr.Validate(); err != nil {
		t.Fatal(err)
	}
	rows := tr.Rows()
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	want := [][]int{{1, 2, 3, 4}, {1, 2, 4, 5, 6}}
	for i, r := range rows {
		if !slices.Equal(r.Tokens, want[i]) || r.Task.ID != "r" || r.Group != 3 || r.Stop != StopEOS || len(r.Splits) != 0 {
			t.Errorf("row %d: %+v", i, r)
		}
		if err := r.Validate(); err != nil {
			t.Errorf("row %d: %v", i, err)
		}
	}
	if rows[1].PromptLen != 3 || tr.ModelTokens() != 3 {
		t.Errorf("second row's prompt %d, model tokens %d: want 3, 3", rows[1].PromptLen, tr.ModelTokens())
	}
	tr.Splits[0].Mask[0] = 1
	if err := tr.Validate(); err == nil || !strings.Contains(err.Error(), "split 0") {
		t.Errorf("Validate of a bad split: %v, want an error naming split 0", err)
	}
}

// headerScript is a policy that writes segs[k] in the k-th assistant turn
// of what its sequence holds (the turns counted by the template's
// assistant header, so a sequence that starts from a re-rendered
// conversation goes on with the right turn), then EOS. It reads only its
// sequence, so it writes the same in any session.
type headerScript struct {
	segs   [][]int
	header []int
	eos, V int
}

type headerSession struct {
	p    *headerScript
	seqs [][]int
}

func (p *headerScript) NewSession(n, _ int) Session {
	return &headerSession{p: p, seqs: make([][]int, n)}
}

func (p *headerScript) Context() int { return 0 }

func (s *headerSession) Reset(i int) { s.seqs[i] = nil }

func (s *headerSession) Add() int { s.seqs = append(s.seqs, nil); return len(s.seqs) - 1 }

func (s *headerSession) Size() int { return len(s.seqs) }

func (s *headerSession) Step(feed [][]int) ([][]float32, error) {
	out := make([][]float32, len(feed))
	for i, f := range feed {
		if len(f) == 0 {
			continue
		}
		s.seqs[i] = append(s.seqs[i], f...)
		k, pos := -1, 0
		for j := 0; j+len(s.p.header) <= len(s.seqs[i]); j++ {
			if slices.Equal(s.seqs[i][j:j+len(s.p.header)], s.p.header) {
				k, pos = k+1, len(s.seqs[i])-j-len(s.p.header)
			}
		}
		next := s.p.eos
		if k >= 0 && k < len(s.p.segs) && pos < len(s.p.segs[k]) {
			next = s.p.segs[k][pos]
		}
		row := make([]float32, s.p.V)
		row[next] = 50
		out[i] = row
	}
	return out, nil
}

// TestDriftSplitCompleter: a split trajectory decoded through a
// Completer (each request's prompt the current sequence: a row of its
// own, or a fresh session per request) is the one the batched session
// decodes, splits included.
func TestDriftSplitCompleter(t *testing.T) {
	tok := qwenTokenizer(t, false)
	tmpl, err := chat.Load(qwentest.Dir())
	if err != nil {
		t.Fatal(err)
	}
	p := &headerScript{header: tok.Encode("<|im_start|>assistant\n"), eos: tok.EOS(), V: tok.VocabSize()}
	for _, s := range driftScript {
		p.segs = append(p.segs, tok.Encode(s))
	}
	cfg := DefaultConfig()
	cfg.GroupSize, cfg.Temperature, cfg.MaxToolCalls, cfg.MaxResponseTokens = 2, 0, 4, 200
	run := func(comp Completer) *Trajectory {
		e := &Engine{Policy: p, Tokenizer: tok, Tool: printTool, Format: format.DefaultFormat(), Config: cfg, Chat: &Chat{Template: tmpl}, Completer: comp}
		trajs, err := e.Run(context.Background(), []envs.Task{driftTask}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return trajs[1]
	}
	want := run(nil)
	if len(want.Splits) != 1 || len(want.Calls) != 1 {
		t.Fatalf("batched: %d splits, %d calls, want 1 and 1", len(want.Splits), len(want.Calls))
	}
	for name, comp := range map[string]Completer{"rows": LocalRows{Policy: p, Tokenizer: tok}, "requests": LocalCompleter{Policy: p, Tokenizer: tok}} {
		got := run(comp)
		if !slices.Equal(got.Tokens, want.Tokens) || !slices.Equal(got.Splits[0].Tokens, want.Splits[0].Tokens) || !slices.Equal(got.Mask, want.Mask) {
			t.Errorf("%s: the trajectory differs from the batched one\n got %q\nwant %q", name, tok.Decode(got.Tokens), tok.Decode(want.Tokens))
		}
	}
}
