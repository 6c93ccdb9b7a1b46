package arith

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	"github.com/artist-rl/artist/envs"
)

func mustSplit(t *testing.T, cfg Config) (*Generator, []envs.Task) {
	t.Helper()
	g, held, err := NewSplit(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return g, held
}

func TestSplitDeterministic(t *testing.T) {
	cfg := DefaultConfig()
	g1, held1 := mustSplit(t, cfg)
	g2, held2 := mustSplit(t, cfg)
	if len(held1) != cfg.EvalSize || !reflect.DeepEqual(held1, held2) {
		t.Fatalf("held-out sets differ or have the wrong size %d", len(held1))
	}
	s1 := g1.Sample(rand.New(rand.NewSource(cfg.TrainSeed)), 500)
	s2 := g2.Sample(rand.New(rand.NewSource(cfg.TrainSeed)), 500)
	if !reflect.DeepEqual(s1, s2) {
		t.Fatal("same train seed gave different samples")
	}
	cfg.EvalSeed = 3
	_, held3 := mustSplit(t, cfg)
	if reflect.DeepEqual(held1, held3) {
		t.Fatal("different eval seeds gave the same held-out set")
	}
	s3 := g1.Sample(rand.New(rand.NewSource(cfg.TrainSeed+1)), 500)
	if reflect.DeepEqual(s1, s3) {
		t.Fatal("different train seeds gave the same samples")
	}
}

func TestHeldOutBalancedAndDistinct(t *testing.T) {
	_, held := mustSplit(t, Config{Ops: []string{"mod", "mul"}, EvalSize: 301, EvalSeed: 9})
	count := map[Op]int{}
	seen := map[any]bool{}
	for _, task := range held {
		p, ok := parseID(task.ID)
		if !ok || seen[p.key()] || !reflect.DeepEqual(task, p.Task()) {
			t.Fatalf("held-out task %+v is malformed or repeated", task)
		}
		seen[p.key()] = true
		count[p.Op]++
	}
	if want := map[Op]int{Mod: 151, Mul: 150}; !reflect.DeepEqual(count, want) {
		t.Errorf("ops per held-out set %v, want %v", count, want)
	}
}

// TestNoOverlap uses a held-out set dense enough in small divisions that
// unfiltered draws would hit it thousands of times in 100k samples.
func TestNoOverlap(t *testing.T) {
	cfg := Config{Ops: []string{"div", "mul"}, EvalSize: 10000, EvalSeed: 2}
	g, held := mustSplit(t, cfg)
	heldKeys := map[any]bool{}
	for _, task := range held {
		p, _ := parseID(task.ID)
		heldKeys[p.key()] = true
	}
	const n = 100000
	unfiltered := 0
	raw := rand.New(rand.NewSource(11))
	for range n {
		if heldKeys[g.draw(raw, raw.Intn(g.kinds)).key()] {
			unfiltered++
		}
	}
	if unfiltered < 100 {
		t.Fatalf("only %d of %d unfiltered draws are held out; the test has no power", unfiltered, n)
	}
	for i, task := range g.Sample(rand.New(rand.NewSource(11)), n) {
		p, ok := parseID(task.ID)
		if !ok || heldKeys[p.key()] {
			t.Fatalf("sample %d %+v is held out or malformed", i, task)
		}
	}
}

func TestEveryTemplateAndNounUsed(t *testing.T) {
	g, _ := mustSplit(t, DefaultConfig())
	type use struct {
		op   Op
		tmpl int
	}
	templatesSeen := map[use]bool{}
	nounsSeen := map[int]bool{}
	for _, task := range g.Sample(rand.New(rand.NewSource(1)), 3000) {
		p, _ := parseID(task.ID)
		templatesSeen[use{p.Op, p.Template}] = true
		nounsSeen[p.Noun] = true
	}
	for _, op := range allOps {
		for tmpl := range NumTemplates {
			if !templatesSeen[use{op, tmpl}] {
				t.Errorf("%s template %d never drawn", op, tmpl)
			}
		}
	}
	if len(nounsSeen) != NumNouns {
		t.Errorf("%d of %d nouns drawn", len(nounsSeen), NumNouns)
	}
}

func TestOpsRestricted(t *testing.T) {
	g, held := mustSplit(t, Config{Ops: []string{"mod"}, EvalSize: 20, EvalSeed: 2})
	for _, task := range append(held, g.Sample(rand.New(rand.NewSource(1)), 200)...) {
		if p, _ := parseID(task.ID); p.Op != Mod {
			t.Fatalf("task %+v is not a remainder problem", task)
		}
	}
}

func BenchmarkSample(b *testing.B) {
	for _, size := range []int{0, 200, 10000} {
		b.Run(fmt.Sprintf("eval_size=%d", size), func(b *testing.B) {
			g, _, err := NewSplit(Config{Ops: []string{"mul", "div", "mod"}, EvalSize: size, EvalSeed: 2})
			if err != nil {
				b.Fatal(err)
			}
			rng := rand.New(rand.NewSource(1))
			for b.Loop() {
				g.Sample(rng, 64)
			}
			b.ReportMetric(float64(64*b.N)/b.Elapsed().Seconds(), "tasks/s")
		})
	}
}
