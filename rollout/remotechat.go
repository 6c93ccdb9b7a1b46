package rollout

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/rollout/format"
)

// ChatAdapter presents a task family's tasks to a chat-completions server
// with native tool calls: the messages and tools of each turn, and how a
// call becomes the input of the family's tool.
type ChatAdapter interface {
	// Start returns the first messages of t and the tools offered at turn
	// 0; it stops with ctx's error when ctx ends first.
	Start(ctx context.Context, t envs.Task) ([]openai.ChatMessage, []openai.Tool, error)
	// Turn returns the user message of turn k >= 1 (from t.Turns[k-1])
	// and the tools it adds to those offered so far.
	Turn(t envs.Task, k int) (openai.ChatMessage, []openai.Tool, error)
	// Input is the tool input of one call (the text a code block would
	// hold).
	Input(call openai.FunctionCall) (string, error)
}

// RemoteChat rolls out a policy served behind an OpenAI-compatible
// chat-completions endpoint (POST /v1/chat/completions) with native tool
// calls: each turn sends the conversation so far with the tools offered;
// each tool call the answer holds runs through the same tool loop as
// Engine and Remote (one call, one tool block), and its result goes back
// as a tool message. A turn ends when an answer holds no call; a later
// user turn of a multi-turn task then follows, as in Engine. With an
// envs.UserTool the next user message comes from the trajectory's user
// instead (envs.UserSession.Reply with the answer's content, as Remote
// asks it), as a user message, until the user ends the conversation,
// MaxReplies messages were given or the budget is spent; each exchange is
// recorded in Replies and the user's message transcribed as UserTurnText.
//
// The trajectories have Task, Group, Calls, Turns, Replies and Stop
// filled, and a Response that transcribes the conversation in Format's
// tags (content as written; each call as a code block holding its input,
// followed by ResultBlock of its result; later user turns as
// UserTurnText), so the family's judge and rewards read it as they read
// the other rollouts.
// Run returns the completion tokens of each.
type RemoteChat struct {
	// URL is the server's address (see openai.Client.URL); Model is sent
	// as the request's model, APIKey as its bearer token.
	URL, Model, APIKey string
	// Client, Timeout and Retries are as for Remote.
	Client  *http.Client
	Timeout time.Duration
	Retries int
	// Tool runs the calls; a SessionTool gets one session per trajectory.
	Tool   envs.Tool
	Format format.Format
	// Config sets the budgets and sampling as for Remote: MaxResponseTokens
	// bounds the completion tokens the server reports over all requests of
	// a trajectory, MaxToolCalls the calls; a result longer than
	// MaxResultTokens (about 4 bytes a token) is cut in the middle.
	Config Config
	// Chat presents the tasks.
	Chat ChatAdapter
	// Parallel bounds the trajectories in flight (default 8).
	Parallel int
}

// Run samples k trajectories per task, grouped as Remote.Run groups them,
// seeds drawn as Remote.Run draws them, and stops at the first fatal error
// as Remote.Run does.
func (r *RemoteChat) Run(ctx context.Context, tasks []envs.Task, k int, rng *rand.Rand) ([]*Trajectory, []int, error) {
	if err := r.Config.Validate(); err != nil {
		return nil, nil, err
	}
	if err := r.Format.Validate(); err != nil {
		return nil, nil, err
	}
	if r.Chat == nil {
		return nil, nil, errors.New("rollout: RemoteChat.Chat is nil: set the family's chat adapter")
	}
	if r.Tool == nil && r.Config.MaxToolCalls > 0 {
		return nil, nil, errors.New("rollout: RemoteChat.Tool is nil: set a tool or max_tool_calls: 0")
	}
	client := &openai.Client{URL: r.URL, HTTP: r.Client, Timeout: r.Timeout, Retries: r.Retries, APIKey: r.APIKey}
	return rollGroups(ctx, tasks, k, r.Parallel, r.Config.Temperature, rng, func(ctx context.Context, t *Trajectory, seed int64) (int, error) {
		return r.roll(ctx, client, t, seed)
	})
}

// rollGroups rolls out k trajectories per task with roll, grouped
// contiguously, and returns them with the completion tokens of each. At a
// temperature other than 0 each trajectory draws one seed from rng, in
// order, before any is rolled out (rng may be nil at temperature 0). At
// most par run at once, and the first error stops them (inParallel).
func rollGroups(ctx context.Context, tasks []envs.Task, k, par int, temperature float64, rng *rand.Rand, roll func(ctx context.Context, t *Trajectory, seed int64) (int, error)) ([]*Trajectory, []int, error) {
	n := len(tasks) * k
	trajs, toks, seeds := make([]*Trajectory, n), make([]int, n), make([]int64, n)
	if temperature != 0 {
		for i := range seeds {
			seeds[i] = rng.Int63()
		}
	}
	err := inParallel(ctx, n, par, func(ctx context.Context, i int) error {
		t := &Trajectory{Task: tasks[i/k], Group: i / k}
		used, err := roll(ctx, t, seeds[i])
		trajs[i], toks[i] = t, used
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return trajs, toks, nil
}

// inParallel runs fn(0..n-1) with at most par (default 8) in flight; at
// the first error it starts no more, cancels those in flight and returns
// that error.
func inParallel(ctx context.Context, n, par int, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if par <= 0 {
		par = 8
	}
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	sem := make(chan struct{}, par)
	for i := range n {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := fn(ctx, i); err != nil {
				once.Do(func() { first = err; cancel() })
			}
		}()
	}
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		first = fmt.Errorf("rollout: %w", ctx.Err())
	}
	return first
}

