package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/artist-rl/artist/reward/mathgrade"
)

// runGradeCLI runs artist grade with args on the given standard input.
func runGradeCLI(t *testing.T, in io.Reader, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(withStdin(context.Background(), in), append([]string{"grade"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

func TestGrade(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"pred equal", `{"gold": "\\frac{1}{2}", "pred": "0.5"}`, `{"extracted":"0.5","equal":true,"reason":"equivalent"}`},
		{"pred not equal", `{"gold": "1/3", "pred": "0.333"}`, `{"extracted":"0.333","equal":false,"reason":"mismatch"}`},
		{"numbers", `{"gold": 27.0, "pred": 27}`, `{"extracted":"27","equal":true,"reason":"equivalent"}`},
		{"response boxed", `{"gold": "(3,\\frac{\\pi}{2})", "response": "so $\\boxed{\\left( 3, \\frac{\\pi}{2} \\right)}$."}`,
			`{"extracted":"\\left( 3, \\frac{\\pi}{2} \\right)","equal":true,"reason":"same"}`},
		{"response answer tag", `{"gold": "5", "response": "<think>t</think><answer>x = 5</answer>"}`, `{"extracted":"x = 5","equal":true,"reason":"equivalent"}`},
		{"response tool output ignored", `{"gold": "5", "response": "<output><answer>5</answer></output>"}`, `{"extracted":"","equal":false,"reason":"no-answer"}`},
		{"response without answer", `{"gold": "5", "response": "no idea"}`, `{"extracted":"","equal":false,"reason":"no-answer"}`},
		{"other fields ignored", `{"id": 7, "gold": "2", "pred": "2", "question": "1+1?"}`, `{"extracted":"2","equal":true,"reason":"same"}`},
		{"crlf", "{\"gold\": \"1\", \"pred\": \"1\"}\r", `{"extracted":"1","equal":true,"reason":"same"}`},
		{"not json", `gold=1 pred=1`, `{"line":1,"error":"not a JSON object with gold and pred or response: invalid character 'g' looking for beginning of value"}`},
		{"blank", ``, `{"line":1,"error":"not a JSON object with gold and pred or response: unexpected end of JSON input"}`},
		{"trailing data", `{"gold": "1", "pred": "1"} {}`, `{"line":1,"error":"not a JSON object with gold and pred or response: invalid character '{' after top-level value"}`},
		{"no gold", `{"pred": "1"}`, `{"line":1,"error":"missing gold"}`},
		{"null gold", `{"gold": null, "pred": "1"}`, `{"line":1,"error":"missing gold"}`},
		{"bad gold", `{"gold": [1], "pred": "1"}`, `{"line":1,"error":"gold must be a string or a number"}`},
		{"no answer", `{"gold": "1"}`, `{"line":1,"error":"missing pred or response"}`},
		{"both", `{"gold": "1", "pred": "1", "response": "1"}`, `{"line":1,"error":"give pred or response, not both"}`},
		{"bad pred", `{"gold": "1", "pred": true}`, `{"line":1,"error":"pred must be a string or a number"}`},
		{"bad response", `{"gold": "1", "response": 1}`, `{"line":1,"error":"response must be a string"}`},
		{"reason ordered tuple", `{"gold": "(1,2)", "pred": "(2,1)"}`, `{"extracted":"(2,1)","equal":false,"reason":"ordered-tuple"}`},
		{"reason unnamed", `{"gold": "3x - y = 2", "pred": "2"}`, `{"extracted":"2","equal":false,"reason":"unnamed"}`},
		{"prediction names the quantity", `{"gold": "2", "pred": "3x - y = 2"}`, `{"extracted":"3x - y = 2","equal":true,"reason":"equivalent"}`},
		{"reason shape", `{"gold": "(1,2)", "pred": "1, 2"}`, `{"extracted":"1, 2","equal":false,"reason":"shape"}`},
		{"reason name", `{"gold": "x = 5", "pred": "y = 5"}`, `{"extracted":"y = 5","equal":false,"reason":"name"}`},
		{"reason parse", `{"gold": "1/2", "pred": "\\frac{1}{"}`, `{"extracted":"\\frac{1}{","equal":false,"reason":"parse"}`},
		{"reason empty", `{"gold": "1", "pred": "$$"}`, `{"extracted":"$$","equal":false,"reason":"empty"}`},
		{"quantity", `{"gold": "104", "response": "so \\boxed{m+n=104}"}`, `{"extracted":"m+n=104","equal":true,"reason":"equivalent"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, stderr := runGradeCLI(t, strings.NewReader(c.in+"\n"))
			if code != 0 || out != c.want+"\n" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 0 and %q", code, out, stderr, c.want+"\n")
			}
		})
	}
}

// TestGradeReasonLimits checks the reasons of answers the grader refuses
// to decide: one over the length limit, and one over the work budget.
func TestGradeReasonLimits(t *testing.T) {
	sums := func(format string) string {
		parts := make([]string, 250)
		for i := range parts {
			parts[len(parts)-1-i] = fmt.Sprintf(format, i+1)
		}
		return strings.Join(parts, ",")
	}
	cases := []struct{ name, pred, gold, reason string }{
		{"too long", strings.Repeat("1", mathgrade.MaxAnswerLen+1), "1", mathgrade.ReasonTooLong},
		{"over budget", sums("%d+x"), sums("x+%d"), mathgrade.ReasonBudget},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			line, err := json.Marshal(map[string]string{"gold": c.gold, "pred": c.pred})
			if err != nil {
				t.Fatal(err)
			}
			code, out, stderr := runGradeCLI(t, bytes.NewReader(append(line, '\n')))
			var got struct {
				Equal  *bool
				Reason string
			}
			if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || got.Equal == nil || *got.Equal || got.Reason != c.reason {
				t.Errorf("exit %d, stdout %.80q, stderr %q; want equal false with reason %q", code, out, stderr, c.reason)
			}
		})
	}
}

// TestGradeStream checks that bad lines do not stop the stream, that
// output lines answer input lines in order and carry the line number of a
// bad line, and that a last line without a newline and very long lines
// are read.
func TestGradeStream(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	in := strings.Join([]string{
		`{"gold": "1", "pred": "1"}`,
		`oops`,
		`{"gold": "2", "response": "` + long + ` \\boxed{2}"}`,
		``,
		`{"gold": "3", "pred": "4"}`,
	}, "\n")
	code, out, stderr := runGradeCLI(t, strings.NewReader(in))
	want := strings.Join([]string{
		`{"extracted":"1","equal":true,"reason":"same"}`,
		`{"line":2,"error":"not a JSON object with gold and pred or response: invalid character 'o' looking for beginning of value"}`,
		`{"extracted":"2","equal":true,"reason":"same"}`,
		`{"line":4,"error":"not a JSON object with gold and pred or response: unexpected end of JSON input"}`,
		`{"extracted":"4","equal":false,"reason":"mismatch"}`,
	}, "\n") + "\n"
	if code != 0 || out != want {
		t.Errorf("exit %d, stderr %q, stdout:\n%s\nwant:\n%s", code, stderr, out, want)
	}
}

func TestGradeFlags(t *testing.T) {
	in := `{"gold": "6", "response": "<answer>5</answer><final>6</final><result><final>7</final></result>"}` + "\n"
	code, out, _ := runGradeCLI(t, strings.NewReader(in), "-answer-tag", "final", "-output-tag", "result")
	if want := `{"extracted":"6","equal":true,"reason":"same"}` + "\n"; code != 0 || out != want {
		t.Errorf("exit %d, stdout %q; want %q", code, out, want)
	}
	if code, _, stderr := runGradeCLI(t, strings.NewReader(""), "file.jsonl"); code != 2 || !strings.Contains(stderr, "input comes from standard input") {
		t.Errorf("an argument: exit %d, stderr %q; want exit 2 and a hint", code, stderr)
	}
	if code, _, stderr := runGradeCLI(t, strings.NewReader(""), "-bogus"); code != 2 || !strings.Contains(stderr, "usage: artist grade") ||
		!strings.Contains(stderr, `"reason": C`) || !strings.Contains(stderr, "ordered-tuple") || !strings.Contains(stderr, "budget") {
		t.Errorf("a bad flag: exit %d, stderr %q; want exit 2 and the usage, reasons included", code, stderr)
	}
	if code, out, _ := runGradeCLI(t, strings.NewReader("")); code != 0 || out != "" {
		t.Errorf("empty input: exit %d, stdout %q; want exit 0 and nothing", code, out)
	}
}

// TestGradeReadError checks that a failing input stops with an error after
// the lines read before it.
func TestGradeReadError(t *testing.T) {
	in := io.MultiReader(strings.NewReader(`{"gold": "1", "pred": "1"}`+"\n"), iotest.ErrReader(errors.New("disk on fire")))
	code, out, stderr := runGradeCLI(t, in)
	if code != 1 || out != `{"extracted":"1","equal":true,"reason":"same"}`+"\n" || !strings.Contains(stderr, "disk on fire") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1, the first verdict and the read error", code, out, stderr)
	}
}
