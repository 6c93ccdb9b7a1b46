package trainer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/artist-rl/artist/checkpoint"
	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/family"
	"github.com/artist-rl/artist/envs/sandbox"
	"github.com/artist-rl/artist/envs/toollib"
	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/reward"
	"github.com/artist-rl/artist/rollout"
)

// modelPolicy adapts *policy.Model to rollout.Policy (policy imports
// nothing of rollout, so its NewSession returns its own type).
type modelPolicy struct{ *policy.Model }

func (p modelPolicy) NewSession(n, maxLen int) rollout.Session { return p.Model.NewSession(n, maxLen) }

var _ rollout.Policy = modelPolicy{}
var _ rollout.StopTokenizer = (*policy.Tokenizer)(nil)

// Run is one training run: its config, model, data and outputs.
type Run struct {
	Cfg     Config
	Tok     *policy.Tokenizer // its Files are copied into checkpoints
	Model   *policy.Model
	Tool    envs.Tool
	Train   envs.Sampler
	Heldout []envs.Task
	Reward  reward.Composite
	// Family is the task family of Cfg.Task.Name, and Tasks the family
	// opened on its config section: it judges the rollouts.
	Family family.Family
	Tasks  family.Set

	lib       *toollib.Augment // the tool library around the sandbox; nil without one
	closeTool func() error     // releases the tool's workers
	demoLib   []Demo           // the warm-start library, built once
	art       *ArtPrompt       // prompt.demos: demonstrations before each task; nil without
	atlass    *atlassRun       // tool.library.atlass: the phases in GRPO rollouts; nil when off
	servers   *rolloutServers  // rollout.servers: the fleet that samples GRPO rollouts; nil in process
	stepBar   *stepProgress    // the GRPO step shown on the terminal; nil off one
	stale     *staleRollouts   // grpo.max_staleness ≥ 1: the producer of rollouts ahead; nil otherwise
	staleLag  int              // tests: the producer samples this many versions older than scheduled
	// afterWarmStep, when set, is called after each warm-start update
	// (tests use it to stop a run at a chosen step).
	afterWarmStep func(step int)
	// Chat renders prompts and turns for prompt.template chat; nil for
	// plain.
	Chat          *rollout.Chat
	templateNoted bool // noteTemplateDiffers has spoken
	splitNoted    bool // noteTemplateSplits has spoken
	out           io.Writer
	red           reducer   // how the processes share the work: solo, or the ranks of TrainOn's job
	start         time.Time // when this process started the run
	priorWall     float64   // seconds spent by earlier processes of a resumed run
	refBytes      int64     // the KL reference copy's weights (Model.WeightBytes), 0 without one
	klWatch       klWatch   // mismatch/kl_k3 of the last step, for the jump warning
	resumed       resumeInfo
	// trains is set for Setup's run, which may load its init folder
	// straight into a bfloat16 base (initLoader); OpenCheckpoint's run,
	// which evaluates or samples, loads it as the folder holds it.
	trains bool
}

// Setup builds everything a run needs from its config: the task family's
// tasks, the tokenizer, a fresh or loaded model, the tool and the reward.
// It does not touch the run folder. ctx bounds the work of building them
// (the warm-start library that a built-in tokenizer learns from).
func Setup(ctx context.Context, cfg Config, out io.Writer) (*Run, error) {
	return setup(ctx, cfg, out, true)
}

