package trainer

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/artist-rl/artist/atlass"
	"github.com/artist-rl/artist/chat"
	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/toollib"
	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/rollout"
)

// atlassRun is the ATLASS phases of a run (tool.library.atlass): the
// pipeline over the run's working copy of the tool database, with the
// sandbox (without the library's retrieval) as its code tool.
type atlassRun struct {
	cfg  AtlassConfig
	pipe atlass.Pipeline // Chat is set per step; Solver is unused
	code envs.Tool       // the sandbox: verification, and the solver's snippets
	// chat, when set, replaces the policy in the phases (tests script
	// the replies with it); rng is the step's phase stream.
	chat func(rng *rand.Rand) atlass.Chat
}

// newAtlass builds the phases of an enabled tool.library.atlass over the
// run's library and says in the log how generated tools are approved; it
// returns nil when the phases are off.
func (r *Run) newAtlass() (*atlassRun, error) {
	c := r.Cfg.Tool.Library
	if !c.Atlass.Enabled {
		return nil, nil
	}
	if r.lib == nil {
		return nil, fmt.Errorf("trainer: tool.library.atlass needs the sandbox with tool.library.path")
	}
	if n := r.Model.Config.MaxPositionEmbeddings; c.Atlass.MaxReplyTokens >= n {
		return nil, fmt.Errorf("trainer: tool.library.atlass.max_reply_tokens %d leaves no room in the model's context of %d tokens: lower it", c.Atlass.MaxReplyTokens, n)
	}
	if err := r.checkPhaseTeacher(); err != nil {
		return nil, err
	}
	retries := c.Atlass.Retries
	if retries == 0 {
		retries = -1 // the pipeline's "never ask again"
	}
	a := &atlassRun{cfg: c.Atlass, code: r.lib.Inner, pipe: atlass.Pipeline{
		DB: r.lib.Lib, Code: r.lib.Inner, Retries: retries, MaxAttempts: c.Atlass.MaxAttempts,
		AutoApprove: c.AutoApprove, Approver: "trainer (tool.library.auto_approve)", RunID: r.Cfg.RunDir, Format: r.Cfg.Format,
	}}
	how := "stored pending: the solver gets them once a person approves them (artist tools approve ID on tools.db)"
	if c.AutoApprove {
		how = "auto-approved (tool.library.auto_approve), not reviewed by a person, and solved with at once"
	}
	fmt.Fprintf(r.out, "atlass: the policy runs the phases on each GRPO task; generated tools are %s\n", how)
	return a, nil
}

// phaseChat is the Chat of the phases of one step: the policy, sampling
// from rng, unless a test replaced it.
func (r *Run) phaseChat(rng *rand.Rand) atlass.Chat {
	if r.atlass.chat != nil {
		return r.atlass.chat(rng)
	}
	return r.policyChat(rng)
}

// policyChat is the policy as the phases' Chat, sampling from rng: its
// Prompt is also how the warm start encodes the phase demonstrations.
func (r *Run) policyChat(rng *rand.Rand) *atlass.PolicyChat {
	c := r.atlass.cfg
	return &atlass.PolicyChat{
		Policy: modelPolicy{r.Model}, Tokenizer: r.Tok, Render: r.renderChat, RNG: rng,
		Config: rollout.CompleteConfig{MaxTokens: c.MaxReplyTokens, Temperature: c.Temperature, TopP: 1},
		MaxLen: r.Model.Config.MaxPositionEmbeddings,
	}
}

// renderChat renders a phase's conversation for the policy: role-labelled
// lines for a plain prompt, the run's chat template for prompt.template
// chat.
func (r *Run) renderChat(msgs []openai.ChatMessage) (string, error) {
	if r.Chat == nil {
		return atlass.RenderPlain(msgs)
	}
	pm := make([]chat.Message, len(msgs))
	for i, m := range msgs {
		text, err := openai.MessageText(m.Content)
		if err != nil {
			return "", fmt.Errorf("trainer: atlass message %d: %w", i+1, err)
		}
		pm[i] = chat.Message{Role: m.Role, Content: text}
	}
	text, err := r.Chat.Template.Render(pm, chat.Options{AddGenerationPrompt: true})
	if err != nil {
		return "", fmt.Errorf("trainer: atlass: %w", err)
	}
	return text, nil
}

