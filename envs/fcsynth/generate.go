package fcsynth

import (
	"fmt"
	"math/rand"
	"strings"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/bfcl"
)

// Category is the bfcl category name the generated entries carry; the
// function-calling rewards and the checker find them under it.
const Category = "fcsynth"

// Options say what Generate draws.
type Options struct {
	// MaxTurns is the most user turns (1 to MaxTurnsLimit).
	MaxTurns int
	// Functions is how many functions a prompt offers, at least the
	// number of distinct functions the conversation calls.
	Functions int
	// Docs is bfcl.DocsSignatures or bfcl.DocsJSON.
	Docs string
}

// Generator draws conversations with their ground truth. Build it with
// NewGenerator.
type Generator struct {
	d    *bfcl.Data
	docs map[string][]bfcl.FunctionDoc // class -> documentation, file order
	o    Options
}

// maxDraws bounds the draws of one conversation: a draw whose ground
// truth fails when replayed, or whose text is excluded, is drawn again.
const maxDraws = 1000

// NewGenerator reads the documentation of every class the templates use
// from d; a class or templated function without documentation is an
// error naming it.
func NewGenerator(d *bfcl.Data, o Options) (*Generator, error) {
	if err := (bfcl.TaskOptions{Docs: o.Docs}).Validate(); err != nil {
		return nil, fmt.Errorf("fcsynth: %w", err)
	}
	g := &Generator{d: d, docs: map[string][]bfcl.FunctionDoc{}, o: o}
	for _, a := range apis {
		fs, err := bfcl.FunctionDocs(d, a.class)
		if err != nil {
			return nil, fmt.Errorf("fcsynth: %w", err)
		}
		g.docs[a.class] = fs
		for _, s := range a.allSteps() {
			if _, ok := g.doc(a.class, s.fn); !ok {
				return nil, fmt.Errorf("fcsynth: the documentation of %s has no function %s", a.class, s.fn)
			}
		}
	}
	return g, nil
}

func (a api) allSteps() []step {
	if a.login == nil {
		return a.steps
	}
	return append([]step{*a.login}, a.steps...)
}

func (g *Generator) doc(class, fn string) (bfcl.FunctionDoc, bool) {
	for _, f := range g.docs[class] {
		if f.Name == fn {
			return f, true
		}
	}
	return bfcl.FunctionDoc{}, false
}

// Generate draws n conversations from seed, IDs prefix_0 ... prefix_{n-1}.
// Each is a bfcl.Entry of Category (ground truth: one call per turn, whose
// replay on fresh instances returns no error) and its task, rendered as
// bfcl.Tasks renders entries. A conversation whose Key is in exclude, or
// already drawn, is drawn again. The same arguments give the same
// conversations.
func (g *Generator) Generate(seed int64, n int, prefix string, exclude map[string]bool) ([]bfcl.Entry, []envs.Task, error) {
	r := rand.New(rand.NewSource(seed))
	seen := map[string]bool{}
	entries := make([]bfcl.Entry, 0, n)
	tasks := make([]envs.Task, 0, n)
	for i := range n {
		id := fmt.Sprintf("%s_%d", prefix, i)
		var e bfcl.Entry
		var t envs.Task
		ok := false
		for range maxDraws {
			e, t = g.draw(r, id)
			k := Key(t)
			if exclude[k] || seen[k] || !g.replays(e) {
				continue
			}
			seen[k], ok = true, true
			break
		}
		if !ok {
			return nil, nil, fmt.Errorf("fcsynth: no new conversation for %s after %d draws: ask for fewer", id, maxDraws)
		}
		entries, tasks = append(entries, e), append(tasks, t)
	}
	return entries, tasks, nil
}

// Key identifies a conversation by what the policy reads: the prompt and
// every later turn.
func Key(t envs.Task) string { return t.Prompt + "\x00" + strings.Join(t.Turns, "\x00") }

// draw makes one conversation: a class, its turns (a login first when
// the class has one), and the functions offered.
func (g *Generator) draw(r *rand.Rand, id string) (bfcl.Entry, envs.Task) {
	a := apis[r.Intn(len(apis))]
	c := &convo{}
	var cfg *bfcl.Dict
	if a.config != nil {
		if cls := a.config(r, c); cls != nil {
			cfg = bfcl.NewDict(a.class, cls)
		}
	}
	turns := 1 + r.Intn(g.o.MaxTurns)
	var plan []step
	if a.login != nil {
		plan = append(plan, *a.login)
	}
	for len(plan) < turns {
		plan = append(plan, a.steps[r.Intn(len(a.steps))])
	}
	e := bfcl.Entry{ID: id, Category: Category, InitialConfig: cfg, InvolvedClasses: []string{a.class},
		MissedFunction: map[int][]string{}}
	var texts, called []string
	for _, s := range plan {
		text, call := s.gen(r, c)
		texts = append(texts, text)
		e.Question = append(e.Question, []bfcl.Message{{Role: "user", Content: text}})
		e.GroundTruth = append(e.GroundTruth, []string{call})
		if !contains(called, s.fn) {
			called = append(called, s.fn)
		}
	}
	t := envs.Task{ID: id, Prompt: g.render(g.offered(r, a.class, called)) + "\n\n" + texts[0], Turns: texts[1:]}
	return e, t
}

// offered returns the called functions and others of the class drawn at
// random, up to Options.Functions, shuffled.
func (g *Generator) offered(r *rand.Rand, class string, called []string) []bfcl.FunctionDoc {
	var out, rest []bfcl.FunctionDoc
	for _, f := range g.docs[class] {
		if contains(called, f.Name) {
			out = append(out, f)
		} else {
			rest = append(rest, f)
		}
	}
	r.Shuffle(len(rest), func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })
	for _, f := range rest {
		if len(out) >= g.o.Functions {
			break
		}
		out = append(out, f)
	}
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// render lists functions as bfcl.Tasks does, so the bfcl chat adapter
// reads the prompt back.
func (g *Generator) render(fns []bfcl.FunctionDoc) string {
	var b strings.Builder
	b.WriteString("Functions:")
	for _, f := range fns {
		b.WriteByte('\n')
		if g.o.Docs == bfcl.DocsJSON {
			b.WriteString(f.JSON)
		} else {
			b.WriteString(f.Signature)
		}
	}
	return b.String()
}

// replays reports whether every ground-truth call of e runs without an
// error on fresh instances (no raised exception, no error dict) and
// returns a result no earlier call returned. The checker looks for each
// turn's results among all results so far, so a repeated result would
// let a later turn pass without its call.
func (g *Generator) replays(e bfcl.Entry) bool {
	env, err := bfcl.NewEnv(g.d, e.InvolvedClasses, e.InitialConfig, false)
	if err != nil {
		return false
	}
	seen := map[string]bool{}
	for _, turn := range e.GroundTruth {
		for _, c := range turn {
			res := env.Execute(c)
			if failed(res) || seen[res] {
				return false
			}
			seen[res] = true
		}
	}
	return true
}

// failed reports a result that says the call did not do its job.
func failed(result string) bool {
	return strings.HasPrefix(result, bfcl.ErrorPrefix) || strings.Contains(strings.ToLower(result), "error")
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}
