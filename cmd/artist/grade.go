package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/artist-rl/artist/reward/mathgrade"
	"github.com/artist-rl/artist/rollout/format"
)

// gradeIn is one input line of artist grade. Answers may be JSON strings or
// numbers; other fields are ignored.
type gradeIn struct {
	Gold     json.RawMessage `json:"gold"`
	Pred     json.RawMessage `json:"pred"`
	Response json.RawMessage `json:"response"`
}

// gradeOut is one output line: a verdict with its reason (one of the
// mathgrade.Reason constants), or the error of a bad line.
type gradeOut struct {
	Extracted *string `json:"extracted,omitempty"`
	Equal     *bool   `json:"equal,omitempty"`
	Reason    string  `json:"reason,omitempty"`
	Line      int     `json:"line,omitempty"`
	Error     string  `json:"error,omitempty"`
}

func runGrade(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("grade", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := format.DefaultFormat()
	fs.StringVar(&f.Answer, "answer-tag", f.Answer, "name of the answer tag searched in responses")
	fs.StringVar(&f.Output, "output-tag", f.Output, "name of the tool-output tag whose blocks are ignored")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: artist grade [flags] < in.jsonl > out.jsonl\n\n"+
			"Each input line is {\"gold\": G, \"pred\": P} (a final answer) or {\"gold\": G, \"response\": R}\n"+
			"(a whole response to extract the answer from). Each output line, in order, is\n"+
			"{\"extracted\": A, \"equal\": true|false, \"reason\": C}, or {\"line\": N, \"error\": E} for a bad line.\n"+
			"C says why: same (equal once normalised), equivalent (equal by the math rules),\n"+
			"mismatch, ordered-tuple (the same items in another order), shape (structures no rule\n"+
			"compares), name (different named quantities), unnamed (the gold is an equation such\n"+
			"as 3x - y = 2 and the prediction only its value), parse (not readable as math), budget\n"+
			"(undecided within the work budget, so unequal), too-long, empty, or no-answer (the\n"+
			"response holds no answer to extract).")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "artist grade: unexpected argument %q: input comes from standard input\n", fs.Arg(0))
		return errUsage
	}
	return gradeLines(ctx, stdinOf(ctx), stdout, f)
}

// gradeLines writes one verdict per line of r, flushing whenever the input
// has nothing more buffered so that a pipe sees answers as they come.
func gradeLines(ctx context.Context, r io.Reader, w io.Writer, f format.Format) error {
	in := bufio.NewReader(r)
	out := bufio.NewWriter(w)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for line := 1; ; line++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		text, err := in.ReadBytes('\n')
		if len(text) > 0 {
			if err := enc.Encode(gradeLine(text, line, f)); err != nil {
				return fmt.Errorf("write verdict: %w", err)
			}
		}
		if errors.Is(err, io.EOF) {
			return out.Flush()
		}
		if err != nil {
			return fmt.Errorf("read line %d: %w", line, err)
		}
		if in.Buffered() == 0 {
			if err := out.Flush(); err != nil {
				return fmt.Errorf("write verdict: %w", err)
			}
		}
	}
}

// gradeLine grades one input line.
func gradeLine(text []byte, line int, f format.Format) gradeOut {
	fail := func(format string, a ...any) gradeOut {
		return gradeOut{Line: line, Error: fmt.Sprintf(format, a...)}
	}
	var in gradeIn
	if err := json.Unmarshal(bytes.TrimSpace(text), &in); err != nil {
		return fail("not a JSON object with gold and pred or response: %v", err)
	}
	if isNull(in.Gold) {
		return fail("missing gold")
	}
	gold, err := answerText(in.Gold)
	if err != nil {
		return fail("gold must be a string or a number")
	}
	var extracted string
	found := true
	switch {
	case !isNull(in.Pred) && !isNull(in.Response):
		return fail("give pred or response, not both")
	case !isNull(in.Pred):
		if extracted, err = answerText(in.Pred); err != nil {
			return fail("pred must be a string or a number")
		}
	case !isNull(in.Response):
		var resp string
		if err := json.Unmarshal(in.Response, &resp); err != nil {
			return fail("response must be a string")
		}
		extracted, found = mathgrade.Extract(resp, f)
	default:
		return fail("missing pred or response")
	}
	v := mathgrade.Grade(extracted, gold)
	if !found {
		v.Reason = mathgrade.ReasonNoAnswer
	}
	return gradeOut{Extracted: &extracted, Equal: &v.Equal, Reason: v.Reason}
}

// isNull reports whether a field is absent or null.
func isNull(raw json.RawMessage) bool { return raw == nil || string(raw) == "null" }

// answerText reads a JSON string, or a JSON number as written.
func answerText(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return "", err
	}
	return n.String(), nil
}
