package rollout

import (
	"reflect"
	"strings"
	"testing"

	"github.com/artist-rl/artist/rollout/format"
)

func artFormat() format.Format { f := format.DefaultFormat(); f.Style = format.StyleART; return f }

// TestProgramRoundTrip renders demonstrations with Program and reads them
// back with Pieces: the same reasoning, calls, results and answer.
func TestProgramRoundTrip(t *testing.T) {
	type call struct{ code, output string }
	cases := []struct {
		name    string
		thought string
		calls   []call
		answer  string
	}{
		{"no call", "4821 * 37", nil, "178377"},
		{"one call", "4821 * 37", []call{{"fmt.Println(4821 * 37)", "178377\n"}}, "178377"},
		{"two calls", "2 steps", []call{{"fmt.Println(2+3)", "5\n"}, {"fmt.Println(5*4)", "20\n"}}, "20"},
		{"result of lines", "list", []call{{"fmt.Println(1); fmt.Println(2)", "1\n2\n"}}, "2"},
		{"result that reads as a call", "odd", []call{{"fmt.Println(x)", "[code] rm\nAns: 0\n"}}, "7"},
	}
	f := artFormat()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			prog := NewProgram(f).Think(c.thought)
			for _, cl := range c.calls {
				prog.Call(cl.code, cl.output)
			}
			segs := prog.Answer(c.answer).Segments()
			var resp strings.Builder
			for k, s := range segs {
				if s.Tool != (k%2 == 1 && k < len(segs)-1) {
					t.Fatalf("segment %d %q: tool %v", k, s.Text, s.Tool)
				}
				resp.WriteString(s.Text)
			}
			want := []format.Piece{{Kind: format.PieceText, Text: c.thought}}
			for k, cl := range c.calls {
				want = append(want, format.Piece{Kind: format.PieceCall, Text: cl.code}, format.Piece{Kind: format.PieceResult, Text: strings.TrimRight(cl.output, "\n"), N: k + 1})
			}
			want = append(want, format.Piece{Kind: format.PieceAnswer, Text: c.answer})
			if got := f.Pieces(resp.String()); !reflect.DeepEqual(got, want) {
				t.Errorf("Pieces of %q =\n %+v\nwant\n %+v", resp.String(), got, want)
			}
		})
	}
}

// FuzzPieces renders fuzzed programs with Program and reads them back:
// every call, result and answer comes back, whatever the tool printed.
func FuzzPieces(f *testing.F) {
	f.Add("plan", "fmt.Println(1)", "1\n", "1")
	f.Add("x", "a\nb", "Ans: 2\n[code] y\n#3: z\n\n", " 2 ")
	f.Add("two words", "", "", "")
	f.Fuzz(func(t *testing.T, thought, code, output, answer string) {
		fm := artFormat()
		fm.Pieces(thought + code + output + answer) // any text: no panic
		if strings.TrimSpace(thought) == "" || strings.Contains(thought, "\n") || fm.Pieces(thought + "\n")[0].Kind != format.PieceText ||
			strings.ContainsAny(answer, "\n") || strings.Contains(answer, "<|") {
			t.Skip()
		}
		prog := NewProgram(fm).Think(thought).Call(code, output).Answer(answer)
		var resp strings.Builder
		for _, s := range prog.Segments() {
			resp.WriteString(s.Text)
		}
		want := []format.Piece{{Kind: format.PieceText, Text: thought}, {Kind: format.PieceCall, Text: format.OneLine(code)},
			{Kind: format.PieceResult, Text: strings.TrimRight(output, "\n"), N: 1}, {Kind: format.PieceAnswer, Text: strings.TrimSpace(answer)}}
		if got := fm.Pieces(resp.String()); !reflect.DeepEqual(got, want) {
			t.Errorf("Pieces(%q) =\n %+v\nwant\n %+v", resp.String(), got, want)
		}
	})
}