// atlassBatch is drawBatch with the phases: the step's batch_size tasks
// (drawn as drawBatch's first draw draws them) each go through the phases
// with the policy, sampling from the stream atlass/phases of (seed, step),
// one task after another so that the database grows in task order; then
// each task's group is rolled out with its tools, from the streams of
// (seed, "grpo", step) as drawBatch samples them, and
// scored. Each group is one engine run of G rows, since its tools and
// prompt are its own. Every rollout is trained on. The phases' time is
// added to m's timing/atlass_s and their counts to m (atlassStats.put).
func (r *Run) atlassBatch(ctx context.Context, step int, m Metrics) (*stepBatch, error) {
	tasks := r.Train.Sample(r.taskRNG("grpo", step), r.Cfg.GRPO.BatchSize)
	pipe := r.atlass.pipe
	pipe.Chat = r.phaseChat(stepRNG(r.Cfg.Seed, "atlass/phases", step))
	b := &stepBatch{parts: map[string]float64{}, draws: 1}
	var st atlassStats
	for i, task := range tasks {
		t0 := time.Now()
		tr, err := pipe.Prepare(ctx, task)
		if err != nil {
			return nil, fmt.Errorf("atlass: task %s: %w", task.ID, err)
		}
		ids, tools, err := pipe.ApprovedTools(ctx, tr)
		if err != nil {
			return nil, err
		}
		m["timing/atlass_s"] += time.Since(t0).Seconds()
		t0 = time.Now()
		trajs, fit, err := r.solveGroup(ctx, task, tools, r.streams("grpo", step, i))
		if err != nil {
			return nil, err
		}
		m["timing/rollout_s"] += time.Since(t0).Seconds()
		t0 = time.Now()
		lo := len(b.trajs)
		for _, t := range trajs {
			t.Group = i
		}
		r.scoreDraw(b, trajs)
		m["timing/reward_s"] += time.Since(t0).Seconds()
		if !fit {
			ids = nil
		}
		st.add(tr, ids, fit)
		if i < r.atlass.cfg.Transcripts {
			if err := r.saveTranscript(step, i, tr, ids, b.trajs[lo:], b.rewards[lo:]); err != nil {
				return nil, err
			}
		}
	}
	for i := range b.trajs {
		b.train = append(b.train, i)
	}
	st.put(m, len(tasks))
	m["atlass/trajectories"] = float64(len(b.trajs))
	return b, nil
}

// solveGroup rolls out rollout.group_size trajectories of task on the
// solver's engine (solverEngine), sampling from s.
func (r *Run) solveGroup(ctx context.Context, task envs.Task, tools []toollib.Tool, s rollout.Streams) (_ []*rollout.Trajectory, fit bool, _ error) {
	e, fit := r.solverEngine(ctx, task, tools)
	trajs, err := e.RunStreams(ctx, []envs.Task{task}, s)
	if err != nil {
		return nil, false, fmt.Errorf("atlass: solve task %s: %w", task.ID, err)
	}
	return trajs, fit, nil
}

// solverEngine is the run's engine with tools defined before every
// snippet (atlass.WithTools over the sandbox) and listed after the
// question as the library's retrieved tools are. When the listing would
// not fit the model's context, it is the engine without them and fit is
// false.
func (r *Run) solverEngine(ctx context.Context, task envs.Task, tools []toollib.Tool) (_ *rollout.Engine, fit bool) {
	e := r.Engine(r.Cfg.Rollout)
	e.Tool = atlass.WithTools(r.atlass.code, tools)
	e.Prompt = r.art.Render(rollout.Plain(func(t envs.Task) string { return r.userText(withListing(t, tools)) }))
	if n, err := e.MaxLen(ctx, task); err == nil && n <= r.Model.Config.MaxPositionEmbeddings {
		return e, true
	}
	e.Tool = r.atlass.code
	e.Prompt = r.art.Render(rollout.Plain(r.userText))
	return e, false
}

// withListing is t with the signatures of tools after its question, in
// the words of the library's retrieval (Run.promptText).
func withListing(t envs.Task, tools []toollib.Tool) envs.Task {
	if len(tools) > 0 {
		t.Prompt += "\n\nLibrary functions you may call:\n" + strings.TrimRight(toollib.Listing(tools), "\n")
	}
	return t
}

// saveTranscript writes the phases of task i of a step, with a last
// "solve" entry for the group, to atlass/step-NNNNNN/task-II.json in the
// run folder, atomically. A resumed run that takes the step again writes
// it again.
func (r *Run) saveTranscript(step, i int, tr *atlass.Transcript, ids []int64, trajs []*rollout.Trajectory, rewards []float64) error {
	answers := make([]string, len(trajs))
	for j, t := range trajs {
		answers[j] = t.Response
	}
	tr.Phases = append(tr.Phases, atlass.PhaseLog{Phase: "solve",
		Note:   "the group rolled out on the policy; the phase replies above are not trained on",
		Output: map[string]any{"tools": ids, "rewards": rewards, "responses": answers}})
	if tr.Status == "" {
		tr.Status = atlass.Solved
	}
	dir := filepath.Join(r.Cfg.RunDir, "atlass", fmt.Sprintf("step-%06d", step))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("trainer: step %d: transcripts: %w", step, err)
	}
	if err := tr.WriteFile(filepath.Join(dir, fmt.Sprintf("task-%02d.json", i))); err != nil {
		return fmt.Errorf("trainer: step %d: %w", step, err)
	}
	return nil
}
