package rollout

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/rollout/format"
)

// artTok has the art style's markers ([code], Ans:) as single tokens.
func artTok() *charTok { return newCharTok(true, artFormat().Tags()...) }

// artTurns is turns for the art style: the script writes segs[k] after
// reading k results ("#n: " lines); "{out}" is the text of the last
// result, "{prompt}" the prompt, both trimmed.
func artTurns(segs ...string) nextFunc {
	return func(_ int, prompt, resp string) string {
		k, out, cur := 0, "", resp
		for pos := 0; pos < len(resp); {
			end := len(resp)
			if i := strings.IndexByte(resp[pos:], '\n'); i >= 0 {
				end = pos + i + 1
			}
			if n, text, ok := format.ResultLine(strings.TrimSuffix(resp[pos:end], "\n")); ok && strings.HasSuffix(resp[pos:end], "\n") {
				if n != k {
					k, out = n, text
				} else {
					out += "\n" + text
				}
				cur = resp[end:]
			}
			pos = end
		}
		if k >= len(segs) {
			return ""
		}
		seg := strings.ReplaceAll(segs[k], "{prompt}", strings.TrimSpace(prompt))
		seg = strings.ReplaceAll(seg, "{out}", strings.TrimSpace(out))
		rest, ok := strings.CutPrefix(seg, cur)
		if !ok {
			return ""
		}
		return rest
	}
}

// artSpans returns the trajectory's response as runs of equal mask: the
// policy's text (mask 1) and the engine's (mask 0), in order.
func artSpans(tok Tokenizer, tr *Trajectory) (model, engine []string) {
	resp, mask := tr.Tokens[tr.PromptLen:], tr.Mask[tr.PromptLen:]
	for i := 0; i < len(resp); {
		j := i + 1
		for j < len(resp) && mask[j] == mask[i] {
			j++
		}
		if mask[i] == 0 {
			engine = append(engine, tok.Decode(resp[i:j]))
		} else {
			model = append(model, tok.Decode(resp[i:j]))
		}
		i = j
	}
	return model, engine
}

