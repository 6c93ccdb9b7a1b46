package fcsynth

import (
	"fmt"
	"path/filepath"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/bfcl"
	"github.com/artist-rl/artist/envs/family"
	"github.com/artist-rl/artist/internal/datadir"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// FamilyName is the task.name of generated function-calling
// conversations.
const FamilyName = "fcsynth"

// Family is the fcsynth task family. Register it with family.Register.
type Family struct{}

var (
	_ family.Family = Family{}
	_ family.Set    = (*Set)(nil)
)

// Name implements family.Family.
func (Family) Name() string { return FamilyName }

// DefaultConfig implements family.Family: a *Config.
func (Family) DefaultConfig() any { c := DefaultConfig(); return &c }

// Validate implements family.Family.
func (Family) Validate(section any) error { return section.(*Config).Validate() }

// ToolKinds implements family.Family: the calls run on the
// conversation's BFCL API instances, as BFCL entries' do.
func (Family) ToolKinds() []string { return []string{bfcl.FamilyName} }

// Rewards implements family.Family: the function-calling components.
func (Family) Rewards() []string { return bfcl.Family{}.Rewards() }

// WritesDemos implements family.Family.
func (Family) WritesDemos() bool { return true }

// ChatAdapter sends conversations to a chat-completions server as BFCL
// entries go (the prompt layout is bfcl.Tasks's).
func (Family) ChatAdapter() rollout.ChatAdapter { return bfcl.Chat{} }

// Open implements family.Family: it draws the held-out split from
// HeldoutSeed, then the training pool from TrainSeed without any
// held-out conversation.
func (Family) Open(section any, _ format.Format) (family.Set, error) {
	c := *section.(*Config)
	d, err := bfcl.Load(datadir.Path(c.Data))
	if err != nil {
		return nil, fmt.Errorf("fcsynth: task.fcsynth.data: %w", err)
	}
	if _, err := bfcl.FunctionDocs(d, "MathAPI"); err != nil {
		return nil, fmt.Errorf("fcsynth: task.fcsynth.data %s has no function documentation (%s): %w; fetch it with scripts/fetch-data.sh",
			c.Data, filepath.Join(c.Data, "multi_turn_func_doc"), err)
	}
	return Split(d, c)
}

// Set is the family opened on its two splits.
type Set struct {
	data         *bfcl.Data // holds every conversation as Category
	train        []bfcl.Entry
	trainTasks   envs.List
	heldoutTasks []envs.Task
	byID         map[string]bfcl.Entry
	golds        *bfcl.Golds // the ground-truth replays the checker and the rewards share
}

// Split generates the held-out split and the training pool that c
// describes over d's documentation. IDs are fcsynth_heldout_N and
// fcsynth_train_N.
func Split(d *bfcl.Data, c Config) (*Set, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	g, err := NewGenerator(d, Options{MaxTurns: c.MaxTurns, Functions: c.Functions, Docs: c.Docs})
	if err != nil {
		return nil, err
	}
	held, heldTasks, err := g.Generate(c.HeldoutSeed, c.Heldout, FamilyName+"_heldout", nil)
	if err != nil {
		return nil, fmt.Errorf("fcsynth: task.fcsynth.heldout: %w", err)
	}
	exclude := make(map[string]bool, len(heldTasks))
	for _, t := range heldTasks {
		exclude[Key(t)] = true
	}
	train, trainTasks, err := g.Generate(c.TrainSeed, c.Train, FamilyName+"_train", exclude)
	if err != nil {
		return nil, fmt.Errorf("fcsynth: task.fcsynth.train: %w", err)
	}
	all := append(append([]bfcl.Entry(nil), train...), held...)
	s := &Set{data: d.WithEntries(Category, all), train: train, trainTasks: trainTasks,
		heldoutTasks: heldTasks, byID: make(map[string]bfcl.Entry, len(all))}
	for _, e := range all {
		s.byID[e.ID] = e
	}
	s.golds = bfcl.NewGolds(s.data)
	return s, nil
}

// Train implements family.Set: the training pool, drawn uniformly.
func (s *Set) Train() envs.Sampler { return s.trainTasks }

// Heldout implements family.Set.
func (s *Set) Heldout() []envs.Task { return s.heldoutTasks }

// TaskSeed implements family.Set: the splits have their own seeds.
func (*Set) TaskSeed() int64 { return 0 }

// Entry returns the conversation with the given ID and its ground truth.
func (s *Set) Entry(id string) (bfcl.Entry, bool) { e, ok := s.byID[id]; return e, ok }

// Tool implements family.Set: BFCL sessions on the conversations'
// instances.
func (s *Set) Tool(kind string) (envs.Tool, error) {
	if kind != bfcl.FamilyName {
		return nil, fmt.Errorf("fcsynth: no tool of kind %q: use tool.kind: %s", kind, bfcl.FamilyName)
	}
	return s.tool(), nil
}

func (s *Set) tool() *bfcl.Tool {
	es, _ := s.data.Entries(Category)
	return bfcl.NewTool(s.data, es)
}

// Supplies implements family.Set: the Scope the function-calling rewards
// replay, the generated conversations under Category.
func (s *Set) Supplies() []any {
	return []any{bfcl.Scope{Data: s.data, Category: Category, Golds: s.golds}}
}

// Judge implements family.Set with the official multi-turn checker, as
// the bfcl family judges: correct when every turn passes. Detail is the
// *bfcl.Verdict.
func (s *Set) Judge(t *rollout.Trajectory) family.Verdict {
	e, ok := s.byID[t.Task.ID]
	if !ok {
		v := bfcl.Verdict{ErrorType: bfcl.ErrSetup, Turn: -1, Message: fmt.Sprintf("no %s conversation %q", FamilyName, t.Task.ID)}
		return family.Verdict{Reason: "incorrect: " + v.Message, Detail: &v}
	}
	v := s.golds.Check(e, bfcl.TrajectoryTurns(t))
	if v.Valid {
		return family.Verdict{Correct: true, Reason: "correct: the checker passes every turn", Detail: &v}
	}
	return family.Verdict{Reason: fmt.Sprintf("incorrect: %s: %s", v.ErrorType, v.Message), Detail: &v}
}
