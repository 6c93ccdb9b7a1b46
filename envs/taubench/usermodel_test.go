package taubench

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/artist-rl/artist/envs"
)

// echoModel is a UserModel that answers with what it was asked and how:
// "opening <seed>" to the greeting, StopMarker to an agent that says
// "bye", and otherwise "reply <seed> <temperature> <max tokens>".
type echoModel struct {
	mu    sync.Mutex
	calls []Sampling
}

func (m *echoModel) Chat(_ context.Context, msgs []ChatMessage, s Sampling) (string, error) {
	m.mu.Lock()
	m.calls = append(m.calls, s)
	m.mu.Unlock()
	switch last := msgs[len(msgs)-1].Content; {
	case msgs[0].Role != "system" || !strings.Contains(msgs[0].Content, "Your situation and goal"):
		return "", fmt.Errorf("no user prompt")
	case last == Greeting:
		return fmt.Sprintf("opening %d", s.Seed), nil
	case last == "bye":
		return StopMarker, nil
	}
	return fmt.Sprintf("reply %d %g %d", s.Seed, s.Temperature, s.MaxTokens), nil
}

// withUserModels makes open the loader for the test (nil: none).
func withUserModels(t *testing.T, open func(dir string) (UserModel, error)) {
	var u *UserModels
	if open != nil {
		u = NewUserModels(open)
	}
	t.Cleanup(UseUserModels(u))
}

// TestCheckpointUser: user kind checkpoint opens its folder once through
// the registered loader, and the model plays the customer with the
// configured temperature and budget and the seed Seed + the task's index:
// it writes each task's opening (the prompt's end), answers the agent,
// and ends the conversation with StopMarker.
func TestCheckpointUser(t *testing.T) {
	m := &echoModel{}
	var opened []string
	withUserModels(t, func(dir string) (UserModel, error) { opened = append(opened, dir); return m, nil })
	u := UserConfig{Kind: UserCheckpoint, Checkpoint: "ckpt/step-1", Temperature: 0.5, Seed: 10, MaxTokens: 7}
	if err := u.Validate(); err != nil {
		t.Fatal(err)
	}
	s := openFixture(t, Retail, u)
	openFixture(t, Airline, u)
	if len(opened) != 1 || opened[0] != "ckpt/step-1" {
		t.Fatalf("opened %q, want the folder once", opened)
	}
	tool, _ := s.Tool(FamilyName)
	for i, task := range s.Heldout() {
		if want := fmt.Sprintf("# Customer\nopening %d", 10+i); !strings.HasSuffix(task.Prompt, want) {
			t.Fatalf("%s: prompt ends %q, want %q", task.ID, task.Prompt[max(0, len(task.Prompt)-30):], want)
		}
		sess := tool.(envs.SessionTool).OpenSession(task).(*Session)
		msg, done := sess.Reply(context.Background(), "<reasoning>x</reasoning>Your order id?")
		if want := fmt.Sprintf("reply %d 0.5 7", 10+i); done || msg != want {
			t.Errorf("%s: reply %q done %v, want %q", task.ID, msg, done, want)
		}
		if _, done := sess.Reply(context.Background(), "bye"); !done {
			t.Errorf("%s: the user did not end the conversation", task.ID)
		}
	}
}

// TestCheckpointUserErrors: without a registered loader the kind is an
// error that says so, as is a loader's failure; the config names a
// missing folder and a folder set for another kind.
func TestCheckpointUserErrors(t *testing.T) {
	withUserModels(t, nil)
	c := DefaultConfig()
	c.Env, c.Split, c.Heldout, c.Data = Retail, "test", "test", "../../testdata/tau_bench"
	c.User = UserConfig{Kind: UserCheckpoint, Checkpoint: "x"}
	if _, err := (Family{}).Open(&c, fcFormat); err == nil || !strings.Contains(err.Error(), "UseUserModels") {
		t.Errorf("no loader: %v", err)
	}
	withUserModels(t, func(string) (UserModel, error) { return nil, fmt.Errorf("no model.safetensors") })
	if _, err := (Family{}).Open(&c, fcFormat); err == nil || !strings.Contains(err.Error(), "task.taubench.user.checkpoint x: no model.safetensors") {
		t.Errorf("failing loader: %v", err)
	}
	for _, u := range []UserConfig{{Kind: UserCheckpoint}, {Kind: UserScripted, Checkpoint: "x"}, {Kind: UserOpenAI, URL: "u", Model: "m", MaxTokens: -1}} {
		if err := u.Validate(); err == nil || !strings.Contains(err.Error(), "task.taubench.user.") {
			t.Errorf("%+v: %v", u, err)
		}
	}
}
