package atlass

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/arith"
	"github.com/artist-rl/artist/envs/family"
	"github.com/artist-rl/artist/envs/toollib"
	"github.com/artist-rl/artist/openai"
)

// replayChat answers each conversation with the reply of the
// demonstration whose messages are the same, and refuses any other: the
// demonstrations then are what the phases send, and their replies what
// the phases accept.
type replayChat struct {
	demos []PhaseDemo
	asked []string // the phases, in order
}

func (c *replayChat) Reply(_ context.Context, msgs []openai.ChatMessage) (string, error) {
	for _, d := range c.demos {
		if slices.EqualFunc(d.Messages, msgs, sameMessage) {
			c.asked = append(c.asked, d.Phase)
			return d.Reply, nil
		}
	}
	return "", fmt.Errorf("no demonstration has the conversation of request %d", len(c.asked)+1)
}

func sameMessage(a, b openai.ChatMessage) bool {
	x, errX := openai.MessageText(a.Content)
	y, errY := openai.MessageText(b.Content)
	return a.Role == b.Role && x == y && errX == nil && errY == nil
}

// seedDB imports a seed library of configs/library into a new database.
func seedDB(t *testing.T, code envs.Tool, file string) *toollib.DB {
	t.Helper()
	db, err := toollib.OpenDB(filepath.Join(t.TempDir(), "tools.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if file == "" {
		return db
	}
	ids, err := db.ImportTools(context.Background(), code, filepath.Join("..", "configs", "library", file))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if err := db.Approve(context.Background(), id, "seed"); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// TestTeacherArith writes the demonstrations of an arithmetic task of
// each operation from the arith family's ground truth over a seed
// database, and replays them through Prepare: every reply is accepted,
// the selector's id is the stored tool that does the operation, and a
// tool the database lacks is generated, verified and stored.
func TestTeacherArith(t *testing.T) {
	code := newSandbox(t)
	cases := []struct {
		seed   string
		op     arith.Op
		phases string // the demonstrations, in order
		how    string // how the tool was provided
		name   string // the provided tool's name
	}{
		{"arith-tools.json", arith.Mul, "analyze plan select", "selected", "product"},
		{"arith-tools.json", arith.Div, "analyze plan select", "selected", "share"},
		{"arith-tools.json", arith.Mod, "analyze plan select", "selected", "leftover"},
		{"arith-tools-no-mod.json", arith.Mul, "analyze plan select", "selected", "product"},
		{"arith-tools-no-mod.json", arith.Mod, "analyze plan select generate", "generated", "remainder"},
		{"", arith.Div, "analyze plan generate", "generated", "divide"},
	}
	for i, c := range cases {
		t.Run(fmt.Sprintf("%d-%s-%s", i, c.seed, c.op), func(t *testing.T) {
			db := seedDB(t, code, c.seed)
			task := arith.Problem{Op: c.op, A: 4836, B: 62}.Task()
			if c.op == arith.Div {
				task = arith.Problem{Op: c.op, A: 62 * 78, B: 62}.Task()
			}
			truth, ok := arith.Family{}.PhaseTruth(task)
			if !ok {
				t.Fatalf("no ground truth for %s", task.ID)
			}
			p := &Pipeline{DB: db, Code: code}
			demos, err := (&Teacher{Pipeline: p}).Demonstrations(context.Background(), task, truth)
			if err != nil {
				t.Fatal(err)
			}
			var phases []string
			for _, d := range demos {
				phases = append(phases, d.Phase)
			}
			if got := strings.Join(phases, " "); got != c.phases {
				t.Fatalf("demonstrations of %s, want %s", got, c.phases)
			}
			chat := &replayChat{demos: demos}
			p.Chat = chat
			tr, err := p.Prepare(context.Background(), task)
			if err != nil || tr.Status == Failed {
				t.Fatalf("Prepare on the demonstrations: %v %s", err, tr.Message)
			}
			if got := strings.Join(chat.asked, " "); got != c.phases {
				t.Errorf("the phases asked %s, want %s", got, c.phases)
			}
			if len(tr.Tools) != 1 || tr.Tools[0].How != c.how || tr.Tools[0].Name != c.name {
				t.Fatalf("provided %+v, want %s %s", tr.Tools, c.how, c.name)
			}
			rec, err := db.Get(context.Background(), tr.Tools[0].ID)
			if err != nil || !rec.Verified {
				t.Errorf("the provided tool %d: %+v, %v; want a verified stored tool", tr.Tools[0].ID, rec, err)
			}
		})
	}
}

// TestTeacherRefuses: a ground truth that the phases would refuse is an
// error naming the phase, and a generated source whose examples fail is
// refused by the code tool.
func TestTeacherRefuses(t *testing.T) {
	code := newSandbox(t)
	good := family.NeededTool{Name: "twice", Description: "twice returns 2n.", Source: "// twice returns 2n.\n//\n//\ttwice(2) == 4\n//\ttwice(0) == 0\nfunc twice(n int) int { return 2 * n }"}
	wrong := good
	wrong.Source = strings.Replace(good.Source, "== 4", "== 5", 1)
	cases := []struct {
		name  string
		truth family.PhaseTruth
		want  string
	}{
		{"no subtasks", family.PhaseTruth{Tools: []family.NeededTool{good}}, "analyze demonstration"},
		{"bad name", family.PhaseTruth{Subtasks: []string{"Double it."}, Tools: []family.NeededTool{{Name: "two words", Description: "d", Source: good.Source}}}, "plan demonstration"},
		{"failing example", family.PhaseTruth{Subtasks: []string{"Double it."}, Tools: []family.NeededTool{wrong}}, "case twice(2): got 4, want 5"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := &Pipeline{DB: seedDB(t, code, ""), Code: code}
			_, err := (&Teacher{Pipeline: p}).Demonstrations(context.Background(), envs.Task{ID: "t", Prompt: "Double 2."}, c.truth)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Demonstrations: %v, want an error with %q", err, c.want)
			}
		})
	}
}
