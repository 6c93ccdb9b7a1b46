package rollout

import (
	"context"
	"slices"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/rollout/format"
)

// imEnd is a second end-of-turn token, as <|im_end|> is beside
// <|endoftext|> for Qwen2.5-Instruct.
const imEnd = "<|im_end|>"

// stopTok is a charTok that also ends turns on the ids in stops.
type stopTok struct {
	*charTok
	stops []int
}

func (t stopTok) StopIDs() []int { return slices.Clone(t.stops) }

// imEndTok has the default tags and imEnd as single tokens; with stop,
// imEnd is a stop id beside EOS.
func imEndTok(stop bool) (Tokenizer, *charTok, int) {
	ct := newCharTok(true, append(format.DefaultFormat().Tags(), imEnd)...)
	id := ct.ids[imEnd]
	if !stop {
		return ct, ct, id
	}
	return stopTok{ct, []int{eosID, id}}, ct, id
}

func TestStopIDs(t *testing.T) {
	ct := taggedTok()
	cases := []struct {
		name string
		tok  Tokenizer
		want []int
	}{
		{"EOS alone", ct, []int{eosID}},
		{"EOS and another", stopTok{ct, []int{eosID, 7}}, []int{eosID, 7}},
		{"EOS added when missing", stopTok{ct, []int{7, 9}}, []int{eosID, 7, 9}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := StopIDs(c.tok); !slices.Equal(got, c.want) {
				t.Errorf("StopIDs = %v, want %v", got, c.want)
			}
		})
	}
}

// TestRunStopsOnEveryStopID: a rollout ends its turn on any stop id, not
// only on EOS; the token that stopped it is kept with mask 1.
func TestRunStopsOnEveryStopID(t *testing.T) {
	multi := []envs.Task{{ID: "c", Prompt: "a", Turns: []string{"b"}}}
	cases := []struct {
		name  string
		stop  bool // imEnd is a stop id
		tasks []envs.Task
		want  string
		last  string // the text of the last token
		turns int
	}{
		{"second stop id ends the rollout", true, oneTask, "<think>x</think>" + imEnd, imEnd, 1},
		{"without it the text goes on", false, oneTask, "<think>x</think>" + imEnd + "more", "", 1},
		{"second stop id ends each turn", true, multi, "<think>x</think>" + imEnd + "\n#b\n<think>x</think>" + imEnd, imEnd, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tok, ct, _ := imEndTok(c.stop)
			p := &scriptPolicy{tok: ct, next: dialogue(turns("<think>x</think>" + imEnd + "more")), peak: sure}
			cfg := DefaultConfig()
			cfg.GroupSize, cfg.Temperature, cfg.MaxToolCalls = 1, 0, 0
			e := &Engine{Policy: p, Tokenizer: tok, Format: format.DefaultFormat(), Config: cfg, UserTurn: hashTurn}
			trajs, err := e.Run(context.Background(), c.tasks, nil)
			if err != nil {
				t.Fatal(err)
			}
			tr := trajs[0]
			if tr.Response != c.want || tr.Stop != StopEOS || tr.Turns != c.turns {
				t.Fatalf("response %q stop %s turns %d, want %q eos turns %d", tr.Response, tr.Stop, tr.Turns, c.want, c.turns)
			}
			last := len(tr.Tokens) - 1
			if got := ct.Decode(tr.Tokens[last:]); got != c.last || tr.Mask[last] != 1 {
				t.Errorf("last token %q mask %d, want %q mask 1", got, tr.Mask[last], c.last)
			}
		})
	}
}

// TestCompleteStopsOnEveryStopID: Complete, what artist serve runs, stops
// on the second stop id as on EOS.
func TestCompleteStopsOnEveryStopID(t *testing.T) {
	cases := []struct {
		name string
		stop bool
		text string
		eos  bool
	}{
		{"second stop id", true, "<think>x</think>", true},
		{"plain text without it", false, "<think>x</think>" + imEnd + "more", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tok, ct, id := imEndTok(c.stop)
			p := &scriptPolicy{tok: ct, next: turns("<think>x</think>" + imEnd + "more"), peak: sure}
			comp, err := Complete(context.Background(), p, tok, ct.Encode("Q\n"), CompleteConfig{MaxTokens: 40, TopP: 1}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if comp.Text != c.text || comp.EOS != c.eos || comp.Length {
				t.Fatalf("text %q eos %v length %v, want %q eos %v", comp.Text, comp.EOS, comp.Length, c.text, c.eos)
			}
			if lastTok := comp.Tokens[len(comp.Tokens)-1]; c.stop && lastTok != id {
				t.Errorf("stopped on token %d, want the second stop id %d", lastTok, id)
			}
		})
	}
}
