package bfcl

import "sync"

// Golds replays the ground truth of each entry once, on fresh instances,
// and keeps what every turn left: the results of its calls and the state
// of every class. The checker and the state reward of a run read the same
// replay. A Golds is safe for concurrent use.
type Golds struct {
	d  *Data
	mu sync.Mutex
	m  map[string]*goldRun
}

// NewGolds returns an empty cache of the ground-truth replays of entries
// of d.
func NewGolds(d *Data) *Golds { return &Golds{d: d, m: map[string]*goldRun{}} }

// goldRun is an entry's ground-truth replay: after turn i, results[i]
// holds the results of its calls and states[i] the instances' state
// (Env.State). States are shared: compare copies of them, never change
// them.
type goldRun struct {
	once    sync.Once
	results [][]string
	states  []*Dict
	err     error
}

// final is the state the whole ground truth leaves.
func (g *goldRun) final() *Dict {
	if len(g.states) == 0 {
		return nil
	}
	return g.states[len(g.states)-1]
}

// of returns the replay of e, running it at the first request.
func (g *Golds) of(e Entry) *goldRun {
	g.mu.Lock()
	r, ok := g.m[e.ID]
	if !ok {
		r = &goldRun{}
		g.m[e.ID] = r
	}
	g.mu.Unlock()
	r.once.Do(func() { r.results, r.states, r.err = replayGold(g.d, e) })
	return r
}

// replayGold runs e's ground truth turn by turn on fresh instances.
func replayGold(d *Data, e Entry) ([][]string, []*Dict, error) {
	env, err := NewEnv(d, e.InvolvedClasses, e.InitialConfig, e.LongContext())
	if err != nil {
		return nil, nil, err
	}
	results := make([][]string, len(e.GroundTruth))
	states := make([]*Dict, len(e.GroundTruth))
	for i, gt := range e.GroundTruth {
		results[i] = make([]string, len(gt))
		for j, c := range gt {
			results[i][j] = env.Execute(c)
		}
		states[i] = env.State()
	}
	if len(states) == 0 {
		states = []*Dict{env.State()}
	}
	return results, states, nil
}
