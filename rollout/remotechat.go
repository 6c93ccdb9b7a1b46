package rollout

import (
	"context"
	"errors"
	"math/rand"
	"net/http"
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
// calls, on the engine's agent loop: its generator (chatCompleter) keeps
// each trajectory's conversation, sends it with the tools offered, and
// gives the loop the answer as text in Format's tags (the content, then
// each tool call as a code block holding its input, one per request of
// the loop, the later ones without asking the server again); the loop
// runs each call as Engine does and the generator sends its result back
// as a tool message, in order. A turn ends when an answer holds no call
// (its content ending with the closing answer tag: StopAnswer; otherwise
// StopEOS); a later user turn of a multi-turn task then follows, as in
// Engine, as the adapter's user message (ChatAdapter.Turn). With an
// envs.UserTool the next user message comes from the trajectory's user
// instead (envs.UserSession.Reply with what the policy said in the
// turn), until the user ends the conversation, MaxReplies messages were
// given or the budget is spent; each exchange is recorded in Replies.
//
// The trajectories have Task, Group, Calls, Turns, Replies and Stop
// filled, and a Response that transcribes the conversation in Format's
// tags (content as written; each call as a code block holding its input,
// followed by ResultBlock of its result; later user turns as
// UserTurnText), so the family's judge and rewards read it as they read
// the other rollouts; their token fields stay empty. A call past
// MaxToolCalls stays in the transcript, not run (StopMaxTurns), as in
// Engine. Run returns the completion tokens of each.
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
	// MaxResultTokens (4 bytes a token) is cut in the middle.
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
	if r.Chat == nil {
		return nil, nil, errors.New("rollout: RemoteChat.Chat is nil: set the family's chat adapter")
	}
	if r.Tool == nil && r.Config.MaxToolCalls > 0 {
		return nil, nil, errors.New("rollout: RemoteChat.Tool is nil: set a tool or max_tool_calls: 0")
	}
	if rng == nil && r.Config.Temperature != 0 {
		panic("rollout: RemoteChat.Run needs a seeded *rand.Rand unless temperature is 0")
	}
	f := r.Format
	f.Style = format.StyleTags // the transcript's tags, whatever the family's style
	comp := &chatCompleter{r: r, f: f, tok: newTextTokens(nil), tasks: tasks, k: k,
		client: &openai.Client{URL: r.URL, HTTP: r.Client, Timeout: r.Timeout, Retries: r.Retries, APIKey: r.APIKey}}
	e := &Engine{Tokenizer: comp.tok, Tool: r.Tool, Format: f, Config: r.Config, Completer: comp, Parallel: r.Parallel}
	trajs, err := runText(ctx, e, tasks, k, rng)
	if err != nil {
		return nil, nil, err
	}
	used := make([]int, len(comp.rows))
	for i, w := range comp.rows {
		used[i] = w.used
	}
	return trajs, used, nil
}