func TestRunART(t *testing.T) {
	lines := toolFunc(func(context.Context, string) envs.Result {
		return envs.Result{Status: envs.StatusOK, Output: "a\nAns: 9\n"}
	})
	budget := func(s string) func(*Config) {
		return func(c *Config) { c.MaxResponseTokens = len(artTok().Encode(s)) }
	}
	cases := []struct {
		name    string
		tok     *charTok
		script  nextFunc
		tool    envs.Tool
		edit    func(*Config)
		resp    string
		results []string // what the engine wrote, in order (mask 0)
		calls   []string
		stop    StopReason
	}{
		{"two calls then answer", artTok(),
			artTurns("add\n[code] fmt.Println({prompt})\n#1: 999\n", "[code] fmt.Println(1+{out})\n", "Ans: {out}\nmore"),
			calc, nil,
			"add\n[code] fmt.Println(2+3)\n#1: 5\n[code] fmt.Println(1+5)\n#2: 6\nAns: 6\n",
			[]string{"#1: 5\n", "#2: 6\n"}, []string{"fmt.Println(2+3)", "fmt.Println(1+5)"}, StopAnswer},
		{"markers span tokens", newCharTok(true),
			artTurns("Q1: [code] fmt.Println({prompt})\n", "Ans: {out}\n"), calc, nil,
			"Q1: [code] fmt.Println(2+3)\n#1: 5\nAns: 5\n", []string{"#1: 5\n"}, []string{"fmt.Println(2+3)"}, StopAnswer},
		{"token runs past the newline", newCharTok(true, append(artFormat().Tags(), ")\nA")...),
			artTurns("[code] fmt.Println({prompt})\nAns: 1\n", "Ans: {out}\n"), calc, nil,
			"[code] fmt.Println(2+3)\nA\n#1: 5\nAns: 5\n", []string{"\n#1: 5\n"}, []string{"fmt.Println(2+3)"}, StopAnswer},
		{"result of lines", artTok(),
			artTurns("[code] fmt.Println(0)\n", "Ans: {out}\n"), lines, nil,
			"[code] fmt.Println(0)\n#1: a\n#1: Ans: 9\nAns: a\n", []string{"#1: a\n#1: Ans: 9\n"}, []string{"fmt.Println(0)"}, StopAnswer},
		{"marker mid-line is no call", artTok(),
			artTurns("I could write [code] fmt.Println(2+3)\nAns: 5\n"), calc, nil,
			"I could write [code] fmt.Println(2+3)\nAns: 5\n", nil, nil, StopAnswer},
		{"call cut by the budget", artTok(),
			artTurns("x\n[code] fmt.Println(2+3)\n"), calc, budget("x\n[code] fmt.Println(2+3)"),
			"x\n[code] fmt.Println(2+3)", nil, nil, StopLength},
		{"call on the last budgeted token", artTok(),
			artTurns("x\n[code] fmt.Println(2+3)\n", "Ans: {out}\n"), calc, budget("x\n[code] fmt.Println(2+3)\n"),
			"x\n[code] fmt.Println(2+3)\n#1: 5\n", []string{"#1: 5\n"}, []string{"fmt.Println(2+3)"}, StopLength},
		{"too many calls", artTok(),
			artTurns("[code] fmt.Println(2+3)\n", "[code] fmt.Println(2+3)\n"), calc, func(c *Config) { c.MaxToolCalls = 1 },
			"[code] fmt.Println(2+3)\n#1: 5\n[code] fmt.Println(2+3)\n", []string{"#1: 5\n"}, []string{"fmt.Println(2+3)"}, StopMaxTurns},
		{"eos", artTok(), artTurns("thinking"), calc, nil, "thinking", nil, nil, StopEOS},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, p := setup(c.tok, c.script, sure, c.tool, func(cfg *Config) {
				cfg.Temperature = 0
				if c.edit != nil {
					c.edit(cfg)
				}
			})
			e.Format = artFormat()
			tasks := []envs.Task{{ID: "t0", Prompt: "2+3", Answer: "5"}}
			trajs, err := e.Run(context.Background(), tasks, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkGroups(t, e, tasks, trajs)
			for i, tr := range trajs {
				checkFeeds(t, p.sessions[0], i, tr)
				if tr.Response != c.resp || tr.Stop != c.stop {
					t.Fatalf("row %d: response %q stop %s, want %q %s", i, tr.Response, tr.Stop, c.resp, c.stop)
				}
				if _, engine := artSpans(c.tok, tr); !reflect.DeepEqual(engine, c.results) {
					t.Errorf("row %d: engine wrote %q (mask 0), want %q", i, engine, c.results)
				}
				var calls []string
				for _, cl := range tr.Calls {
					calls = append(calls, cl.Input)
				}
				if !reflect.DeepEqual(calls, c.calls) {
					t.Errorf("row %d: calls %q, want %q", i, calls, c.calls)
				}
				var callRuns []string // tool-call tokens, which start at their line
				for _, run := range kindRuns(tr, c.tok) {
					if text, ok := strings.CutPrefix(run, "tool_call:"); ok {
						callRuns = append(callRuns, text)
					}
				}
				for k, in := range c.calls {
					if k >= len(callRuns) || !strings.HasPrefix(callRuns[k], "[code] "+in+"\n") && !strings.HasSuffix(callRuns[k], ": [code] "+in+"\n") {
						t.Errorf("row %d: tool-call runs %q, want call %d %q among them", i, callRuns, k, in)
					}
				}
				if tr.ModelTokens() > e.Config.MaxResponseTokens {
					t.Errorf("row %d: %d model tokens over the budget", i, tr.ModelTokens())
				}
			}
			if s := p.sessions[0]; s.overflow != nil {
				t.Fatalf("session overflow: %v", s.overflow)
			}
		})
	}
}

