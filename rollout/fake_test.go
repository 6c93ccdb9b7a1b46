package rollout

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/rollout/format"
)

// charTok is a fake tokenizer: one token per rune of printable ASCII, '\n'
// and optionally '…', plus multi-rune tokens (tags, say) matched longest
// first. Token 0 is EOS and decodes to nothing; token 1 stands for any
// other rune and decodes to "?".
type charTok struct {
	vocab []string
	ids   map[string]int
	multi []string // longest first
}

const (
	eosID = 0
	unkID = 1
)

// newCharTok builds the vocabulary; withEllipsis adds "…".
func newCharTok(withEllipsis bool, multi ...string) *charTok {
	t := &charTok{ids: map[string]int{}}
	t.add("")
	t.add("?")
	for _, m := range multi {
		t.add(m)
	}
	for r := ' '; r <= '~'; r++ {
		t.add(string(r))
	}
	t.add("\n")
	if withEllipsis {
		t.add("…")
	}
	t.multi = slices.Clone(multi)
	slices.SortStableFunc(t.multi, func(a, b string) int { return len(b) - len(a) })
	return t
}

// taggedTok has every tag of the default format as one token.
func taggedTok() *charTok { return newCharTok(true, format.DefaultFormat().Tags()...) }

func (t *charTok) add(s string) {
	if _, ok := t.ids[s]; !ok {
		t.ids[s] = len(t.vocab)
		t.vocab = append(t.vocab, s)
	}
}

func (t *charTok) Encode(s string) []int {
	var ids []int
outer:
	for len(s) > 0 {
		for _, m := range t.multi {
			if strings.HasPrefix(s, m) {
				ids, s = append(ids, t.ids[m]), s[len(m):]
				continue outer
			}
		}
		r := []rune(s)[0]
		id, ok := t.ids[string(r)]
		if !ok {
			id = unkID
		}
		ids, s = append(ids, id), s[len(string(r)):]
	}
	return ids
}

func (t *charTok) Decode(ids []int) string {
	var b strings.Builder
	for _, id := range ids {
		if id < len(t.vocab) {
			b.WriteString(t.vocab[id])
		}
	}
	return b.String()
}

func (t *charTok) EOS() int { return eosID }

// nextFunc is the text a scripted model writes next, given its prompt and
// the response so far; "" means EOS.
type nextFunc func(row int, prompt, resp string) string

// turns is a scripted model that writes segs[k] after reading k tool
// results. In a segment, "{out}" stands for the last result it read and
// "{prompt}" for its prompt, both trimmed. It writes EOS once a segment is
// done or the text left its script.
func turns(segs ...string) nextFunc {
	const end = "</output>\n"
	return func(_ int, prompt, resp string) string {
		k := strings.Count(resp, end)
		if k >= len(segs) {
			return ""
		}
		seg := strings.ReplaceAll(segs[k], "{prompt}", strings.TrimSpace(prompt))
		if k > 0 {
			last := resp[:strings.LastIndex(resp, end)]
			out := last[strings.LastIndex(last, "<output>")+len("<output>"):]
			seg = strings.ReplaceAll(seg, "{out}", strings.TrimSpace(out))
		}
		cur := resp
		if i := strings.LastIndex(resp, end); i >= 0 {
			cur = resp[i+len(end):]
		}
		rest, ok := strings.CutPrefix(seg, cur)
		if !ok {
			return ""
		}
		return rest
	}
}

// scriptPolicy is a fake policy. Its logits are a small jitter that
// depends on the row and position, plus peak on the first token of what
// next says to write (EOS when it says nothing). A large peak makes it a
// one-hot script; a small one makes a noisy model that sampling steers.
// With rowless the jitter ignores the row, so a sequence gets the same
// logits in any session.
type scriptPolicy struct {
	tok     *charTok
	next    nextFunc
	peak    float32
	rowless bool

	mu       sync.Mutex
	sessions []*scriptSession
}

