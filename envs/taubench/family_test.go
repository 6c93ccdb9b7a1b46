package taubench

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/internal/datadir"
	"github.com/artist-rl/artist/internal/pyval"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

var fcFormat = format.Format{Think: "reasoning", Code: "tool", Output: "tool_result", Answer: "answer"}

func TestConfigValidate(t *testing.T) {
	cases := []struct {
		name string
		edit func(*Config)
		want string // "" for valid
	}{
		{"defaults", func(*Config) {}, ""},
		{"airline test", func(c *Config) { c.Env, c.Split, c.Heldout = Airline, "test", "test" }, ""},
		{"airline has no train", func(c *Config) { c.Env = Airline }, "task.taubench.split"},
		{"unknown env", func(c *Config) { c.Env = "bank" }, "task.taubench.env"},
		{"bad heldout", func(c *Config) { c.Heldout = "val" }, "task.taubench.heldout"},
		{"no replies", func(c *Config) { c.MaxReplies = 0 }, "task.taubench.max_replies"},
		{"openai needs a url", func(c *Config) { c.User.Kind = UserOpenAI }, "task.taubench.user.url"},
		{"unknown user", func(c *Config) { c.User.Kind = "human" }, "task.taubench.user.kind"},
		{"signatures", func(c *Config) { c.Docs = DocsSignatures }, ""},
		{"unknown docs", func(c *Config) { c.Docs = "yaml" }, "task.taubench.docs"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			c.edit(&cfg)
			err := cfg.Validate()
			if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Validate() = %v, want an error naming %q", err, c.want)
			}
		})
	}
}

func TestParseActions(t *testing.T) {
	cases := []struct {
		in    string
		names []string
		err   bool
	}{
		{`{"name": "think", "arguments": {"thought": "x"}}`, []string{"think"}, false},
		{`[{"name": "a", "arguments": {}}, {"name": "b", "kwargs": {"n": 1}}]`, []string{"a", "b"}, false},
		{`{"name": "a"}`, []string{"a"}, false},
		{"  ", nil, false},
		{`think(thought="x")`, nil, true},
		{`{"arguments": {}}`, nil, true},
		{`{"name": "a", "arguments": [1]}`, nil, true},
	}
	for i, c := range cases {
		acts, err := ParseActions(c.in)
		if (err != nil) != c.err {
			t.Errorf("case %d: err %v, want error %v", i, err, c.err)
			continue
		}
		var names []string
		for _, a := range acts {
			names = append(names, a.Name)
		}
		if strings.Join(names, ",") != strings.Join(c.names, ",") {
			t.Errorf("case %d: actions %v, want %v", i, names, c.names)
		}
	}
	acts, _ := ParseActions(`{"name": "calculate", "arguments": {"n": 5, "x": 5.0}}`)
	if n, _ := acts[0].Kwargs.Get("n"); n != int64(5) && pyval.Repr(n) != "5" {
		t.Errorf("an integer argument became %s", pyval.Repr(n))
	}
}

func openFixture(t *testing.T, env string, u UserConfig) *Set {
	t.Helper()
	c := DefaultConfig()
	c.Env, c.Split, c.Heldout, c.Data, c.User = env, "test", "test", "../../testdata/tau_bench", u
	s, err := Family{}.Open(&c, fcFormat)
	if err != nil {
		t.Fatal(err)
	}
	return s.(*Set)
}

// TestSessionGold: a session that runs the gold actions of a task and
// says its outputs, with a scripted user, replays (TrajectoryOutcome) to
// the gold database: reward 1; the same without the actions does not, unless
// they leave the database as it was.
func TestSessionGold(t *testing.T) {
	s := openFixture(t, Retail, UserConfig{Kind: UserScripted})
	tool, err := s.Tool(FamilyName)
	if err != nil {
		t.Fatal(err)
	}
	for _, skip := range []bool{false, true} {
		for _, task := range s.Heldout() {
			tt := s.tasks[task.ID]
			if !strings.HasSuffix(task.Prompt, "# Customer\n"+tt.Instruction) {
				t.Fatalf("%s: the prompt does not end with the user's opening", task.ID)
			}
			acts := tt.Actions
			if skip {
				acts = nil
			}
			sess := tool.(envs.SessionTool).OpenSession(task).(*Session)
			tr := &rollout.Trajectory{Task: task, Turns: 1}
			for _, a := range acts {
				in, _ := pyval.JSON(pyval.NewDict("name", a.Name, "arguments", a.Kwargs))
				tr.Calls = append(tr.Calls, rollout.Call{Input: in, Result: sess.Call(context.Background(), in)})
			}
			said := "<reasoning>done</reasoning>" + strings.Join(tt.Outputs, " ")
			_, done := sess.Reply(context.Background(), said)
			tr.Replies = append(tr.Replies, rollout.Reply{Said: said, Done: done})
			got := s.Score(tr)
			want := 1.0
			if gold, _ := GoldHash(s.domain, tt); skip && gold != s.domain.NewEnv().Hash() {
				want = 0
			}
			if !done || got["reward"] != want || s.Judge(tr).Correct != (want == 1) {
				t.Errorf("%s skip %v: done %v components %v, want reward %v", task.ID, skip, done, got, want)
			}
		}
	}
}

