package reward

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/bfcl"
	"github.com/artist-rl/artist/rollout"
)

// Paper's reward values (ARTIST, function calling).
const (
	fcStateScore    = 0.5   // every state attribute equals the gold end state
	fcFunctionScore = 0.5   // every gold call made
	fcPerTag        = 0.025 // each of the three tag pairs present
	fcStrictScore   = 0.1   // whole response in the strict order
)

// FCFormat names the tags of the function-calling rollout text:
// reasoning, a tool call in the BFCL call syntax (one or several calls),
// and the tool result, which the engine writes and the loss masks out.
type FCFormat struct {
	Reasoning string `yaml:"reasoning"`
	Tool      string `yaml:"tool"`
	Result    string `yaml:"result"`
}

// DefaultFCFormat is the function-calling format of ARTIST:
// <reasoning>, <tool>, <tool_result>.
func DefaultFCFormat() FCFormat {
	return FCFormat{Reasoning: "reasoning", Tool: "tool", Result: "tool_result"}
}

// Validate requires three distinct, non-empty, bare tag names.
func (f FCFormat) Validate() error {
	keys := [...]string{"reasoning", "tool", "result"}
	names := f.names()
	def := DefaultFCFormat().names()
	for i, n := range names {
		if n == "" {
			return fmt.Errorf("reward: fc format.%s is empty: give a tag name such as %q", keys[i], def[i])
		}
		if strings.ContainsAny(n, "</>") {
			return errors.New("reward: fc format tag names are bare words: write tool, not <tool>")
		}
		for j := range i {
			if names[j] == n {
				return fmt.Errorf("reward: fc format.%s and format.%s are both %q: tag names must differ", keys[j], keys[i], n)
			}
		}
	}
	return nil
}

func (f FCFormat) names() [3]string { return [3]string{f.Reasoning, f.Tool, f.Result} }

// FC scores trajectories of the entries of one BFCL v3 multi-turn
// category. task.ID names the entry; a task whose ID is not an entry of
// the category is not judged by State or Function. The trajectory's tool
// calls are t.Calls[i].Input, each one or several calls as bfcl.ParseCalls
// reads them; an input that does not parse counts as no call.
//
// An FC is safe for concurrent use: gold end states are computed once per
// entry and shared.
type FC struct {
	data     *bfcl.Data
	entries  map[string]bfcl.Entry
	params   map[string][]string // function name -> parameter names in signature order
	format   FCFormat
	category string

	mu   sync.Mutex
	gold map[string]*goldEnd
}

// goldEnd is the end state of an entry's ground-truth replay.
type goldEnd struct {
	once  sync.Once
	state *bfcl.Dict
	err   error
}

// NewFC reads the entries of category from d and the function
// documentation of every class (bfcl.FunctionDocs, for parameter order). An
// unreadable category or documentation, or an invalid format, is an error.
func NewFC(d *bfcl.Data, category string, f FCFormat) (*FC, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	es, err := d.Entries(category)
	if err != nil {
		return nil, fmt.Errorf("reward: fc entries: %w", err)
	}
	params, err := readParams(d)
	if err != nil {
		return nil, err
	}
	fc := &FC{data: d, entries: map[string]bfcl.Entry{}, params: params, format: f, category: category, gold: map[string]*goldEnd{}}
	for _, e := range es {
		fc.entries[e.ID] = e
	}
	return fc, nil
}

// readParams maps each documented function of the eight classes to its
// parameter names, in the documented order, which is the order of the
// Python signature.
func readParams(d *bfcl.Data) (map[string][]string, error) {
	out := map[string][]string{}
	for _, class := range bfcl.Classes() {
		docs, err := bfcl.FunctionDocs(d, class)
		if err != nil {
			return nil, fmt.Errorf("reward: fc: %w", err)
		}
		for _, f := range docs {
			out[f.Name] = f.Params
		}
	}
	return out, nil
}

// Components returns the three function-calling rewards, each with weight
// 1, as the paper sums them: fc_format, fc_function, fc_state.
func (fc *FC) Components() Composite {
	return Composite{
		{Name: "fc_format", Func: FormatFC(fc.format), Weight: 1},
		{Name: "fc_function", Func: fc.Function(), Weight: 1},
		{Name: "fc_state", Func: fc.State(), Weight: 1},
	}
}

// State scores 0.5 × matched / compared, where compared counts the public
// attributes of every involved class (as in bfcl.Env.State) and matched
// those equal, with Python equality and ignoring the file system's parent
// links as the official checker does, to the end state of the entry's
// ground truth. The trajectory's end state comes from running all its
// calls, in order, on fresh instances of the entry (long-context
// extensions included), every function callable. It does not
// apply to an unknown entry, to an entry without state attributes (math
// only) or when the entry's instances cannot be built.
func (fc *FC) State() Func {
	return func(t *rollout.Trajectory, task envs.Task) (float64, bool) {
		e, ok := fc.entries[task.ID]
		if !ok {
			return 0, false
		}
		want, err := fc.goldState(e)
		if err != nil {
			return 0, false
		}
		env, err := bfcl.NewEnv(fc.data, e.InvolvedClasses, e.InitialConfig, e.LongContext())
		if err != nil {
			return 0, false
		}
		for _, c := range trajectoryCalls(t) {
			env.ExecuteCall(c)
		}
		matched, compared := compareStates(env.State(), want)
		if compared == 0 {
			return 0, false
		}
		return fcStateScore * float64(matched) / float64(compared), true
	}
}