func (p *scriptPolicy) NewSession(n, maxLen int) Session {
	s := &scriptSession{p: p, maxLen: maxLen, seqs: make([][]int, n), promptLen: make([]int, n)}
	p.mu.Lock()
	p.sessions = append(p.sessions, s)
	p.mu.Unlock()
	return s
}

func (p *scriptPolicy) Context() int { return 0 }

// logits are the fake's next-token logits after seq, whose first
// promptLen tokens are the prompt. Tests replay them to check log-probs.
func (p *scriptPolicy) logits(row int, seq []int, promptLen int) []float32 {
	V := len(p.tok.vocab)
	out := make([]float32, V)
	if p.rowless {
		row = 0
	}
	for v := range out {
		out[v] = float32((v*31+row*17+len(seq)*7)%13) / 13
	}
	want := p.next(row, p.tok.Decode(seq[:promptLen]), p.tok.Decode(seq[promptLen:]))
	target := eosID
	if want != "" {
		target = p.tok.Encode(want)[0]
	}
	out[target] += p.peak
	return out
}

// scriptSession records what it was fed so tests can check the Session
// contract.
type scriptSession struct {
	p         *scriptPolicy
	maxLen    int
	seqs      [][]int
	promptLen []int
	feeds     [][][]int // per step, the feed of every row
	overflow  error
}

func (s *scriptSession) Step(feed [][]int) ([][]float32, error) {
	s.feeds = append(s.feeds, feed)
	out := make([][]float32, len(feed))
	for i, f := range feed {
		if len(f) == 0 {
			continue
		}
		if len(s.seqs[i]) == 0 {
			s.promptLen[i] = len(f)
		}
		s.seqs[i] = append(s.seqs[i], f...)
		if len(s.seqs[i]) > s.maxLen && s.overflow == nil {
			s.overflow = fmt.Errorf("row %d holds %d tokens, maxLen %d", i, len(s.seqs[i]), s.maxLen)
		}
		out[i] = s.p.logits(i, s.seqs[i], s.promptLen[i])
	}
	return out, nil
}

// Add and Reset make a scriptSession the Rows of a Batcher.
func (s *scriptSession) Add() int {
	s.seqs, s.promptLen = append(s.seqs, nil), append(s.promptLen, 0)
	return len(s.seqs) - 1
}

func (s *scriptSession) Reset(i int) { s.seqs[i], s.promptLen[i] = nil, 0 }

func (s *scriptSession) Size() int { return len(s.seqs) }

// fed is how many tokens the policy's sessions were fed in all.
func (p *scriptPolicy) fed() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, s := range p.sessions {
		for _, step := range s.feeds {
			for _, f := range step {
				n += len(f)
			}
		}
	}
	return n
}

// toolFunc adapts a function to envs.Tool.
type toolFunc func(ctx context.Context, input string) envs.Result

func (f toolFunc) Call(ctx context.Context, input string) envs.Result { return f(ctx, input) }

// calc runs "fmt.Println(A+B)" and fails on anything else.
var calc = toolFunc(func(_ context.Context, in string) envs.Result {
	var a, b int
	if _, err := fmt.Sscanf(in, "fmt.Println(%d+%d)", &a, &b); err == nil && fmt.Sprintf("fmt.Println(%d+%d)", a, b) == in {
		return envs.Result{Status: envs.StatusOK, Output: fmt.Sprintf("%d\n", a+b)}
	}
	return envs.Result{Status: envs.StatusError, Output: "error: cannot run", Error: "syntax"}
})

// logSoftmax64 is log softmax(logits)[tok], computed independently of the
// engine's sampler.
func logSoftmax64(logits []float32, tok int) float64 {
	m := math.Inf(-1)
	for _, l := range logits {
		m = math.Max(m, float64(l))
	}
	s := 0.0
	for _, l := range logits {
		s += math.Exp(float64(l) - m)
	}
	return float64(logits[tok]) - m - math.Log(s)
}
