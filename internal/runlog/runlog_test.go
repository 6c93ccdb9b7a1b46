package runlog

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// vocab is a tokenizer whose tokens are the strings of a table, so a test
// chooses exactly where token boundaries fall relative to the tags.
type vocab struct {
	toks  []string
	valid bool // decode through strings.ToValidUTF8, as byte-level BPE decoders do
}

func (v *vocab) id(s string) int {
	for i, t := range v.toks {
		if t == s {
			return i
		}
	}
	v.toks = append(v.toks, s)
	return len(v.toks) - 1
}

func (v *vocab) Decode(ids []int) string {
	var b strings.Builder
	for _, id := range ids {
		b.WriteString(v.toks[id])
	}
	if v.valid {
		return strings.ToValidUTF8(b.String(), "\uFFFD")
	}
	return b.String()
}

// piece is a run of tokens appended with one mask value.
type piece struct {
	mask uint8
	toks []string
}

func build(v *vocab, prompt []string, pieces []piece, calls []rollout.Call) *rollout.Trajectory {
	t := &rollout.Trajectory{Task: envs.Task{ID: "t1", Answer: "5"}, PromptLen: len(prompt), Stop: rollout.StopAnswer, Calls: calls}
	ids := func(ss []string) []int {
		var out []int
		for _, s := range ss {
			out = append(out, v.id(s))
		}
		return out
	}
	t.Append(ids(prompt), rollout.KindPrompt, nil)
	for _, p := range pieces {
		t.Append(ids(p.toks), maskKind(p.mask), nil)
	}
	return t
}

type want struct {
	kind   Kind
	text   string
	tokens int
}

func TestSegments(t *testing.T) {
	math := format.DefaultFormat()
	fc := format.Format{Think: "reasoning", Code: "tool", Output: "tool_result", Answer: "answer"}
	ok := []rollout.Call{{Input: "fmt.Println(2+3)", Result: envs.Result{Output: "5", Status: envs.StatusOK}}}
	cases := []struct {
		name   string
		f      format.Format
		prompt []string
		pieces []piece
		calls  []rollout.Call
		want   []want
		status []string // status of each tool_result segment
	}{
		{
			name:   "one call",
			f:      math,
			prompt: []string{"Q: 2+3?", "\n"},
			pieces: []piece{
				{1, []string{"<think>", "add", "</think>", "<code>", "fmt.Println(2+3)", "</code>"}},
				{0, []string{"<output>", "5", "</output>", "\n"}},
				{1, []string{"<answer>", "5", "</answer>"}},
			},
			calls: ok,
			want: []want{
				{Prompt, "Q: 2+3?\n", 2},
				{Model, "<think>add</think>", 3},
				{ToolCall, "<code>fmt.Println(2+3)</code>", 3},
				{ToolResult, "<output>5</output>\n", 4},
				{Model, "<answer>5</answer>", 3},
			},
			status: []string{"ok"},
		},
		{
			name:   "tags straddle tokens",
			f:      math,
			prompt: []string{"Q?\n"},
			pieces: []piece{
				{1, []string{"<think>", "add", "</think><co", "de>fmt", ".Println(5)", "</code>"}},
				{0, []string{"<output>5</output>\n"}},
				{1, []string{"<answer>5</answer>"}},
			},
			calls: []rollout.Call{{Result: envs.Result{Status: envs.StatusError}, Truncated: true}},
			want: []want{
				{Prompt, "Q?\n", 1},
				{Model, "<think>add", 2},
				{ToolCall, "</think><code>fmt.Println(5)</code>", 4},
				{ToolResult, "<output>5</output>\n", 1},
				{Model, "<answer>5</answer>", 1},
			},
			status: []string{"error"},
		},
		{
			name:   "conversation with user turns",
			f:      fc,
			prompt: []string{"list files", "\n"},
			pieces: []piece{
				{1, []string{"<reasoning>", "look", "</reasoning>", "<tool>", "[ls()]", "</tool>"}},
				{0, []string{"<tool_result>", "a.txt", "</tool_result>", "\n"}},
				{1, []string{"done", "<eos>"}},
				{0, []string{"\n", "now cd", "\n"}},
				{1, []string{"<tool>", "[cd(folder='a')]", "</tool>"}},
				{0, []string{"<tool_result>", "None", "</tool_result>", "\n"}},
				{1, []string{"ok"}},
			},
			calls: []rollout.Call{{Result: envs.Result{Status: envs.StatusOK}}, {Result: envs.Result{Status: envs.StatusEmpty}, Turn: 1}},
			want: []want{
				{Prompt, "list files\n", 2},
				{Model, "<reasoning>look</reasoning>", 3},
				{ToolCall, "<tool>[ls()]</tool>", 3},
				{ToolResult, "<tool_result>a.txt</tool_result>\n", 4},
				{Model, "done<eos>", 2},
				{UserTurn, "\nnow cd\n", 3},
				{ToolCall, "<tool>[cd(folder='a')]</tool>", 3},
				{ToolResult, "<tool_result>None</tool_result>\n", 4},
				{Model, "ok", 1},
			},
			status: []string{"ok", "empty"},
		},
		{
			name:   "unclosed call at the length budget",
			f:      math,
			prompt: []string{"Q?\n"},
			pieces: []piece{{1, []string{"<think>", "hm", "</think>", "<code>", "for {"}}},
			want: []want{
				{Prompt, "Q?\n", 1},
				{Model, "<think>hm</think>", 3},
				{ToolCall, "<code>for {", 2},
			},
		},
		{
			name:   "no tool use",
			f:      math,
			prompt: []string{"Q?\n"},
			pieces: []piece{{1, []string{"<answer>", "7", "</answer>"}}},
			want:   []want{{Prompt, "Q?\n", 1}, {Model, "<answer>7</answer>", 3}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := &vocab{}
			tr := build(v, c.prompt, c.pieces, c.calls)
			segs := Segments(tr, v, c.f)
			var got []want
			var status []string
			for _, s := range segs {
				got = append(got, want{s.Kind, s.Text, s.Tokens})
				if s.Masked != (s.Kind == Prompt || s.Kind == ToolResult || s.Kind == UserTurn) {
					t.Errorf("%s segment %q: masked %v", s.Kind, s.Text, s.Masked)
				}
				if s.Kind == ToolResult {
					status = append(status, s.Status)
				}
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("segments\n got %+v\nwant %+v", got, c.want)
			}
			if !reflect.DeepEqual(status, c.status) {
				t.Errorf("tool result statuses %q, want %q", status, c.status)
			}
			checkCover(t, tr, v, segs)
		})
	}
}

