package atlass

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// byteTok is a tokenizer of one token per byte, EOS 256.
type byteTok struct{}

func (byteTok) Encode(s string) []int {
	ids := make([]int, len(s))
	for i := range len(s) {
		ids[i] = int(s[i])
	}
	return ids
}

func (byteTok) Decode(ids []int) string {
	b := make([]byte, 0, len(ids))
	for _, id := range ids {
		if id < 256 {
			b = append(b, byte(id))
		}
	}
	return string(b)
}

func (byteTok) EOS() int { return 256 }

// replay is a policy whose sessions of one sequence each write the next
// of its texts, one byte per step with a feed whatever it holds, then
// EOS (a session of no sequences takes no text).
type replay struct {
	mu    sync.Mutex
	texts []string
	fed   []string // what each session was fed, decoded
}

func (r *replay) NewSession(n, maxLen int) rollout.Session {
	if n == 0 {
		return &replaySession{r: r, i: -1} // never stepped
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	text := ""
	if len(r.texts) > 0 {
		text, r.texts = r.texts[0], r.texts[1:]
	}
	r.fed = append(r.fed, "")
	return &replaySession{r: r, i: len(r.fed) - 1, text: text}
}

func (r *replay) Context() int { return 0 }

type replaySession struct {
	r    *replay
	i    int
	text string
	pos  int
}

func (s *replaySession) Step(feed [][]int) ([][]float32, error) {
	if len(feed[0]) == 0 { // left as it is, as the Session contract says
		return [][]float32{nil}, nil
	}
	s.r.mu.Lock()
	s.r.fed[s.i] += byteTok{}.Decode(feed[0])
	s.r.mu.Unlock()
	logits := make([]float32, 257)
	next := 256
	if s.pos < len(s.text) {
		next, s.pos = int(s.text[s.pos]), s.pos+1
	}
	logits[next] = 10
	return [][]float32{logits}, nil
}

// renderPlain renders a conversation as "role: text" lines and the
// assistant's turn.
func renderPlain(msgs []openai.ChatMessage) (string, error) {
	var b strings.Builder
	for _, m := range msgs {
		text, err := openai.MessageText(m.Content)
		if err != nil {
			return "", err
		}
		b.WriteString(m.Role + ": " + text + "\n")
	}
	return b.String() + "assistant: ", nil
}

func TestPhasesInsideRollouts(t *testing.T) {
	sb := newSandbox(t)
	db := newMemDB()
	code := &recorder{Tool: sb}
	id := store(t, db, code, gcdSource, Approved)
	phases := &replay{texts: []string{
		`{"subtasks": ["Find the greatest common divisor of 84 and 36."]}`,
		`{"needs_tools": true, "tools": [{"name": "greatestCommonDivisor", "description": "the greatest common divisor of two ints"}]}`,
		`{"matches": [{"needed": "greatestCommonDivisor", "existing": 1, "why": "gcd does this"}]}`,
	}}
	solver := &replay{texts: []string{"<think>gcd is defined.</think><code>fmt.Println(gcd(84, 36))</code><answer>12</answer>"}}
	cfg := rollout.DefaultConfig()
	cfg.MaxResponseTokens, cfg.Temperature = 200, 0
	p := &Pipeline{
		Chat:   &PolicyChat{Policy: phases, Tokenizer: byteTok{}, Render: renderPlain, Config: rollout.CompleteConfig{MaxTokens: 400, TopP: 1}},
		Solver: &EngineSolver{Engine: rollout.Engine{Policy: solver, Tokenizer: byteTok{}, Format: format.DefaultFormat(), Config: cfg}},
		DB:     db, Code: code,
	}
	tr, err := p.Run(context.Background(), envs.Task{ID: "gcd", Prompt: "What is the greatest common divisor of 84 and 36?"})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Status != Solved || tr.Answer != "12" || len(tr.Tools) != 1 || tr.Tools[0].ID != id {
		t.Fatalf("status %s answer %q tools %+v (%s), want gcd selected and 12; response %q", tr.Status, tr.Answer, tr.Tools, tr.Message, tr.Solution.Traj.Response)
	}
	if !strings.HasPrefix(phases.fed[2], "system: "+selectorSystem) || !strings.Contains(phases.fed[2], "candidate id 1 (approved): func gcd") {
		t.Errorf("the selector's prompt on the policy lacks its role or the candidate:\n%s", phases.fed[2])
	}
	traj := tr.Solution.Traj
	if err := traj.Validate(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(solver.fed[0], "func gcd(a, b int) int // gcd returns") || !strings.HasPrefix(solver.fed[0], tr.Solution.Prompt) {
		t.Errorf("the solver's prompt does not list gcd, or differs from the transcript's:\n%s", solver.fed[0])
	}
	var masked strings.Builder
	for i := traj.PromptLen; i < len(traj.Tokens); i++ {
		if traj.Mask[i] == 0 {
			masked.WriteString(byteTok{}.Decode(traj.Tokens[i : i+1]))
		}
	}
	if got := masked.String(); got != format.ResultBlock(format.DefaultFormat(), "12\n") {
		t.Errorf("the tokens outside the loss are %q, want only the tool's result block", got)
	}
}