// TestRunTagsIgnoresArtLines: in the tags style an art-style call line
// is plain text.
func TestRunTagsIgnoresArtLines(t *testing.T) {
	tok := taggedTok()
	e, p := setup(tok, turns("[code] fmt.Println(2+3)\n<answer>5</answer>"), sure, calc, nil)
	for _, tr := range run(t, e, p, oneTask, 1) {
		if len(tr.Calls) != 0 || tr.Stop != StopAnswer || tr.Response != "[code] fmt.Println(2+3)\n<answer>5</answer>" {
			t.Fatalf("response %q stop %s calls %d", tr.Response, tr.Stop, len(tr.Calls))
		}
	}
}

// TestRemoteMatchesEngineART is TestRemoteMatchesEngine in the art style:
// the newline-stopped text loop must give the engine's trajectories.
func TestRemoteMatchesEngineART(t *testing.T) {
	cases := []struct {
		name string
		next nextFunc
		edit func(*Config)
		stop StopReason
	}{
		{"call then answer", artTurns("add\nnow\n[code] fmt.Println({prompt})\n", "Ans: {out}\n"), nil, StopAnswer},
		{"two calls", artTurns("[code] fmt.Println({prompt})\n", "Q2: [code] fmt.Println(1+{out})\n", "so\nAns: {out}\n"), nil, StopAnswer},
		{"failed call", artTurns("[code] oops\n", "Ans: {out}\n"), nil, StopAnswer},
		{"budget runs out", artTurns(strings.Repeat("la\n", 20)), budget(20), StopLength},
		{"call on the last budgeted token", artTurns("[code] fmt.Println({prompt})\n", "Ans: {out}\n"), budget(len(artTok().Encode("[code] fmt.Println(2+3)\n"))), StopLength},
		{"too many calls", artTurns("[code] fmt.Println({prompt})\n", "[code] fmt.Println({prompt})\n"), func(c *Config) { c.MaxToolCalls = 1 }, StopMaxTurns},
		{"eos", artTurns("done\nthinking"), nil, StopEOS},
	}
	tasks := []envs.Task{{ID: "a", Prompt: "2+3"}, {ID: "b", Prompt: "4+5"}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tok := artTok()
			e, p := setup(tok, wholeText(c.next), 50, calc, func(cfg *Config) {
				cfg.Temperature = 0
				if c.edit != nil {
					c.edit(cfg)
				}
			})
			e.Format, e.Tokenizer = artFormat(), eosText{tok}
			local, err := e.Run(context.Background(), tasks, nil)
			if err != nil {
				t.Fatal(err)
			}
			srv := completionServer(t, p, tok)
			rem := &Remote{URL: srv.URL, Model: "script", Tool: calc, Format: e.Format, Config: e.Config, Tokenizer: e.Tokenizer, Parallel: 3}
			got, used, err := rem.Run(context.Background(), tasks, 2, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range local {
				g := got[i]
				if g.Response != want.Response || g.Stop != want.Stop || !reflect.DeepEqual(g.Calls, want.Calls) || used[i] != want.ModelTokens() {
					t.Errorf("trajectory %d:\n remote %q %s %d tokens %+v\n engine %q %s %d tokens %+v",
						i, g.Response, g.Stop, used[i], g.Calls, want.Response, want.Stop, want.ModelTokens(), want.Calls)
				}
				if want.Stop != c.stop {
					t.Errorf("trajectory %d stopped with %s, want %s", i, want.Stop, c.stop)
				}
			}
		})
	}
}

func TestRemoteStopOfART(t *testing.T) {
	r := &Remote{Format: artFormat()}
	stops := r.Format.StopStrings()
	cases := []struct {
		name, finish, reason, want string
	}{
		{"length", "length", "", ""},
		{"named newline", "stop", `"\n"`, "\n"},
		{"null reason is eos", "stop", "null", stopEOS},
		{"token id reason is eos", "stop", "151643", stopEOS},
		{"unnamed stop is the newline", "stop", "", "\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			choice := openai.Choice{Text: "[code] x", FinishReason: c.finish, StopReason: json.RawMessage(c.reason)}
			if got := r.stopOf(choice, stops); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}