func (fc *FC) goldState(e bfcl.Entry) (*bfcl.Dict, error) {
	fc.mu.Lock()
	g, ok := fc.gold[e.ID]
	if !ok {
		g = &goldEnd{}
		fc.gold[e.ID] = g
	}
	fc.mu.Unlock()
	g.once.Do(func() {
		env, err := bfcl.NewEnv(fc.data, e.InvolvedClasses, e.InitialConfig, e.LongContext())
		if err != nil {
			g.err = err
			return
		}
		for _, turn := range e.GroundTruth {
			for _, c := range turn {
				env.Execute(c)
			}
		}
		g.state = env.State()
	})
	return g.state, g.err
}

// trajectoryCalls parses every call of t, in order, skipping inputs that
// do not parse.
func trajectoryCalls(t *rollout.Trajectory) []bfcl.Call {
	var out []bfcl.Call
	for _, c := range t.Calls {
		cs, err := bfcl.ParseCalls(c.Input)
		if err == nil {
			out = append(out, cs...)
		}
	}
	return out
}

// compareStates counts the attributes of every class of want and those
// equal in got.
func compareStates(got, want *bfcl.Dict) (matched, compared int) {
	for _, class := range want.Keys() {
		wv, _ := want.Get(class)
		gv, _ := got.Get(class)
		wd, _ := wv.(*bfcl.Dict)
		gd, _ := gv.(*bfcl.Dict)
		if wd == nil {
			continue
		}
		for _, attr := range wd.Keys() {
			compared++
			a, _ := wd.Get(attr)
			if gd == nil {
				continue
			}
			b, ok := gd.Get(attr)
			if ok && bfcl.Equal(bfcl.StripParents(bfcl.DeepCopy(a)), bfcl.StripParents(bfcl.DeepCopy(b))) {
				matched++
			}
		}
	}
	return matched, compared
}

// Function scores 0.5 × matched / gold, where gold counts the calls of the
// entry's ground truth over all turns and matched the gold calls paired,
// one for one (multiset matching), with a call of the trajectory of the
// same name and arguments. Arguments are compared by parameter name, with
// positional arguments named after the documented signature, and values
// with Python equality; an argument left at its default does not equal
// one written out. Extra calls do not lower the score. It does not apply
// to an unknown entry or one without gold calls.
func (fc *FC) Function() Func {
	return func(t *rollout.Trajectory, task envs.Task) (float64, bool) {
		e, ok := fc.entries[task.ID]
		if !ok {
			return 0, false
		}
		var gold []normCall
		for _, turn := range e.GroundTruth {
			for _, s := range turn {
				if c, err := bfcl.ParseCall(s); err == nil {
					gold = append(gold, fc.normalise(c))
				}
			}
		}
		if len(gold) == 0 {
			return 0, false
		}
		used := make([]bool, len(gold))
		matched := 0
		for _, c := range trajectoryCalls(t) {
			n := fc.normalise(c)
			for i, g := range gold {
				if !used[i] && n.equal(g) {
					used[i] = true
					matched++
					break
				}
			}
		}
		return fcFunctionScore * float64(matched) / float64(len(gold)), true
	}
}

// normCall is a call with its arguments bound to parameter names. A call
// that binds one name twice is invalid and equals nothing.
type normCall struct {
	name    string
	args    map[string]any
	invalid bool
}

func (fc *FC) normalise(c bfcl.Call) normCall {
	n := normCall{name: c.Name, args: map[string]any{}}
	ps := fc.params[c.Name]
	set := func(k string, v any) {
		if _, dup := n.args[k]; dup {
			n.invalid = true
		}
		n.args[k] = v
	}
	for i, v := range c.Args {
		if i < len(ps) {
			set(ps[i], v)
		} else {
			set("#"+strconv.Itoa(i), v)
		}
	}
	for _, kw := range c.Kwargs {
		set(kw.Name, kw.Value)
	}
	return n
}

func (a normCall) equal(b normCall) bool {
	if a.invalid || b.invalid || a.name != b.name || len(a.args) != len(b.args) {
		return false
	}
	for k, v := range a.args {
		w, ok := b.args[k]
		if !ok || !bfcl.Equal(v, w) {
			return false
		}
	}
	return true
}

