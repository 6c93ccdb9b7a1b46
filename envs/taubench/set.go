package taubench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"sync"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/family"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// split is one domain split, loaded.
type split struct {
	domain *Domain
	name   string
	tasks  []Task
}

func openSplit(dir string, c Config, name string) (*split, error) {
	d, err := Load(dir, c.Env)
	if err != nil {
		return nil, fmt.Errorf("taubench: task.taubench.data: %w (fetch it with scripts/fetch-data.sh)", err)
	}
	tasks, err := LoadTasks(filepath.Join(dir, "tasks_"+name+".json"))
	if err != nil {
		return nil, fmt.Errorf("taubench: task.taubench: %w (fetch it with scripts/fetch-data.sh)", err)
	}
	if len(tasks) == 0 {
		return nil, fmt.Errorf("taubench: task.taubench: %s %s has no tasks", c.Env, name)
	}
	return &split{domain: d, name: name, tasks: tasks}, nil
}

// TaskID names a task of a split: "<env>/<split>/<index>".
func TaskID(env, split string, index int) string { return fmt.Sprintf("%s/%s/%d", env, split, index) }

// Set is the taubench family opened on a training and a held-out split,
// or on a benchmark.
type Set struct {
	domain  *Domain
	cfg     Config
	format  format.Format
	train   []string // task IDs of the training split
	heldout []string
	tasks   map[string]Task
	index   map[string]int // task ID -> index in its split, seeding its user
	model   UserModel      // the customer of user kind checkpoint

	mu       sync.Mutex
	openings map[string]string // task ID -> the user's first utterance
	golds    sync.Map          // task ID -> gold hash (string)
}

func newSet(train, held *split, c Config, f format.Format) (*Set, error) {
	s := &Set{domain: held.domain, cfg: c, format: f, tasks: map[string]Task{}, index: map[string]int{}, openings: map[string]string{}}
	if c.User.Kind == UserCheckpoint {
		m, err := openUserModel(c.User.Checkpoint)
		if err != nil {
			return nil, err
		}
		s.model = m
	}
	add := func(sp *split) []string {
		var ids []string
		for i, t := range sp.tasks {
			id := TaskID(c.Env, sp.name, i)
			s.tasks[id], s.index[id] = t, i
			ids = append(ids, id)
		}
		return ids
	}
	if train != nil {
		s.train = add(train)
	}
	s.heldout = add(held)
	return s, nil
}

// Train implements family.Set: tasks of the training split, drawn
// uniformly with replacement.
func (s *Set) Train() envs.Sampler {
	if s.train == nil {
		return nil
	}
	return sampler{s}
}

type sampler struct{ s *Set }

// Sample implements envs.Sampler. The prompts hold the users' opening
// messages; an openai user generates each task's once, on first use.
func (p sampler) Sample(rng *rand.Rand, n int) []envs.Task {
	out := make([]envs.Task, n)
	for i := range out {
		out[i] = p.s.task(p.s.train[rng.Intn(len(p.s.train))])
	}
	return out
}

// Heldout implements family.Set.
func (s *Set) Heldout() []envs.Task {
	out := make([]envs.Task, len(s.heldout))
	for i, id := range s.heldout {
		out[i] = s.task(id)
	}
	return out
}

// TaskSeed implements family.Set.
func (*Set) TaskSeed() int64 { return 0 }

// task is the envs.Task of a task ID: the prompt (Prompt) with the
// user's opening message.
func (s *Set) task(id string) envs.Task {
	return envs.Task{ID: id, Prompt: s.Prompt(s.opening(id))}
}

// opening is the user's first utterance of a task, shared by all its
// trajectories, so a GRPO group shares its prompt: the instruction for a
// scripted user, the model's first message for a simulated one. A user
// that fails to open says StopMarker.
func (s *Set) opening(id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if o, ok := s.openings[id]; ok {
		return o
	}
	t := s.tasks[id]
	o := t.Instruction
	if s.cfg.User.simulated() {
		u := &LLMUser{Chat: s.userChat(id)}
		var err error
		if o, err = u.Start(context.Background(), t.Instruction); err != nil {
			o = StopMarker
		}
	}
	s.openings[id] = o
	return o
}

// userChat is the chat function of a task's simulated user: the
// checkpoint's model or the server's, sampling with the configured
// temperature and token budget and the seed of the task (Seed plus its
// index).
func (s *Set) userChat(id string) ChatFunc {
	u := s.cfg.User
	seed := u.Seed + int64(s.index[id])
	if u.Kind == UserCheckpoint {
		smp := Sampling{Temperature: u.Temperature, MaxTokens: u.MaxTokens, Seed: seed}
		return func(ctx context.Context, msgs []ChatMessage) (string, error) { return s.model.Chat(ctx, msgs, smp) }
	}
	c := &ChatClient{URL: u.URL, Model: u.Model, Temperature: u.Temperature, MaxTokens: u.MaxTokens, Seed: seed, Timeout: u.Timeout}
	return c.Chat
}

