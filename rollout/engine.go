package rollout

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"runtime"
	"slices"
	"time"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/rollout/format"
)

// TruncationMark stands between the head and the tail of a tool result cut
// to max_result_tokens. A tokenizer that cannot encode and decode it back
// gets "..." instead.
const TruncationMark = "…"

const asciiTruncationMark = "..."

// toolGrace is how long past tool_timeout the engine waits for a tool that
// ignores its deadline before it records a timeout and moves on.
const toolGrace = 100 * time.Millisecond

// parallelWork is the number of logits (rows × vocabulary) above which a
// step samples its rows on several goroutines.
const parallelWork = 1 << 16

// Engine samples groups of trajectories with tool calls. Its fields are
// read by Run and must not change during it.
type Engine struct {
	Policy    Policy
	Tokenizer Tokenizer
	// Tool runs the code of each call; it may be nil when
	// Config.MaxToolCalls is 0. envs.Disabled is the no-tool ablation.
	Tool   envs.Tool
	Format format.Format
	Config Config
	// Prompt renders a task as the text the policy continues; nil means
	// task.Prompt + "\n" (PromptText).
	Prompt PromptFunc
	// UserTurn renders a later user message of a multi-turn task as the
	// text the engine appends after the policy ends its turn; nil means
	// UserTurnText.
	UserTurn func(msg string) string
	// Chat, when set, renders the turns with a chat template: the prompt
	// is Chat.OpeningPrompt of the task (Prompt, nil: task.Prompt, gives
	// the user message; a family's ChatAdapter moves its functions to the
	// template's tools); each tool result is appended as Chat.ToolTurn of
	// its text, in place of the Format's result block; later user turns
	// are Chat.UserTurn (UserTurn is not used), less the end-of-turn token
	// when the policy wrote it. The trajectory's Response is then a
	// transcription in the Format's tags (results in result blocks, user
	// turns as UserTurnText, the template's text between turns left out),
	// so rewards read chat and plain rollouts alike. After each tool or
	// user turn the template's rendering of the conversation is checked
	// against the ids held; a template that rewrites history there (Qwen3
	// drops earlier <think> blocks) splits the trajectory into sequences
	// or fails its rollout (Config.TemplateDrift). One that renders the
	// finished conversation otherwise keeps its ids and has
	// TemplateDiffers set.
	Chat *Chat
	// Completer, when set, samples every trajectory on its own, a segment
	// per request (a rollout server, or LocalCompleter), instead of
	// decoding the batch in one Policy session; see runSegments. Policy
	// is then unused.
	Completer Completer
	// Parallel bounds the trajectories in flight through Completer; 0
	// means all of them.
	Parallel int
	// turnErr, when set, renders later user messages in place of
	// UserTurn and may fail (Remote.UserTurn): the Run then fails naming
	// the task.
	turnErr func(msg string) (string, error)
	// Progress, when set, hears how many of a Run's trajectories have
	// ended: 0 of total when decoding starts, then each time the count
	// grows, one call at a time (for a progress bar; it must not block).
	Progress func(done, total int)
}

// userTurn is how the runner renders later user messages without a chat
// template: turnErr, else UserTurn, else UserTurnText; nil with Chat.
func (e *Engine) userTurn() func(string) (string, error) {
	switch {
	case e.Chat != nil:
		return nil
	case e.turnErr != nil:
		return e.turnErr
	case e.UserTurn != nil:
		return infallible(e.UserTurn)
	}
	return infallible(UserTurnText)
}

// infallible adapts a renderer that cannot fail.
func infallible(render func(string) string) func(string) (string, error) {
	return func(msg string) (string, error) { return render(msg), nil }
}

// StopTokenizer is a Tokenizer whose policy ends its turn on any of
// several tokens: Qwen2.5-Instruct stops on <|im_end|> and <|endoftext|>
// (generation_config.json's eos_token_id). *policy.Tokenizer implements it.
type StopTokenizer interface {
	Tokenizer
	// StopIDs returns every token id that ends a turn, EOS among them.
	StopIDs() []int
}

