package format

import (
	"reflect"
	"strings"
	"testing"
)

func artFormat() Format { f := DefaultFormat(); f.Style = StyleART; return f }

func TestFormatValidateStyle(t *testing.T) {
	cases := []struct {
		name string
		edit func(*Format)
		want string // "" means valid
	}{
		{"tags by default", func(*Format) {}, ""},
		{"tags named", func(f *Format) { f.Style = StyleTags }, ""},
		{"art", func(f *Format) { f.Style = StyleART }, ""},
		{"unknown style", func(f *Format) { f.Style = "xml" }, `format.style "xml" is unknown: use tags (the default) or art`},
		{"art code with a space", func(f *Format) { f.Style, f.Code = StyleART, "code run" }, "cannot name an art-style call"},
		{"art code with a bracket", func(f *Format) { f.Style, f.Code = StyleART, "co]de" }, "cannot name an art-style call"},
		{"art still needs names", func(f *Format) { f.Style, f.Answer = StyleART, "" }, "format.answer is empty"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := DefaultFormat()
			c.edit(&f)
			err := f.Validate()
			if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Fatalf("Validate() = %v, want %q", err, c.want)
			}
		})
	}
}

func TestArtLines(t *testing.T) {
	f := artFormat()
	custom := f
	custom.Code, custom.Answer = "python", "final"
	cases := []struct {
		name     string
		f        Format
		line     string
		call     string // "" means not a call
		answer   string
		isAnswer bool
		result   int // call number of a result line; 0 means not one
	}{
		{"call", f, "[code] fmt.Println(6*7)", "fmt.Println(6*7)", "", false, 0},
		{"labelled call", f, "Q12: [code] fmt.Println(1)", "fmt.Println(1)", "", false, 0},
		{"label without digits", f, "Q: [code] x", "", "", false, 0},
		{"marker mid-line", f, "so [code] x", "", "", false, 0},
		{"marker without space", f, "[code]x", "", "", false, 0},
		{"other tool", f, "[search] x", "", "", false, 0},
		{"custom code name", custom, "[python] print(1)", "print(1)", "", false, 0},
		{"answer", f, "Ans: 133", "", "133", true, 0},
		{"answer with eos text", f, "Ans: 42<|endoftext|>", "", "42", true, 0},
		{"empty answer", f, "Ans:", "", "", true, 0},
		{"indented answer is text", f, " Ans: 1", "", "", false, 0},
		{"custom answer label", custom, "final: 7", "", "7", true, 0},
		{"default label not custom", custom, "Ans: 7", "", "", false, 0},
		{"result", f, "#3: 42", "", "", false, 3},
		{"result without space", f, "#3:42", "", "", false, 0},
		{"hash text", f, "#hashtag: x", "", "", false, 0},
		{"result zero", f, "#0: x", "", "", false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			call, isCall := c.f.CallLine(c.line)
			if isCall != (c.call != "") || call != c.call {
				t.Errorf("CallLine(%q) = %q, %v; want %q", c.line, call, isCall, c.call)
			}
			a, isAnswer := c.f.AnswerLine(c.line)
			if isAnswer != c.isAnswer || a != c.answer {
				t.Errorf("AnswerLine(%q) = %q, %v; want %q, %v", c.line, a, isAnswer, c.answer, c.isAnswer)
			}
			n, _, isResult := ResultLine(c.line)
			if isResult != (c.result > 0) || n != c.result {
				t.Errorf("ResultLine(%q) = %d, %v; want %d", c.line, n, isResult, c.result)
			}
		})
	}
}

func TestPieces(t *testing.T) {
	f := artFormat()
	cases := []struct {
		name     string
		response string
		want     []Piece
	}{
		{"program", "plan\n[code] fmt.Println(2+3)\n#1: 5\nAns: 5\n", []Piece{
			{Kind: PieceText, Text: "plan"}, {Kind: PieceCall, Text: "fmt.Println(2+3)"},
			{Kind: PieceResult, Text: "5", N: 1}, {Kind: PieceAnswer, Text: "5"}}},
		{"lines merge, blank lines drop", "a\n\nb\n[code] x\n#1: l1\n#1: l2\n#2: other\nAns: 1", []Piece{
			{Kind: PieceText, Text: "a\nb"}, {Kind: PieceCall, Text: "x"},
			{Kind: PieceResult, Text: "l1\nl2", N: 1}, {Kind: PieceResult, Text: "other", N: 2}, {Kind: PieceAnswer, Text: "1"}}},
		{"unfinished call is text", "a\n[code] fmt.Println(", []Piece{{Kind: PieceText, Text: "a\n[code] fmt.Println("}}},
		{"empty result line", "[code] x\n#1: \n", []Piece{{Kind: PieceCall, Text: "x"}, {Kind: PieceResult, Text: "", N: 1}}},
		{"tag text is reasoning", "<answer>5</answer>", []Piece{{Kind: PieceText, Text: "<answer>5</answer>"}}},
		{"nothing", "\n \n", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := f.Pieces(c.response); !reflect.DeepEqual(got, c.want) {
				t.Errorf("Pieces(%q) =\n %+v\nwant\n %+v", c.response, got, c.want)
			}
		})
	}
}

// TestTagsTextsUnchanged pins the tags style of the rendering methods to
// the tag helpers that demonstrations used before styles existed.
func TestTagsTextsUnchanged(t *testing.T) {
	f := DefaultFormat()
	cases := []struct{ got, want string }{
		{f.ThinkText("plan"), Block(f.Think, "plan")},
		{f.CallText("fmt.Println(1)\nx"), Block(f.Code, "fmt.Println(1)\nx")},
		{f.ResultText(3, "5\n"), ResultBlock(f, "5\n")},
		{f.AnswerText("5"), Block(f.Answer, "5")},
		{strings.Join(f.StopStrings(), " "), "</code> </answer>"},
		{strings.Join(f.Tags(), " "), "<think> </think> <code> </code> <output> </output> <answer> </answer>"},
	}
	for i, c := range cases {
		if c.got != c.want {
			t.Errorf("case %d: %q, want %q", i, c.got, c.want)
		}
	}
}

func TestArtTexts(t *testing.T) {
	f := artFormat()
	cases := []struct{ name, got, want string }{
		{"think", f.ThinkText("plan"), "plan\n"},
		{"call", f.CallText("fmt.Println(1)"), "[code] fmt.Println(1)\n"},
		{"call of lines", f.CallText("x := 2\n\n\tfmt.Println(x)\n"), "[code] x := 2; fmt.Println(x)\n"},
		{"result", f.ResultText(1, "5\n"), "#1: 5\n"},
		{"result of lines", f.ResultText(2, "a\n\nb\n"), "#2: a\n#2: \n#2: b\n"},
		{"empty result", f.ResultText(1, ""), "#1: \n"},
		{"result that looks like an answer", f.ResultText(1, "x\nAns: 9"), "#1: x\n#1: Ans: 9\n"},
		{"answer", f.AnswerText("5"), "Ans: 5\n"},
		{"stops", strings.Join(f.StopStrings(), ","), "\n"},
		{"tokens", strings.Join(f.Tags(), " "), "[code] Ans:"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: %q, want %q", c.name, c.got, c.want)
		}
	}
}
