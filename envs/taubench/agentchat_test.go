package taubench

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/internal/pyval"
	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/rollout"
)

// goldChatAgent is a chat-completions server that plays a tau-bench
// agent with native tool calls: it finds the task by the customer's
// opening (the instruction), calls its gold actions in one answer and,
// once their results are in, says the required outputs. With gold false
// it says only that it cannot help. It fails a request whose tools are
// not the domain's.
func goldChatAgent(t *testing.T, tasks []Task, tools int, gold bool) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req openai.ChatRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Tools) != tools {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		var task *Task
		called := false
		for _, m := range req.Messages {
			text, _ := openai.MessageText(m.Content)
			for i := range tasks {
				if m.Role == "user" && text == tasks[i].Instruction {
					task = &tasks[i]
				}
			}
			called = called || m.Role == "tool"
		}
		if task == nil {
			http.Error(w, "unknown task", http.StatusBadRequest)
			return
		}
		msg := openai.AnswerMessage{Role: "assistant", Content: openai.Ptr("Sorry, I cannot help.")}
		switch {
		case gold && !called && len(task.Actions) > 0:
			msg.Content = nil
			for _, a := range task.Actions {
				args, _ := pyval.JSON(a.Kwargs)
				msg.ToolCalls = append(msg.ToolCalls, openai.ToolCall{ID: "call", Type: "function", Function: openai.FunctionCall{Name: a.Name, Arguments: args}})
			}
		case gold:
			msg.Content = openai.Ptr("Done. " + strings.Join(task.Outputs, ", "))
		}
		json.NewEncoder(w).Encode(openai.ChatCompletion{Choices: []openai.ChatChoice{{Message: msg, FinishReason: "stop"}}, Usage: openai.Usage{CompletionTokens: 1}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestChatAdapterGold rolls the fixture's tasks out through
// rollout.RemoteChat with the set's chat adapter and a scripted user: an
// agent that calls the gold actions natively and says the outputs scores
// reward 1 on every task, and one that only apologises scores 0 on every
// task whose gold changes the database or requires an output. The
// customer's turns are recorded as replies.
func TestChatAdapterGold(t *testing.T) {
	for _, env := range []string{Retail, Airline} {
		s := openFixture(t, env, UserConfig{Kind: UserScripted})
		tools, err := s.domain.ChatTools()
		if err != nil || len(tools) != len(s.domain.tools) {
			t.Fatalf("%s: %d chat tools (%v) for %d tools", env, len(tools), err, len(s.domain.tools))
		}
		tool, err := s.Tool(FamilyName)
		if err != nil {
			t.Fatal(err)
		}
		var tasks []Task
		for _, task := range s.Heldout() {
			tasks = append(tasks, s.tasks[task.ID])
		}
		for _, gold := range []bool{true, false} {
			cfg := rollout.DefaultConfig()
			cfg.Temperature, cfg.MaxToolCalls, cfg.MaxResultTokens, cfg.MaxResponseTokens = 0, 16, 100000, 1000
			rc := &rollout.RemoteChat{URL: goldChatAgent(t, tasks, len(tools), gold).URL, Tool: tool, Format: fcFormat, Config: cfg, Chat: s.ChatAdapter()}
			trajs, _, err := rc.Run(context.Background(), s.Heldout(), 1, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i, tr := range trajs {
				want := 1.0
				if g, _ := GoldHash(s.domain, tasks[i]); !gold && (g != s.domain.NewEnv().Hash() || len(tasks[i].Outputs) > 0) {
					want = 0
				}
				if got := s.Score(tr); got["reward"] != want || len(tr.Replies) != 1 || !tr.Replies[0].Done {
					t.Errorf("%s gold %v: %s: components %v replies %+v, want reward %v and the user's stop", env, gold, tr.Task.ID, got, tr.Replies, want)
				}
			}
		}
	}
}

// TestChatAdapterMessages: the first messages are the customer's opening
// alone when the domain has no wiki (the fixture) and the wiki before it
// otherwise; a call's arguments keep Python's int and float typing.
func TestChatAdapterMessages(t *testing.T) {
	s := openFixture(t, Retail, UserConfig{Kind: UserScripted})
	task := s.Heldout()[0]
	ad := s.ChatAdapter()
	for _, wiki := range []string{"", "# Retail agent policy\n"} {
		s.domain.Wiki = wiki
		msgs, tools, err := ad.Start(context.Background(), task)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"user:" + s.tasks[task.ID].Instruction}
		if wiki != "" {
			want = append([]string{"system:# Retail agent policy"}, want...)
		}
		var got []string
		for _, m := range msgs {
			text, _ := openai.MessageText(m.Content)
			got = append(got, m.Role+":"+text)
		}
		if strings.Join(got, "|") != strings.Join(want, "|") || len(tools) == 0 || tools[0].Function.Name != "calculate" {
			t.Errorf("wiki %q: messages %q tools %d, want %q", wiki, got, len(tools), want)
		}
	}
	if _, _, err := ad.Start(context.Background(), envs.Task{ID: "retail/test/99"}); err == nil {
		t.Error("an unknown task started")
	}
	in, err := ad.Input(openai.FunctionCall{Name: "calculate", Arguments: `{"n": 5, "x": 5.0}`})
	if err != nil {
		t.Fatal(err)
	}
	acts, err := ParseActions(in)
	if err != nil || len(acts) != 1 || acts[0].Name != "calculate" || pyval.Repr(acts[0].Kwargs) != "{'n': 5, 'x': 5.0}" {
		t.Errorf("input %s parses to %+v, %v", in, acts, err)
	}
	for _, bad := range []string{"[1]", "not json"} {
		if _, err := ad.Input(openai.FunctionCall{Name: "calculate", Arguments: bad}); err == nil {
			t.Errorf("arguments %q accepted", bad)
		}
	}
}