// StopIDs returns the ids that end a turn under tok: its StopIDs when it
// is a StopTokenizer (EOS added if missing), else EOS alone. Engine.Run and
// Complete stop on each of them (StopEOS), keeping the token that stopped.
func StopIDs(tok Tokenizer) []int {
	eos := tok.EOS()
	st, ok := tok.(StopTokenizer)
	if !ok {
		return []int{eos}
	}
	ids := st.StopIDs()
	if !slices.Contains(ids, eos) {
		ids = append([]int{eos}, ids...)
	}
	return ids
}

// runner holds what one Run derives from its Engine.
type runner struct {
	e                   *Engine
	cfg                 Config
	sampler             sampler
	stops               []int // token ids that end the policy's turn (StopIDs)
	openCode, closeCode string
	closeAnswer         string
	openOut, closeOut   []int // engine-written tokens around a result (art: openOut of call 1)
	maxOpen             int   // the most tokens of any call's openOut
	mark                []int // TruncationMark
	window              int   // trailing tokens decoded to find a closing tag
	userTurn            func(msg string) (string, error)
	maxReplies          int           // user messages a UserSession may give; 0 when Tool is no envs.UserTool
	replyLimit          int           // tokens of one rendered user reply (see replyLimit)
	toolLimit           int           // with Chat: the most tokens of one rendered tool turn
	tools               chan struct{} // one token per tool call running (at most GOMAXPROCS)
}

// RunStreams samples Config.GroupSize trajectories per task and returns them
// grouped contiguously: trajectory j*G+g belongs to tasks[j] and has
// Group j. Each trajectory is one agent loop (runRow) over a generator:
// Engine.Completer when set (rollout servers), else a row of the engine's
// own continuous Batcher over Policy, rows opened in trajectory order.
// A request feeds the row only what the trajectory appended since its
// last one (the prompt first; then the last sampled token, followed by an
// engine-written result or user turn), and a step of the batch decodes
// whichever rows are ready, so a row's tool call or long answer holds no
// other row.
//
// When the text of the current model segment ends with the closing code
// tag, the row stops decoding; the code after the last opening code tag
// of that segment (the whole segment if there is none) is run by Tool,
// and the engine appends, with mask 0,
//
//	Open(Format.Output) + result + Close(Format.Output) + "\n"
//
// encoded piece by piece, where result is the tool's Output cut in the
// middle to MaxResultTokens tokens. In the art style of Format the row
// stops instead when the last token writes the newline that ends a call
// line (Format.CallLine: its input is the call's) and the engine appends
// ResultPrefix(n) + result + "\n" (result with the prefix on every line,
// see Format.ResultText; n counts the trajectory's calls from 1), after a
// newline when the token that ended the call line carried text past it,
// so that the result starts a line; the newline that ends an answer line
// ends the turn as a closing answer tag does. Calls run in their
// trajectories' goroutines, at most GOMAXPROCS at once, each with a
// ToolTimeout deadline, while the other rows decode. Call.Result keeps
// the tool's whole result; the trajectory holds the cut one. A code block
// closed by the last budgeted model token still runs its call; the row
// then stops with StopLength.
//
// Trajectory g of tasks[j] samples from its own stream, that of
// Streams.Trajectory(First+j, g) (see Streams): one Float64 per token,
// from a fresh stream at each segment, so a seed fixes the trajectories
// whatever the goroutine timing, the other tasks of the call, or where
// they decode (in process or on servers), given a deterministic policy
// and tool. On a session that samples on the device (DeviceSession) the
// batch draws there when all its rows share the sampler, at the same
// uniform numbers.
func (e *Engine) RunStreams(ctx context.Context, tasks []envs.Task, s Streams) ([]*Trajectory, error) {
	return e.run(ctx, tasks, s)
}

// Run is RunStreams with StreamsFrom(rng). It panics if rng is nil and
// Config.Temperature is not 0.
func (e *Engine) Run(ctx context.Context, tasks []envs.Task, rng *rand.Rand) ([]*Trajectory, error) {
	if rng == nil && e.Config.Temperature != 0 {
		panic("rollout: Run needs a seeded *rand.Rand unless temperature is 0")
	}
	return e.run(ctx, tasks, StreamsFrom(rng))
}

