package arith

import (
	"io"
	"math/rand"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func randomProblems(seed int64, n int) []Problem {
	rng := rand.New(rand.NewSource(seed))
	ps := make([]Problem, n)
	for i := range ps {
		ps[i] = Random(rng, allOps[i%len(allOps)])
	}
	return ps
}

func TestProblem(t *testing.T) {
	tests := []struct {
		p                Problem
		prompt, code, id string
		answer           int
	}{
		{Problem{Mul, 4821, 37, 0, 1}, "37 boxes hold 4821 coins each. How many coins?", "fmt.Println(4821 * 37)", "arith-mul-4821-37-t0-n1", 178377},
		{Problem{Div, 178377, 37, 1, 6}, "37 kids share 178377 apples equally. How many each?", "fmt.Println(178377 / 37)", "arith-div-178377-37-t1-n6", 4821},
		{Problem{Mod, 4821, 37, 0, 3}, "4821 eggs go in boxes of 37. How many left over?", "fmt.Println(4821 % 37)", "arith-mod-4821-37-t0-n3", 11},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			p := tc.p
			if p.Prompt() != tc.prompt || p.Code() != tc.code || p.ID() != tc.id || p.Answer() != tc.answer {
				t.Errorf("got %q %q %q %d, want %q %q %q %d",
					p.Prompt(), p.Code(), p.ID(), p.Answer(), tc.prompt, tc.code, tc.id, tc.answer)
			}
			task := p.Task()
			if task.ID != tc.id || task.Prompt != tc.prompt || task.Answer != strconv.Itoa(tc.answer) {
				t.Errorf("Task() = %+v", task)
			}
		})
	}
}

func TestAnswers(t *testing.T) {
	for _, p := range randomProblems(3, 30000) {
		if !p.valid() {
			t.Fatalf("Random returned %+v, outside its documented ranges", p)
		}
		var ok bool
		switch a := p.Answer(); p.Op {
		case Mul:
			ok = a == p.A*p.B && a/p.B == p.A
		case Div:
			ok = a*p.B == p.A && inDigits(a, 2, 3)
		case Mod:
			ok = a >= 0 && a < p.B && (p.A-a)%p.B == 0
		}
		if !ok || p.Task().Answer != strconv.Itoa(p.Answer()) {
			t.Fatalf("%+v: wrong answer %d", p, p.Answer())
		}
	}
}

func TestPromptLengths(t *testing.T) {
	const lo, hi = 30, 60
	extremes := map[Op][][2]int{
		Mul: {{100, 10}, {9999, 999}},
		Div: {{10 * 10, 10}, {999 * 999, 999}},
		Mod: {{1000, 10}, {99999, 99}},
	}
	for _, op := range allOps {
		for _, ab := range extremes[op] {
			for tmpl := range NumTemplates {
				for noun := range NumNouns {
					p := Problem{Op: op, A: ab[0], B: ab[1], Template: tmpl, Noun: noun}
					if n := len(p.Prompt()); n < lo || n > hi {
						t.Errorf("%q has %d characters, want %d to %d", p.Prompt(), n, lo, hi)
					}
				}
			}
		}
	}
	for _, p := range randomProblems(4, 10000) {
		if n := len(p.Prompt()); n < lo || n > hi {
			t.Fatalf("%q has %d characters, want %d to %d", p.Prompt(), n, lo, hi)
		}
	}
}

func TestTemplatesDistinct(t *testing.T) {
	seen := map[string]bool{}
	for _, op := range allOps {
		for i, tmpl := range templates[op] {
			if tmpl == "" || seen[tmpl] || !strings.Contains(tmpl, "%[1]d") || !strings.Contains(tmpl, "%[2]d") {
				t.Errorf("%s template %d %q is empty, repeated or misses an operand", op, i, tmpl)
			}
			seen[tmpl] = true
		}
	}
	for i, n := range nouns {
		if n == "" || !strings.HasSuffix(n, "s") {
			t.Errorf("noun %d %q is not a plural", i, n)
		}
	}
}

func TestReferenceRoundTrip(t *testing.T) {
	for _, p := range randomProblems(5, 5000) {
		got, ok := parseID(p.ID())
		if !ok || got != p {
			t.Fatalf("parseID(%q) = %+v, %v; want %+v", p.ID(), got, ok, p)
		}
		if code, ok := Reference(p.Task()); !ok || code != p.Code() {
			t.Fatalf("Reference(%+v) = %q, %v; want %q", p.Task(), code, ok, p.Code())
		}
	}
}

func TestParseIDRejects(t *testing.T) {
	for _, id := range []string{
		"", "gsm8k-17", "arith-mul-4821-37-t0", "arith-mul-4821-37-t0-n0-x",
		"arith-pow-4821-37-t0-n0", "arith-mul-4821-37-t4-n0", "arith-mul-4821-37-t0-n8",
		"arith-mul-4821-37-0-0", "arith-mul-04821-37-t0-n0", "arith-mul-+4821-37-t0-n0",
		"arith-mul-4821-x-t0-n0", "arith-mul-99-37-t0-n0", "arith-mul-4821-1000-t0-n0",
		"arith-div-4822-37-t0-n0", "arith-div-333-37-t0-n0", "arith-div-37-0-t0-n0",
		"arith-mod-999-37-t0-n0", "arith-mod-4821-100-t0-n0",
	} {
		t.Run(id, func(t *testing.T) {
			if p, ok := parseID(id); ok {
				t.Errorf("parseID(%q) = %+v, want rejection", id, p)
			}
		})
	}
}

func TestConfig(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       Config
		wantErr    string
	}{
		{"defaults", "", DefaultConfig(), ""},
		{"overrides", "ops: [mod]\neval_size: 0\ntrain_seed: 7\neval_seed: 8\n", Config{Ops: []string{"mod"}, TrainSeed: 7, EvalSeed: 8}, ""},
		{"no ops", "ops: []\n", Config{Ops: []string{}, EvalSize: 200, TrainSeed: 1, EvalSeed: 2}, "arith: ops is empty; list one or more of mul, div, mod"},
		{"unknown op", "ops: [mul, pow]\n", Config{Ops: []string{"mul", "pow"}, EvalSize: 200, TrainSeed: 1, EvalSeed: 2}, `arith: ops has unknown operation "pow"; allowed: mul, div, mod`},
		{"repeated op", "ops: [mul, mul]\n", Config{Ops: []string{"mul", "mul"}, EvalSize: 200, TrainSeed: 1, EvalSeed: 2}, `arith: ops lists "mul" twice`},
		{"negative eval_size", "eval_size: -1\n", Config{Ops: []string{"mul", "div", "mod"}, EvalSize: -1, TrainSeed: 1, EvalSeed: 2}, "arith: eval_size must be in [0, 10000], got -1"},
		{"huge eval_size", "eval_size: 10001\n", Config{Ops: []string{"mul", "div", "mod"}, EvalSize: 10001, TrainSeed: 1, EvalSeed: 2}, "arith: eval_size must be in [0, 10000]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			dec := yaml.NewDecoder(strings.NewReader(tc.yaml))
			dec.KnownFields(true)
			if err := dec.Decode(&cfg); err != nil && err != io.EOF {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(cfg, tc.want) {
				t.Errorf("decoded %+v, want %+v", cfg, tc.want)
			}
			_, _, err := NewSplit(cfg)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.wantErr)) {
				t.Errorf("NewSplit(%+v) error %v, want %q", cfg, err, tc.wantErr)
			}
		})
	}
}
