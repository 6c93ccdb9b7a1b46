package rollout

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/artist-rl/artist/chat"
	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/internal/qwentest"
	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/rollout/format"
)

// countTok is a Tokenizer that counts the bytes of text it encodes.
type countTok struct {
	*policy.Tokenizer
	encoded atomic.Int64
}

func (t *countTok) Encode(text string) []int {
	t.encoded.Add(int64(len(text)))
	return t.Tokenizer.Encode(text)
}

// encodedPerTurn rolls out a conversation of calls tool turns, each the
// same call and result, under tmpl with template_drift fail, and returns
// the bytes the engine encoded in each turn (from one tool call to the
// next: the tool turn's encoding and its drift check) and the trajectory.
func encodedPerTurn(tb testing.TB, tok *countTok, tmpl *chat.Template, calls int) ([]int64, *Trajectory) {
	tb.Helper()
	seg := "Add them: <code>fmt.Println(2+3)</code>"
	p := &idScript{eos: tok.EOS(), V: tok.VocabSize()}
	for range calls {
		p.segs = append(p.segs, tok.Tokenizer.Encode(seg))
	}
	p.segs = append(p.segs, tok.Tokenizer.Encode("It is 5."))
	var at []int64
	tool := toolFunc(func(ctx context.Context, in string) envs.Result {
		at = append(at, tok.encoded.Load())
		return printTool(ctx, in)
	})
	cfg := DefaultConfig()
	cfg.GroupSize, cfg.Temperature, cfg.MaxToolCalls, cfg.MaxResponseTokens = 1, 0, calls, 100*calls
	cfg.TemplateDrift = DriftFail
	e := &Engine{Policy: p, Tokenizer: tok, Tool: tool, Format: format.DefaultFormat(), Config: cfg, Chat: &Chat{Template: tmpl}}
	trajs, err := e.Run(context.Background(), []envs.Task{{ID: "n", Prompt: "What is 2+3?"}}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	if len(at) != calls {
		tb.Fatalf("%d tool calls, want %d", len(at), calls)
	}
	per := make([]int64, 0, calls-1)
	for k := 1; k < calls; k++ {
		per = append(per, at[k]-at[k-1])
	}
	return per, trajs[0]
}

// TestDriftCheckLinear: the drift check after each turn encodes the new
// text and a window before it, not the whole conversation again, so
// that a rollout's encoding is linear in its turns. With the same tool
// turn repeated, no turn after the third encodes more bytes than the
// third (the first check of a sequence is whole; re-encoding the
// conversation would grow by a turn's text each turn), and the
// template, which only appends, never drifts.
func TestDriftCheckLinear(t *testing.T) {
	qwen3, err := chat.Load(qwentest.Dir())
	if err != nil {
		t.Fatal(err)
	}
	qwen25 := chat.Fallback(chat.SpecialTokens{EOS: "<|im_end|>", PAD: "<|endoftext|>"})
	for _, tc := range []struct {
		name   string
		tmpl   *chat.Template
		qwen25 bool
	}{{"qwen3", qwen3, false}, {"qwen2.5", qwen25, true}} {
		t.Run(tc.name, func(t *testing.T) {
			tok := &countTok{Tokenizer: qwenTokenizer(t, tc.qwen25)}
			const calls = 24
			per, tr := encodedPerTurn(t, tok, tc.tmpl, calls)
			if len(tr.Splits) != 0 || len(tr.Calls) != calls {
				t.Fatalf("%d splits, %d calls: want 0 and %d", len(tr.Splits), len(tr.Calls), calls)
			}
			text := tok.Decode(tr.Tokens)
			if n := strings.Count(text, "<code>fmt.Println(2+3)</code>"); n != calls {
				t.Fatalf("the trajectory holds %d calls, want %d", n, calls)
			}
			t.Logf("bytes encoded per turn: %v (conversation %d bytes)", per, len(text))
			for k, n := range per[2:] {
				if n > per[1] {
					t.Fatalf("turn %d encodes %d bytes, more than the third turn's %d: the drift check re-encodes the conversation (%v)", k+4, n, per[1], per)
				}
			}
			if last := per[len(per)-1]; 4*last > int64(len(text)) {
				t.Errorf("the last turn encodes %d bytes of a %d-byte conversation", last, len(text))
			}
		})
	}
}

// BenchmarkDriftCheck reports the bytes encoded per tool turn of a
// 64-turn conversation under Qwen3's template (enc-B/turn), which stays
// flat as the conversation grows when the drift check is incremental.
func BenchmarkDriftCheck(b *testing.B) {
	tmpl, err := chat.Load(qwentest.Dir())
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	path, err := qwentest.Unpack(dir, false)
	if err != nil {
		b.Fatal(err)
	}
	pt, err := policy.LoadTokenizer(path)
	if err != nil {
		b.Fatal(err)
	}
	const calls = 64
	var total int64
	for b.Loop() {
		tok := &countTok{Tokenizer: pt}
		per, _ := encodedPerTurn(b, tok, tmpl, calls)
		for _, n := range per {
			total += n
		}
	}
	b.ReportMetric(float64(total)/float64(b.N*(calls-1)), "enc-B/turn")
}

// byteTok is a Tokenizer of one id per byte, that reads text as compose
// rewrites it (as an NFC normalisation would), and whose Decode drops a
// leading space when trim is set (as SentencePiece's does): the two ways
// a tokenizer can read text other than locally that appends guards
// against.
type byteTok struct {
	compose func(string) string
	trim    bool
}

func (t byteTok) Encode(s string) []int {
	if t.compose != nil {
		s = t.compose(s)
	}
	ids := make([]int, len(s))
	for i := range len(s) {
		ids[i] = int(s[i])
	}
	return ids
}

func (t byteTok) Decode(ids []int) string {
	b := make([]byte, len(ids))
	for i, id := range ids {
		b[i] = byte(id)
	}
	if t.trim {
		return strings.TrimPrefix(string(b), " ")
	}
	return string(b)
}

func (byteTok) EOS() int { return 0 }

// composeAcute writes e and a combining acute accent as é.
func composeAcute(s string) string { return strings.ReplaceAll(s, "e\u0301", "é") }

// TestDriftAppends: the incremental check says the rendering extends
// the held ids only where the whole check would; where the text after
// the last check differs from the ids appended, where the rendering
// rewrites earlier text, and where the tokenizer does not read text
// locally at the cut or at the ids' boundary, it leaves the verdict to
// the whole check.
func TestDriftAppends(t *testing.T) {
	prev := strings.Repeat("<|im_start|>user\nHi<|im_end|>\n", 3) + "<|im_start|>assistant\n"
	cases := []struct {
		name       string
		tok        byteTok
		prev, text string // the last checked rendering and the new one
		added      string // the text of the ids appended since
		want       bool
	}{
		{"appends", byteTok{}, prev, prev + "Sure.<|im_end|>\n", "Sure.<|im_end|>\n", true},
		{"other ids", byteTok{}, prev, prev + "Sure.<|im_end|>\n", "Sure!<|im_end|>\n", false},
		{"rewrites", byteTok{}, prev, "<|im_start|>system\n" + prev + "Sure.", "Sure.", false},
		{"composes at the boundary", byteTok{compose: composeAcute}, prev + "e", prev + "e\u0301 ok", "\u0301 ok", false},
		{"decodes apart otherwise", byteTok{trim: true}, prev, prev + " Sure.", " Sure.", false},
		{"composes at the cut", byteTok{compose: composeAcute}, "e\u0301" + strings.Repeat("x", driftWindow-2), "e\u0301" + strings.Repeat("x", driftWindow-2) + "ok", "ok", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := &runner{e: &Engine{Tokenizer: tc.tok}}
			tr := &Trajectory{}
			held := tc.tok.Encode(tc.prev)
			tr.Append(held, KindPrompt, nil)
			tr.Append(tc.tok.Encode(tc.added), KindToolResult, nil)
			w := &row{traj: tr, drift: driftMark{text: tc.prev, ids: len(held)}}
			if got := r.appends(w, tc.text); got != tc.want {
				t.Errorf("appends %v, want %v", got, tc.want)
			}
			whole := tc.tok.Decode(tc.tok.Encode(tc.text)) == tc.tok.Decode(tr.Tokens)
			if tc.want && !whole {
				t.Errorf("the whole check finds a drift where appends finds none")
			}
		})
	}
}