func (e *Engine) run(ctx context.Context, tasks []envs.Task, streams Streams) ([]*Trajectory, error) {
	r, err := e.newRunner()
	if err != nil {
		return nil, err
	}
	rows, maxLen, err := r.start(ctx, tasks)
	if err != nil {
		return nil, err
	}
	for i, w := range rows {
		w.seed = streams.Trajectory(streams.First+w.traj.Group, i%r.cfg.GroupSize)
	}
	if len(rows) == 0 {
		return []*Trajectory{}, nil
	}
	defer closeTools(rows)
	report := newReporter(e.Progress, len(rows))
	comp := e.Completer
	if comp == nil {
		b := e.batcher(maxLen)
		defer b.Drain() // its session closed (device memory freed) before Run returns
		comp = LocalRows{Policy: b.Policy(ctx), Tokenizer: e.Tokenizer}
	}
	return e.runSegments(ctx, r, rows, maxLen, comp, report)
}

// batcher is the continuous batcher the engine decodes its trajectories
// on when it has no Completer: one session of e.Policy, a row per
// trajectory; a policy whose sessions are not Rows gets a session per
// trajectory (perSequence).
func (e *Engine) batcher(maxLen int) *Batcher {
	first := e.Policy.NewSession(0, maxLen)
	_, rows := first.(Rows)
	if !rows {
		closeSession(first)
	}
	open := func() Rows {
		if !rows {
			return &perSequence{p: e.Policy, maxLen: maxLen}
		}
		s := first
		if s == nil {
			s = e.Policy.NewSession(0, maxLen)
		}
		first = nil
		return s.(Rows)
	}
	return NewBatcher(open, e.Policy.Context(), 0)
}

func (e *Engine) newRunner() (*runner, error) {
	if e.Policy == nil && e.Completer == nil || e.Tokenizer == nil {
		return nil, errors.New("rollout: Engine needs a Policy (or a Completer) and a Tokenizer")
	}
	if err := e.Config.Validate(); err != nil {
		return nil, err
	}
	if err := e.Format.Validate(); err != nil {
		return nil, err
	}
	if e.Tool == nil && e.Config.MaxToolCalls > 0 {
		return nil, errors.New("rollout: Engine.Tool is nil: set a tool, envs.Disabled{} for the no-tool ablation, or max_tool_calls: 0")
	}
	tok, f := e.Tokenizer, e.Format
	r := &runner{
		e:           e,
		cfg:         e.Config,
		sampler:     sampler{temperature: e.Config.Temperature, topP: e.Config.TopP},
		stops:       StopIDs(tok),
		openCode:    format.Open(f.Code),
		closeCode:   format.Close(f.Code),
		closeAnswer: format.Close(f.Answer),
		openOut:     tok.Encode(f.ResultOpen(1)),
		closeOut:    tok.Encode(f.ResultClose()),
		mark:        tok.Encode(TruncationMark),
		tools:       make(chan struct{}, runtime.GOMAXPROCS(0)),
	}
	r.maxOpen = len(r.openOut)
	if e.Chat != nil {
		empty, err := e.Chat.ToolTurn("")
		if err != nil {
			return nil, fmt.Errorf("rollout: %w", err)
		}
		r.openOut, r.closeOut, r.maxOpen = nil, nil, 0
		r.toolLimit = r.cfg.MaxResultTokens + len(tok.Encode(empty))
	}
	for n := 1; f.ART() && n <= r.cfg.MaxToolCalls; n++ {
		r.maxOpen = max(r.maxOpen, len(tok.Encode("\n"+f.ResultOpen(n))))
	}
	if tok.Decode(r.mark) != TruncationMark {
		r.mark = tok.Encode(asciiTruncationMark)
	}
	if len(r.mark)+2 > r.cfg.MaxResultTokens {
		return nil, fmt.Errorf("rollout: max_result_tokens %d leaves no room around the %d-token truncation mark: raise it", r.cfg.MaxResultTokens, len(r.mark))
	}
	// Every token but a special one decodes to at least one byte.
	r.window = max(len(r.closeCode), len(r.closeAnswer)) + 2
	r.userTurn = e.userTurn()
	if ut, ok := userTool(e.Tool); ok {
		r.maxReplies = ut.MaxReplies()
		empty, err := r.renderTurn(e.Chat, "")
		if err != nil {
			return nil, err
		}
		r.replyLimit = replyLimit(r.cfg, len(tok.Encode(empty)))
	}
	return r, nil
}