// newUser is a task's user positioned after its opening.
func (s *Set) newUser(id string, t Task) (User, error) {
	if s.cfg.User.simulated() {
		u := &LLMUser{Chat: s.userChat(id)}
		u.Resume(t.Instruction, s.opening(id))
		return u, nil
	}
	u := &ScriptedUser{Utterances: append([]string{t.Instruction}, s.cfg.User.Script...)}
	if _, err := u.Start(context.Background(), t.Instruction); err != nil {
		return nil, err
	}
	return u, nil
}

// Prompt is the text of a task as the policy first reads it: the domain's
// policy (wiki.md), its tools, how to call them and how to speak to the
// customer, and the customer's first message.
func (s *Set) Prompt(opening string) string {
	var b strings.Builder
	if s.domain.Wiki != "" {
		b.WriteString(strings.TrimSpace(s.domain.Wiki) + "\n\n")
	}
	b.WriteString("# Tools\n")
	if s.cfg.Docs == DocsSignatures {
		b.WriteString(s.domain.Signatures())
	} else {
		b.WriteString(s.domain.ToolListing())
	}
	fmt.Fprintf(&b, "\nTo call tools, %s, inside %s%s. To speak to the customer, end your turn: its text after your calls is your message.\n\n",
		CallSyntax, format.Open(s.format.Code), format.Close(s.format.Code))
	b.WriteString("# Customer\n" + opening)
	return b.String()
}

// ToolListing lists the domain's tools, one per line: each function
// schema of Tools as compact JSON, or Signatures when Tools holds none.
func (d *Domain) ToolListing() string {
	var b strings.Builder
	var schemas []json.RawMessage
	if json.Unmarshal(d.Tools, &schemas) == nil && len(schemas) > 0 {
		for _, sc := range schemas {
			var fn struct {
				Function json.RawMessage `json:"function"`
			}
			line := sc
			if json.Unmarshal(sc, &fn) == nil && fn.Function != nil {
				line = fn.Function
			}
			var compact bytes.Buffer
			if err := json.Compact(&compact, line); err != nil {
				compact.Reset()
				compact.Write(line)
			}
			b.WriteString(compact.String() + "\n")
		}
		return b.String()
	}
	return d.Signatures()
}

// Signatures lists the domain's tools one per line as name(params), in
// name order.
func (d *Domain) Signatures() string {
	var b strings.Builder
	for _, n := range d.ToolNames() {
		b.WriteString(n + "(" + strings.Join(d.tools[n].params, ", ") + ")\n")
	}
	return b.String()
}

// Tool implements family.Set: kind taubench.
func (s *Set) Tool(kind string) (envs.Tool, error) {
	if kind != FamilyName {
		return nil, fmt.Errorf("taubench: no tool of kind %q: use tool.kind: %s", kind, FamilyName)
	}
	return &Tool{domain: s.domain, tasks: s.tasks, newUser: s.newUser, format: s.format, maxReplies: s.cfg.MaxReplies}, nil
}

// Demonstrations implements family.Set: tau-bench writes none.
func (*Set) Demonstrations(context.Context, family.DemoRequest) ([]rollout.Demo, error) {
	return nil, errors.New("taubench: tau-bench writes no warm-start library: set warmstart.steps: 0 and start from a checkpoint (init)")
}

// Supplies implements family.Set: the *Set itself, which scores
// trajectories (Score).
func (s *Set) Supplies() []any { return []any{s} }

// Score returns the tau-bench components of a trajectory (Components:
// reward, state, function, outputs, format) from its outcome: the one its
// rollout's session recorded, else a replay (TrajectoryOutcome); an
// unknown task scores nil.
func (s *Set) Score(t *rollout.Trajectory) map[string]float64 {
	task, ok := s.tasks[t.Task.ID]
	if !ok {
		return nil
	}
	gold, err := s.gold(t.Task.ID, task)
	if err != nil {
		return map[string]float64{"reward": 0}
	}
	return Components(s.domain, task, s.outcome(t), gold)
}

// outcome is t's Outcome: the one its session recorded (Trajectory.ToolState,
// an *End) when t holds exactly the blocks and replies it was played from,
// else a replay (TrajectoryOutcome).
func (s *Set) outcome(t *rollout.Trajectory) Outcome {
	if end, ok := t.ToolState.(*End); ok && end.played(t) {
		return end.Outcome
	}
	return TrajectoryOutcome(s.domain, t, s.format)
}

func (s *Set) gold(id string, t Task) (string, error) {
	if g, ok := s.golds.Load(id); ok {
		return g.(string), nil
	}
	g, err := GoldHash(s.domain, t)
	if err != nil {
		return "", err
	}
	s.golds.Store(id, g)
	return g, nil
}

// Judge implements family.Set: correct when the tau-bench reward is 1.
// Detail is the components.
func (s *Set) Judge(t *rollout.Trajectory) family.Verdict {
	c := s.Score(t)
	if c == nil {
		return family.Verdict{Reason: fmt.Sprintf("incorrect: no tau-bench task %q", t.Task.ID)}
	}
	if Success(c["reward"]) {
		return family.Verdict{Correct: true, Reason: "correct: the final database and the outputs are the gold ones", Detail: c}
	}
	return family.Verdict{Reason: fmt.Sprintf("incorrect: state %g, function %g, outputs %g", c["state"], c["function"], c["outputs"]), Detail: c}
}