// setup is Setup for a run that trains (Run.trains) or, trains false,
// one that only evaluates or samples (OpenCheckpoint).
func setup(ctx context.Context, cfg Config, out io.Writer, trains bool) (*Run, error) {
	if out == nil {
		out = io.Discard
	}
	if err := checkInit(cfg); err != nil {
		return nil, err
	}
	if err := applyComputeDType(cfg.Model.ComputeDType); err != nil {
		return nil, err
	}
	r := &Run{Cfg: cfg, out: out, red: solo{}, trains: trains}
	if err := r.setupTasks(); err != nil {
		return nil, err
	}
	if err := r.setupTokenizer(ctx); err != nil {
		return nil, err
	}
	if err := r.setupChat(); err != nil {
		return nil, err
	}
	if err := r.setupModel(); err != nil {
		return nil, err
	}
	if err := r.setupArtPrompt(); err != nil {
		return nil, err
	}
	var err error
	sel, _ := policy.DefaultBackend() // setupModel's model computes with it
	fmt.Fprintf(out, "backend: %v, compute_dtype %s\n", sel, cfg.Model.ComputeDType)
	if r.Tool, err = r.newTool(cfg.Tool); err != nil {
		return nil, err
	}
	r.noteToolLibraries()
	if r.atlass, err = r.newAtlass(); err != nil {
		r.Close()
		return nil, err
	}
	if err := r.checkContext(ctx); err != nil {
		r.Close()
		return nil, err
	}
	env := rewardEnv(cfg.Format, r.Family, r.Tasks.Supplies())
	if r.Reward, err = reward.NewComposite(cfg.Reward.Weights, env); err != nil {
		r.Close()
		return nil, fmt.Errorf("trainer: reward: %w", err)
	}
	if r.servers, err = newRolloutServers(cfg.Rollout, r.Tok); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// setupTasks opens the task family on its config section.
func (r *Run) setupTasks() error {
	c := r.Cfg.Task
	fam, err := family.Lookup(c.Name)
	if err != nil {
		return fmt.Errorf("trainer: task.name: %w", err)
	}
	set, err := fam.Open(c.Section(c.Name), r.Cfg.Format)
	if err != nil {
		return fmt.Errorf("trainer: %w", err)
	}
	r.Family, r.Tasks = fam, set
	r.Train, r.Heldout = set.Train(), set.Heldout()
	if r.Train == nil {
		return fmt.Errorf("trainer: task %s has no training pool", c.Name)
	}
	return nil
}

// newTool builds the configured tool (OpenTool); a run that grows its
// tool library continues with the library it saved.
func (r *Run) newTool(c ToolConfig) (envs.Tool, error) {
	if grown := r.grownLibraryPath(); c.Library.Path != "" && c.Library.Grow && fileExists(grown) {
		c.Library.Path = grown // a resumed run continues with the library it grew
	}
	tool, closeTool, err := OpenTool(c, r.Tasks)
	if err != nil {
		return nil, err
	}
	r.closeTool = closeTool
	if r.lib, _ = tool.(*toollib.Augment); r.lib != nil {
		r.lib.Run = r.Cfg.RunDir
		if r.lib.Grow && r.lib.AutoApprove {
			fmt.Fprintln(r.out, "tool library: auto-approving grown tools")
		}
	}
	return tool, nil
}

// OpenTool builds the tool of c for the tasks of set: the ablation
// (disabled), the Go sandbox with its tool library (family.SandboxTool),
// or the family's own kind (family.Set.Tool). close releases the
// sandbox's worker processes; it is nil when there is nothing to release.
// It is the one wiring of tools, for training and for evaluation.
func OpenTool(c ToolConfig, set family.Set) (tool envs.Tool, close func() error, err error) {
	switch c.Kind {
	case "disabled":
		return envs.Disabled{}, nil, nil
	case family.SandboxTool:
		return openSandbox(c)
	case family.PythonTool:
		return openPython(c)
	}
	if tool, err = set.Tool(c.Kind); err != nil {
		return nil, nil, fmt.Errorf("trainer: tool: %w", err)
	}
	return tool, nil, nil
}

// openSandbox builds the code tool, with the tool library around it when
// one is configured.
func openSandbox(c ToolConfig) (envs.Tool, func() error, error) {
	sb, err := sandbox.New(c.Sandbox)
	if err != nil {
		return nil, nil, fmt.Errorf("trainer: tool: %w", err)
	}
	if c.Library.Path == "" {
		return sb, sb.Close, nil
	}
	open := toollib.OpenDB
	if c.Library.Grow {
		open = toollib.OpenCopy // growing leaves the seed database as it was
	}
	lib, err := open(c.Library.Path)
	if err != nil {
		sb.Close()
		return nil, nil, fmt.Errorf("trainer: tool.library: %w", err)
	}
	a := &toollib.Augment{Inner: sb, Lib: lib, K: c.Library.K, Grow: c.Library.Grow, AutoApprove: c.Library.AutoApprove}
	return a, func() error { return errors.Join(lib.Close(), sb.Close()) }, nil
}

// grownLibraryPath is where a run saves the library it grows.
func (r *Run) grownLibraryPath() string { return filepath.Join(r.Cfg.RunDir, "tools.db") }

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// setupTokenizer loads the configured tokenizer (with the
// tokenizer_config.json and generation_config.json of its folder, so EOS
// and the stop ids are those HuggingFace would use) or trains the run's
// own.
func (r *Run) setupTokenizer(ctx context.Context) error {
	if r.Cfg.Tokenizer != "" {
		tok, err := checkpoint.LoadTokenizer(r.Cfg.Tokenizer)
		if err != nil {
			return fmt.Errorf("trainer: %w", err)
		}
		r.Tok = tok
		return nil
	}
	data, err := r.trainTokenizer(ctx)
	if err != nil {
		return fmt.Errorf("trainer: tokenizer: %w", err)
	}
	tok, err := policy.ParseTokenizer(policy.TokenizerFiles{JSON: data, Config: policy.TokenizerConfigJSON(eosToken)})
	if err != nil {
		return fmt.Errorf("trainer: tokenizer: %w", err)
	}
	r.Tok = tok
	return nil
}

// eosToken ends sequences of the built-in byte-level vocabulary.
const eosToken = "<|endoftext|>"

// trainTokenizer builds the run's own byte-level BPE: tokenizer_merges
// merges learned from the demonstration library (digits never merge, so
// numbers stay one token per digit), with the format's tags and EOS as
// single special tokens. The library is drawn from the seed, so a resumed
// run builds the same tokenizer.
func (r *Run) trainTokenizer(ctx context.Context) ([]byte, error) {
	specials := append(r.Cfg.Format.Tags(), eosToken)
	var corpus []string
	if r.Cfg.TokenizerMerges > 0 && r.Family.WritesDemos() {
		demos, err := r.demos(ctx)
		if err != nil {
			return nil, err
		}
		for _, d := range demos {
			corpus = append(corpus, r.promptText(d.Task)+d.Response())
		}
	}
	isDigit := func(b byte) bool { return b >= '0' && b <= '9' }
	bar := r.bar(r.Cfg.TokenizerMerges, "learning the tokenizer (merges)")
	defer bar.Clear()
	return policy.TrainByteLevelBPEReport(corpus, r.Cfg.TokenizerMerges, isDigit, specials, eosToken, bar.Report)
}

// setupModel builds the run's model: the init folder's (read by
// initLoader, with the folder's adapters), or a fresh one of model's
// shape drawn from the seed.
func (r *Run) setupModel() error {
	if r.Cfg.Init != "" {
		m, _, err := checkpoint.LoadModel(r.Cfg.Init, r.out, r.initLoader())
		if err != nil {
			return fmt.Errorf("trainer: init: %w", err) // names the folder
		}
		if m.Config.VocabSize < r.Tok.VocabSize() {
			return fmt.Errorf("trainer: init: model vocab_size %d is smaller than the tokenizer's %d", m.Config.VocabSize, r.Tok.VocabSize())
		}
		r.Model = m
		return nil
	}
	mc := r.Cfg.Model.Config
	if mc.VocabSize == 0 {
		mc.VocabSize = r.Tok.VocabSize()
	}
	if mc.VocabSize < r.Tok.VocabSize() {
		return fmt.Errorf("trainer: model.vocab_size %d is smaller than the tokenizer's %d: set 0 to use the tokenizer's size", mc.VocabSize, r.Tok.VocabSize())
	}
	m, err := policy.New(mc, rand.New(rand.NewSource(r.Cfg.Seed)))
	if err != nil {
		return fmt.Errorf("trainer: model: %w", err)
	}
	r.Model = m
	return nil
}

// checkContext requires every listed task (the held-out split, and the
// training pool when it is a list) to fit the model's context, prompt,
// later user turns and response budget together, so no rollout overflows
// it mid-run.
func (r *Run) checkContext(ctx context.Context) error {
	tasks := r.Heldout
	if l, ok := r.Train.(envs.List); ok {
		tasks = append(slices.Clip(tasks), l...)
	}
	var over *rollout.ContextError
	if err := r.Engine(r.Cfg.Rollout).CheckContext(ctx, tasks); errors.As(err, &over) {
		return fmt.Errorf("trainer: task %s may take %d tokens (prompt, user turns and the rollout budgets), over model.max_position_embeddings %d: raise it or lower rollout.max_response_tokens, max_tool_calls or max_result_tokens", over.Task, over.Need, over.Context)
	} else if err != nil {
		return fmt.Errorf("trainer: %w", err)
	}
	return nil
}

// Engine returns a rollout engine over the run's model with the given
// sampling settings.
func (r *Run) Engine(rc rollout.Config) *rollout.Engine {
	return &rollout.Engine{
		Policy: modelPolicy{r.Model}, Tokenizer: r.Tok, Tool: r.Tool,
		Format: r.Cfg.Format, Config: rc, Prompt: r.rolloutPrompt, UserTurn: rollout.UserTurnText, Chat: r.Chat,
	}
}

// promptText renders a task with the configured template. With a tool
// library, the question is followed by the signatures of the functions
// the task retrieves, which its code may call.
func (r *Run) promptText(t envs.Task) string {
	if r.lib != nil {
		if tools := r.lib.Retrieved(t); len(tools) > 0 {
			t.Prompt += "\n\nLibrary functions you may call:\n" + strings.TrimRight(toollib.Listing(tools), "\n")
		}
	}
	return r.userText(t)
}

// Train runs the whole job: warm start, GRPO, evaluations, checkpoints and
// the summary, resuming from the run folder's latest checkpoint if any.
func Train(ctx context.Context, cfg Config, out io.Writer) (*Summary, error) {
	r, err := Setup(ctx, cfg, out)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.Run(ctx)
}

// Close releases the run's tool (the sandbox's worker processes).
func (r *Run) Close() error {
	if r.closeTool != nil {
		return r.closeTool()
	}
	return nil
}

// Run executes the job of Train on a prepared run. A finished run (open)
// returns its recorded summary and changes no file.
func (r *Run) Run(ctx context.Context) (*Summary, error) {
	r.start = time.Now()
	st, done, err := r.open()
	if err != nil || done != nil {
		return done, err
	}
	if st == nil || st.Phase == phaseWarmStart {
		if st, err = r.warmStart(ctx, st); err != nil {
			return nil, err
		}
	}
	return r.grpo(ctx, st)
}

// ErrInterrupted reports a run stopped by its context; the latest
// checkpoint resumes it.
var ErrInterrupted = errors.New("trainer: interrupted")

// PolicyOf adapts a model to the rollout engine.
func PolicyOf(m *policy.Model) rollout.Policy { return modelPolicy{m} }