// MaxLen is the most tokens a trajectory of task may hold: its prompt,
// its later user turns and the response budget with every tool result and
// its tags. A policy whose context is shorter cannot roll it out.
func (e *Engine) MaxLen(ctx context.Context, task envs.Task) (int, error) {
	r, err := e.newRunner()
	if err != nil {
		return 0, err
	}
	_, n, err := r.start(ctx, []envs.Task{task})
	return n, err
}

// ContextError is a task that may not fit the policy's context.
type ContextError struct {
	Task    string // the task's ID
	Need    int    // the most tokens its trajectories may hold (MaxLen)
	Prompt  int    // the tokens of its prompt alone
	Context int    // the policy's context
}

func (e *ContextError) Error() string {
	return fmt.Sprintf("rollout: task %s may take %d tokens, over the policy's context of %d", e.Task, e.Need, e.Context)
}

// CheckContext returns a *ContextError for the first task whose MaxLen is
// over the policy's context (none when the policy has no limit), so that
// no rollout of them overflows it mid-run; other errors are MaxLen's.
func (e *Engine) CheckContext(ctx context.Context, tasks []envs.Task) error {
	limit := e.Policy.Context()
	if limit <= 0 {
		return nil
	}
	for _, t := range tasks {
		n, err := e.MaxLen(ctx, t)
		if err != nil {
			return err
		}
		if n > limit {
			text, err := promptOrText(e.Prompt)(ctx, t)
			if err != nil {
				return fmt.Errorf("rollout: task %q: %w", t.ID, err)
			}
			return &ContextError{Task: t.ID, Need: n, Prompt: len(e.Tokenizer.Encode(text)), Context: limit}
		}
	}
	return nil
}

// responseBound is the most tokens a trajectory holds after its prompt.
func (r *runner) responseBound() int {
	perCall := r.maxOpen + r.cfg.MaxResultTokens + len(r.closeOut)
	if r.e.Chat != nil {
		perCall = r.toolLimit
	}
	return r.cfg.MaxResponseTokens + r.cfg.MaxToolCalls*perCall + r.maxReplies*r.replyLimit
}

// replyLimit is the most tokens of one user reply of an envs.UserSession
// as the engine appends it: MaxResultTokens for the message and the
// overhead tokens of its rendering (UserTurn of ""). A longer rendered
// reply is cut in the middle as a tool result is.
func replyLimit(cfg Config, overhead int) int { return cfg.MaxResultTokens + overhead }

// start encodes each prompt and later user turn once and opens G rows per
// task. It returns the rows and the most tokens any of them may hold.
func (r *runner) start(ctx context.Context, tasks []envs.Task) ([]*row, int, error) {
	G := r.cfg.GroupSize
	rows := make([]*row, 0, len(tasks)*G)
	maxLen := 0
	for j, task := range tasks {
		text, msgs, c, err := r.promptText(ctx, task)
		if err != nil {
			return nil, 0, err
		}
		ids := r.e.Tokenizer.Encode(text)
		if len(ids) == 0 {
			return nil, 0, fmt.Errorf("rollout: task %q: prompt encodes to no tokens", task.ID)
		}
		turns := make([]string, len(task.Turns))
		n := len(ids)
		for k, msg := range task.Turns {
			if turns[k], err = r.renderTurn(c, msg); err != nil {
				return nil, 0, fmt.Errorf("%w (task %q)", err, task.ID)
			}
			n += len(r.e.Tokenizer.Encode(turns[k]))
		}
		maxLen = max(maxLen, n)
		for range G {
			t := &Trajectory{Task: task, Group: j, PromptLen: len(ids), Turns: 1}
			t.Append(ids, KindPrompt, nil)
			rows = append(rows, &row{traj: t, feed: slices.Clone(ids), turns: turns, msgs: slices.Clone(msgs), chat: c,
				loop: newToolLoop(r.e.Tool, r.cfg.ToolTimeout, t)})
		}
	}
	return rows, maxLen + r.responseBound(), nil
}
