package rollout

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/artist-rl/artist/envs"
)

// barrierUsers are echoUsers whose replies wait until n of them are in
// flight at once (or a second passes): user replies wait on a simulator,
// so the engine must not bound them by GOMAXPROCS.
type barrierUsers struct {
	*echoUsers
	n        int
	mu       sync.Mutex
	waiting  int
	all      chan struct{}
	timedOut bool
}

func (u *barrierUsers) OpenSession(task envs.Task) envs.ToolSession {
	return barrierUser{u.echoUsers.OpenSession(task).(*echoUser), u}
}

type barrierUser struct {
	*echoUser
	u *barrierUsers
}

func (s barrierUser) Reply(ctx context.Context, said string) (string, bool) {
	u := s.u
	u.mu.Lock()
	if u.waiting++; u.waiting == u.n {
		close(u.all)
	}
	u.mu.Unlock()
	select {
	case <-u.all:
	case <-time.After(time.Second):
		u.mu.Lock()
		u.timedOut = true
		u.mu.Unlock()
	}
	return s.echoUser.Reply(ctx, said)
}

// TestUserRepliesAllAtOnce: with GOMAXPROCS 1, the four rows' user
// replies of one step still run at the same time.
func TestUserRepliesAllAtOnce(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	users := &barrierUsers{echoUsers: &echoUsers{replies: 0, max: 1}, n: 4, all: make(chan struct{})}
	tok := taggedTok()
	e, _ := setup(tok, wholeText(dialogue(turns("hi"))), sure, users, func(cfg *Config) {
		cfg.GroupSize, cfg.Temperature, cfg.MaxToolCalls, cfg.MaxResultTokens = 4, 0, 8, 64
	})
	e.UserTurn, e.Tokenizer = hashTurn, eosText{tok}
	if _, err := e.Run(context.Background(), []envs.Task{{ID: "c", Prompt: "a"}}, nil); err != nil {
		t.Fatal(err)
	}
	if users.timedOut || users.waiting != 4 {
		t.Fatalf("%d replies asked, timed out %v: want 4 in flight at once", users.waiting, users.timedOut)
	}
}