// FormatFC scores 0.025 for each of the reasoning, tool and result tag
// pairs present in t.Response (an opening tag followed, anywhere later, by
// its closing tag), plus 0.1 when the response is in the strict order; at
// most 0.175. It always applies. It panics on an invalid format (see
// FCFormat.Validate).
//
// Strict order: the tagged blocks of the response, in order, form the
// regular language
//
//	(R (C O)*)+   with at least one C
//
// where R, C and O are reasoning, tool and result blocks. So the response
// opens with reasoning, every tool block is followed directly by its
// result block, and reasoning may come again after any result. A block is
// an opening tag, then text, then the first following closing tag of the
// same name; the text of a reasoning or tool block holds no tag of the
// format, and the text of a result block (the tool's) is not inspected.
// Text outside blocks (replies and user messages of later turns) is
// allowed, but a tag of the format outside a well-formed block (an
// unclosed block or a stray closing tag) breaks the order.
func FormatFC(f FCFormat) Func {
	if err := f.Validate(); err != nil {
		panic(err)
	}
	names := f.names()
	return func(t *rollout.Trajectory, _ envs.Task) (float64, bool) {
		score := 0.0
		for _, n := range names {
			if hasPair(t.Response, n) {
				score += fcPerTag
			}
		}
		if seq, ok := fcBlocks(t.Response, names); ok && fcStrict(seq) {
			score += fcStrictScore
		}
		return score, true
	}
}

// Block kinds of the function-calling format, indexes into FCFormat.names.
const (
	fcReasoning = iota
	fcTool
	fcResult
)

// fcBlocks returns the kinds of the tagged blocks of s in order; ok is
// false when a tag of the format lies outside a well-formed block.
func fcBlocks(s string, names [3]string) (seq []int, ok bool) {
	for {
		k, at := nextTag(s, names)
		if at < 0 {
			return seq, true
		}
		open := rollout.Open(names[k])
		if !strings.HasPrefix(s[at:], open) {
			return nil, false
		}
		s = s[at+len(open):]
		end := strings.Index(s, rollout.Close(names[k]))
		if end < 0 {
			return nil, false
		}
		if k != fcResult && hasTag(s[:end], names[:]) {
			return nil, false
		}
		s = s[end+len(rollout.Close(names[k])):]
		seq = append(seq, k)
	}
}

// nextTag finds the first opening or closing tag of the format in s: its
// kind and byte offset, or offset -1 when there is none.
func nextTag(s string, names [3]string) (kind, at int) {
	at = -1
	for k, n := range names {
		for _, tag := range [2]string{rollout.Open(n), rollout.Close(n)} {
			if i := strings.Index(s, tag); i >= 0 && (at < 0 || i < at) {
				kind, at = k, i
			}
		}
	}
	return kind, at
}

// fcStrict reports whether seq is in (R (C O)*)+ with at least one C.
func fcStrict(seq []int) bool {
	if len(seq) == 0 || seq[0] != fcReasoning {
		return false
	}
	calls := 0
	for i := 0; i < len(seq); i++ {
		switch seq[i] {
		case fcTool:
			if i+1 == len(seq) || seq[i+1] != fcResult {
				return false
			}
			calls++
			i++
		case fcResult:
			return false
		}
	}
	return calls > 0
}

// FCNames are the function-calling reward components, as FC.Components
// names them.
func FCNames() []string { return []string{"fc_format", "fc_function", "fc_state"} }

// CheckFCWeights requires weights to name some of FCNames, each with a
// finite weight.
func CheckFCWeights(weights map[string]float64) error {
	if len(weights) == 0 {
		return fmt.Errorf("reward: no components: give weights for some of %s", strings.Join(FCNames(), ", "))
	}
	for name, w := range weights {
		if !slices.Contains(FCNames(), name) {
			return fmt.Errorf("reward: unknown function-calling component %q: valid names are %s", name, strings.Join(FCNames(), ", "))
		}
		if math.IsNaN(w) || math.IsInf(w, 0) {
			return fmt.Errorf("reward: weight of %q is %v: give a finite number", name, w)
		}
	}
	return nil
}

// Weighted returns the components named by weights (see CheckFCWeights),
// sorted by name, each with its weight.
func (fc *FC) Weighted(weights map[string]float64) (Composite, error) {
	if err := CheckFCWeights(weights); err != nil {
		return nil, err
	}
	var out Composite
	for _, c := range fc.Components() {
		if w, ok := weights[c.Name]; ok {
			c.Weight = w
			out = append(out, c)
		}
	}
	return out, nil
}

// Turns returns the policy's calls in t as bfcl.Check reads them: t.Turns
// turns (at least one), and in each the steps of that turn, one per tool
// block, holding the calls bfcl.StepCalls reads from the block (none when
// it does not parse).
func Turns(t *rollout.Trajectory) [][][]string {
	turns := make([][][]string, max(t.Turns, 1))
	for _, c := range t.Calls {
		if c.Turn >= 0 && c.Turn < len(turns) {
			turns[c.Turn] = append(turns[c.Turn], bfcl.StepCalls(c.Input))
		}
	}
	return turns
}

// Check scores t with the official multi-turn checker against the entry
// its task names; an entry not of the category fails with
// bfcl.ErrSetup.
func (fc *FC) Check(t *rollout.Trajectory) bfcl.Verdict {
	e, ok := fc.entries[t.Task.ID]
	if !ok {
		return bfcl.Verdict{ErrorType: bfcl.ErrSetup, Turn: -1, Message: fmt.Sprintf("no %s entry %q", fc.category, t.Task.ID)}
	}
	return bfcl.Check(fc.data, e, Turns(t))
}