// roll runs one conversation and returns the completion tokens it used.
func (r *RemoteChat) roll(ctx context.Context, client *openai.Client, t *Trajectory, seed int64) (int, error) {
	msgs, tools, err := r.Chat.Start(ctx, t.Task)
	if err != nil {
		return 0, fmt.Errorf("rollout: remote chat: task %s: %w", t.Task.ID, err)
	}
	var resp strings.Builder
	used := 0
	t.Turns = 1
	loop := newToolLoop(r.Tool, r.Config.ToolTimeout, t)
	defer loop.close()
	defer func() { t.Response = resp.String() }()
	for turn := int64(0); ; turn++ {
		req := openai.ChatRequest{Model: r.Model, Messages: msgs, Tools: tools, MaxTokens: openai.Ptr(r.Config.MaxResponseTokens - used),
			Temperature: openai.Ptr(r.Config.Temperature), TopP: openai.Ptr(r.Config.TopP), Seed: openai.Ptr(seed + turn), N: openai.Ptr(1)}
		out, err := client.Chat(ctx, req)
		if err != nil {
			return used, fmt.Errorf("rollout: remote chat: %w", err)
		}
		used += out.Usage.CompletionTokens
		c := out.Choices[0]
		content := ""
		if c.Message.Content != nil {
			content = *c.Message.Content
		}
		resp.WriteString(content)
		msgs = append(msgs, openai.ChatMessage{Role: "assistant", Content: openai.Text(content), ToolCalls: c.Message.ToolCalls})
		if len(c.Message.ToolCalls) > 0 {
			var stop StopReason
			if msgs, stop = r.calls(ctx, loop, t, c.Message.ToolCalls, msgs, &resp); stop == "" && used >= r.Config.MaxResponseTokens {
				stop = StopLength
			}
			if t.Stop = stop; stop != "" {
				return used, nil
			}
			continue
		}
		if c.FinishReason == "length" || used >= r.Config.MaxResponseTokens {
			t.Stop = StopLength
			return used, nil
		}
		end := StopEOS
		if strings.Contains(content, format.Close(r.Format.Answer)) {
			end = StopAnswer
		}
		if _, ok := userTool(r.Tool); ok {
			msg, ok := r.reply(ctx, loop, t, content, end, used)
			if !ok {
				return used, nil
			}
			resp.WriteString(UserTurnText(msg))
			msgs = append(msgs, openai.ChatMessage{Role: "user", Content: openai.Text(msg)})
			continue
		}
		next, stop := loop.endTurn(end, false)
		if t.Stop = stop; stop != "" {
			return used, nil
		}
		msg, more, err := r.Chat.Turn(t.Task, next+1)
		if err != nil {
			return used, fmt.Errorf("rollout: remote chat: task %s turn %d: %w", t.Task.ID, next+1, err)
		}
		resp.WriteString(UserTurnText(t.Task.Turns[next]))
		msgs, tools = append(msgs, msg), append(tools, more...)
	}
}

// reply asks the trajectory's user (an envs.UserSession) for the message
// that answers said, the content of the answer that ended the policy's
// turn with end, as Remote does; the message is cut to MaxResultTokens.
// ok is false when the conversation ends there, t.Stop then set: end when
// the user ended it or MaxReplies was reached, StopLength when the
// response budget is spent.
func (r *RemoteChat) reply(ctx context.Context, loop *toolLoop, t *Trajectory, said string, end StopReason, used int) (string, bool) {
	if used >= r.Config.MaxResponseTokens {
		t.Stop = StopLength
		return "", false
	}
	msg, done := loop.reply(ctx, said)
	if done {
		t.Stop = end
		return "", false
	}
	msg, _ = fitBytes(msg, replyLimit(r.Config, 0))
	return msg, true
}

// calls runs the calls of one answer in order, transcribes them and
// appends their tool messages; stop is StopMaxTurns when the call budget
// ran out first.
func (r *RemoteChat) calls(ctx context.Context, loop *toolLoop, t *Trajectory, calls []openai.ToolCall, msgs []openai.ChatMessage, resp *strings.Builder) ([]openai.ChatMessage, StopReason) {
	for _, call := range calls {
		if len(t.Calls) >= r.Config.MaxToolCalls {
			return msgs, StopMaxTurns
		}
		input, err := r.Chat.Input(call.Function)
		var res envs.Result
		if err != nil {
			res = envs.Result{Status: envs.StatusError, Output: "error: " + err.Error(), Error: err.Error()}
		} else {
			res = loop.call(ctx, input)
		}
		body, cut := fitBytes(r.Format.SafeOutput(res.Output), r.Config.MaxResultTokens)
		loop.record(input, res, cut)
		resp.WriteString(format.Open(r.Format.Code) + input + format.Close(r.Format.Code) + format.ResultBlock(r.Format, body))
		msgs = append(msgs, openai.ChatMessage{Role: "tool", ToolCallID: call.ID, Name: call.Function.Name, Content: openai.Text(body)})
	}
	return msgs, ""
}

// fitBytes cuts text to about limit tokens of 4 bytes, in the middle
// around TruncationMark, as Remote does without a tokenizer.
func fitBytes(text string, limit int) (string, bool) {
	rs := []rune(text)
	if len(text) <= 4*limit {
		return text, false
	}
	keep := max(4*limit/2, 1)
	if 2*keep >= len(rs) {
		return text, false
	}
	return string(rs[:keep]) + TruncationMark + string(rs[len(rs)-keep:]), true
}
