package policy

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// The expected strings follow Qwen2.5-Instruct's chat_template (Jinja) by
// hand, branch by branch (no tools):
//
//	if messages[0].role == 'system':  '<|im_start|>system\n' + content + '<|im_end|>\n'
//	else:                             '<|im_start|>system\nYou are Qwen, ...<|im_end|>\n'
//	for message:
//	  user, or system not first, or assistant without tool_calls:
//	      '<|im_start|>' + role + '\n' + content + '<|im_end|>' + '\n'
//	  tool: '<|im_start|>user' only when the previous message is not a tool,
//	        '\n<tool_response>\n' + content + '\n</tool_response>',
//	        '<|im_end|>\n' only when it is the last or the next is not a tool
//	if add_generation_prompt: '<|im_start|>assistant\n'
//
// The same three conversations rendered by transformers.js'
// apply_chat_template with that template give these strings too.
func TestChatTemplate(t *testing.T) {
	tests := []struct {
		name string
		msgs []Message
		gen  bool
		want string
	}{
		{
			name: "system and user, generation prompt",
			msgs: []Message{{"system", "You are a helpful assistant."}, {"user", "What is 2+2?"}},
			gen:  true,
			want: "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n" +
				"<|im_start|>user\nWhat is 2+2?<|im_end|>\n" +
				"<|im_start|>assistant\n",
		},
		{
			name: "default system, two user turns",
			msgs: []Message{{"user", "Hi"}, {"assistant", "Hello!"}, {"user", "Bye"}},
			want: "<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n" +
				"<|im_start|>user\nHi<|im_end|>\n" +
				"<|im_start|>assistant\nHello!<|im_end|>\n" +
				"<|im_start|>user\nBye<|im_end|>\n",
		},
		{
			name: "tool results and a late system turn",
			msgs: []Message{{"system", "S"}, {"user", "U"}, {"assistant", "A"}, {"tool", "R1"}, {"tool", "R2"},
				{"user", "U2"}, {"system", "S2"}, {"tool", "R3"}},
			gen: true,
			want: "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nU<|im_end|>\n<|im_start|>assistant\nA<|im_end|>\n" +
				"<|im_start|>user\n<tool_response>\nR1\n</tool_response>\n<tool_response>\nR2\n</tool_response><|im_end|>\n" +
				"<|im_start|>user\nU2<|im_end|>\n<|im_start|>system\nS2<|im_end|>\n" +
				"<|im_start|>user\n<tool_response>\nR3\n</tool_response><|im_end|>\n<|im_start|>assistant\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ChatTemplate(tc.msgs, tc.gen)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestChatTemplateErrors(t *testing.T) {
	tests := []struct {
		name string
		msgs []Message
		want string
	}{
		{"unknown role", []Message{{"user", "a"}, {"critic", "b"}}, `message 1 has role "critic"`},
		{"unknown role after system", []Message{{"system", "s"}, {"bot", "b"}}, `message 1 has role "bot"`},
		{"empty", nil, "no messages"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ChatTemplate(tc.msgs, true)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestChatPrompt(t *testing.T) {
	tests := []struct{ system, user string }{
		{"Answer with <answer></answer> tags.", "What is 6·7?"},
		{"", "Hi"},
	}
	for _, tc := range tests {
		msgs := []Message{{"user", tc.user}}
		if tc.system != "" {
			msgs = append([]Message{{"system", tc.system}}, msgs...)
		}
		want, err := ChatTemplate(msgs, true)
		if err != nil {
			t.Fatal(err)
		}
		if got := ChatPrompt(tc.system, tc.user); got != want {
			t.Errorf("ChatPrompt(%q, %q) = %q, want %q", tc.system, tc.user, got, want)
		}
	}
}

// TestChatPromptTokens checks that the markers encode as single Qwen tokens
// (ids from the reference tokenizer).
func TestChatPromptTokens(t *testing.T) {
	tok := qwenTokenizer(t)
	got := tok.Encode(ChatPrompt("S", "U"))
	want := []int{151644, 8948, 198, 50, 151645, 198, 151644, 872, 198, 52, 151645, 198, 151644, 77091, 198}
	if !slices.Equal(got, want) {
		t.Errorf("Encode(ChatPrompt(S, U)) = %v, want %v", got, want)
	}
	if tok.EOS() != want[4] {
		t.Errorf("EOS %d is not <|im_end|> %d: the model's turn would not end where the template ends turns", tok.EOS(), want[4])
	}
}

func ExampleChatPrompt() {
	fmt.Printf("%q\n", ChatPrompt("Solve the problem.", "1+1?"))
	// Output:
	// "<|im_start|>system\nSolve the problem.<|im_end|>\n<|im_start|>user\n1+1?<|im_end|>\n<|im_start|>assistant\n"
}