// checkCover asserts the invariants of the package doc: every token in
// exactly one segment, masked exactly where the loss mask is 0, texts
// concatenating to the decoded trajectory.
func checkCover(t *testing.T, tr *rollout.Trajectory, dec Decoder, segs []Segment) {
	t.Helper()
	pos := 0
	var text strings.Builder
	for _, s := range segs {
		if s.Tokens <= 0 {
			t.Fatalf("empty %s segment", s.Kind)
		}
		for k := pos; k < pos+s.Tokens; k++ {
			if (tr.Mask[k] == 0) != s.Masked {
				t.Fatalf("token %d has mask %d inside a %s segment with masked %v", k, tr.Mask[k], s.Kind, s.Masked)
			}
		}
		pos += s.Tokens
		text.WriteString(s.Text)
	}
	if pos != len(tr.Tokens) {
		t.Fatalf("segments hold %d tokens, trajectory %d", pos, len(tr.Tokens))
	}
	if want := dec.Decode(tr.Tokens); text.String() != want {
		t.Fatalf("segments concatenate to %q, want %q", text.String(), want)
	}
}

// TestSegmentsSplitRune: a token boundary inside a UTF-8 character makes
// prefix decodings stop being prefixes; the counts still cover every token.
func TestSegmentsSplitRune(t *testing.T) {
	v := &vocab{valid: true}
	e := "é" // two bytes, one token each
	tr := build(v, []string{"Q\n"}, []piece{
		{1, []string{"<code>", "x:=\"", e[:1], e[1:], "\"", "</code>"}},
		{0, []string{"<output>", "ok", "</output>", "\n"}},
	}, nil)
	segs := Segments(tr, v, format.DefaultFormat())
	kinds, n := []Kind{}, 0
	for _, s := range segs {
		kinds = append(kinds, s.Kind)
		n += s.Tokens
	}
	if !reflect.DeepEqual(kinds, []Kind{Prompt, ToolCall, ToolResult}) || n != len(tr.Tokens) {
		t.Fatalf("kinds %v tokens %d, want prompt, tool_call, tool_result over %d tokens", kinds, n, len(tr.Tokens))
	}
	if segs[1].Text != "<code>x:=\"é\"</code>" {
		t.Fatalf("tool call text %q", segs[1].Text)
	}
}

func TestWriteReadSamples(t *testing.T) {
	v := &vocab{}
	tr := build(v, []string{"Q?\n"}, []piece{
		{1, []string{"<code>", "1", "</code>"}},
		{0, []string{"<output>", "1", "</output>", "\n"}},
		{1, []string{"<answer>", "1", "</answer>"}},
	}, []rollout.Call{{Result: envs.Result{Status: envs.StatusOK}}})
	s := NewSample(tr, v, format.DefaultFormat(), Meta{Eval: "final", Step: 2, Family: "arith", Correct: false,
		Verdict: "gold 5, correct false", Reward: 0.25, Rewards: map[string]float64{"format": 0.25}})
	if s.Task != "t1" || s.Gold != "5" || s.Stop != "answer" || s.ToolCalls != 1 || s.ModelTokens != 6 || s.Tokens != 11 {
		t.Fatalf("sample %+v", s)
	}
	path := filepath.Join(t.TempDir(), "samples", "final.jsonl")
	if err := WriteSamples(path, []Sample{s, s}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := ReadSamples(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !reflect.DeepEqual(got[1], s) {
		t.Fatalf("read back %+v, want twice %+v", got, s)
	}
}

func TestReadSamplesErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{"{\"eval\":\"final\"}\nnot json\n", "runlog: line 2"},
		{"{\"tokens\":\"many\"}\n", "runlog: line 1"},
	}
	for _, c := range cases {
		if _, err := ReadSamples(strings.NewReader(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadSamples(%q) error %v, want %q", c.in, err, c.want)
		}
	}
	got, err := ReadSamples(strings.NewReader("\n{\"eval\":\"a\"}\n\n"))
	if err != nil || len(got) != 1 || got[0].Eval != "a" {
		t.Errorf("blank lines: %v %v", got, err)
	}
}

// maskKind is the kind of a run of tokens with loss mask m: sampled by the
// policy (1) or written by the engine (0).
func maskKind(m uint8) rollout.Kind {
	if m == 1 {
		return rollout.KindModel
	}
	return rollout.KindToolResult
}