// TestOpenAIUser: the openai user opens each task once (shared by its
// trajectories), hears the agent's message without its reasoning, and
// ends the conversation on StopMarker.
func TestOpenAIUser(t *testing.T) {
	var heard []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req chatRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || r.URL.Path != "/v1/chat/completions" || req.MaxTokens != 9 || req.Seed < 3 || req.Seed > 6 { // seed 3 + the task's index
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		last := req.Messages[len(req.Messages)-1]
		reply := "I want to cancel my order."
		if last.Content != Greeting {
			heard = append(heard, last.Content)
			reply = StopMarker
		}
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": ChatMessage{Role: "assistant", Content: reply}}}})
	}))
	defer srv.Close()
	s := openFixture(t, Retail, UserConfig{Kind: UserOpenAI, URL: srv.URL, Model: "user", MaxTokens: 9, Seed: 3})
	tasks := s.Train().Sample(rand.New(rand.NewSource(1)), 2)
	if !strings.HasSuffix(tasks[0].Prompt, "# Customer\nI want to cancel my order.") {
		t.Fatalf("prompt ends %q", tasks[0].Prompt[max(0, len(tasks[0].Prompt)-60):])
	}
	tool, _ := s.Tool(FamilyName)
	sess := tool.(envs.SessionTool).OpenSession(tasks[0]).(*Session)
	if msg, done := sess.Reply(context.Background(), "<reasoning>hm</reasoning> Sure."); !done || msg != "" {
		t.Errorf("reply %q done %v, want the conversation ended", msg, done)
	}
	if len(heard) != 1 || heard[0] != "Sure." {
		t.Errorf("the user heard %q, want [\"Sure.\"]", heard)
	}
}

// TestShippedTools: the shipped schemas name exactly the domain's tools,
// each with exactly its parameters, and equal the data folder's
// tools.json when it is present.
func TestShippedTools(t *testing.T) {
	for _, env := range []string{Airline, Retail} {
		raw, err := ShippedTools(env)
		if err != nil {
			t.Fatal(err)
		}
		var schemas []struct {
			Function struct {
				Name       string `json:"name"`
				Parameters struct {
					Properties map[string]any `json:"properties"`
				} `json:"parameters"`
			} `json:"function"`
		}
		if err := json.Unmarshal(raw, &schemas); err != nil {
			t.Fatal(err)
		}
		d, err := Load("../../testdata/tau_bench/"+env, env)
		if err != nil {
			t.Fatal(err)
		}
		if len(schemas) != len(d.tools) {
			t.Errorf("%s: %d schemas for %d tools", env, len(schemas), len(d.tools))
		}
		for _, sc := range schemas {
			tl, ok := d.tools[sc.Function.Name]
			if !ok || len(tl.params) != len(sc.Function.Parameters.Properties) {
				t.Errorf("%s: schema %s does not match a tool (known %v)", env, sc.Function.Name, ok)
			}
		}
		if !strings.Contains(d.ToolListing(), `{"name":"calculate"`) {
			t.Errorf("%s: the listing does not show the schemas", env)
		}
	}
}

// TestShippedToolsMatchShared: the shipped schemas are the data folder's
// tools.json, byte for byte.
func TestShippedToolsMatchShared(t *testing.T) {
	for _, env := range []string{Airline, Retail} {
		want, err := os.ReadFile(datadir.Require(t, "tau_bench/"+env+"/tools.json"))
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := ShippedTools(env); !bytes.Equal(got, want) {
			t.Errorf("%s: the shipped tools.json differs from the data folder's", env)
		}
	}
}

// TestPromptDocs: docs json lists the schemas, signatures one line per
// tool; both end with the customer's opening.
func TestPromptDocs(t *testing.T) {
	for docs, want := range map[string]string{DocsJSON: `{"name":"get_order_details"`, DocsSignatures: "\nget_order_details(order_id)\n"} {
		s := openFixture(t, Retail, UserConfig{Kind: UserScripted})
		s.cfg.Docs = docs
		p := s.Prompt("hello")
		if !strings.Contains(p, want) || !strings.HasSuffix(p, "# Customer\nhello") {
			t.Errorf("docs %s: prompt lacks %q or the opening:\n%s", docs, want, p)
		}
	}
}
