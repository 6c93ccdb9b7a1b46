package chat_test

import (
	"encoding/json"
	"fmt"
	"log"
	"os"

	"github.com/artist-rl/artist/chat"
)

// A tool-using conversation rendered with the fallback template (Qwen2.5's),
// as a rollout would render its prompt: the tool list, the model's call, the
// tool's result, and the prefix of the next assistant turn.
func Example() {
	tmpl := chat.Fallback(chat.SpecialTokens{EOS: "<|im_end|>"})
	tools := []json.RawMessage{json.RawMessage(`{"type": "function", "function": {"name": "python", "description": "Run Go code.", "parameters": {"type": "object", "properties": {"code": {"type": "string"}}}}}`)}
	msgs := []chat.Message{
		{Role: "user", Content: "What is 6 * 7?"},
		{Role: "assistant", ToolCalls: []chat.ToolCall{{ID: "c1", Function: chat.FunctionCall{
			Name: "python", Arguments: json.RawMessage(`{"code": "fmt.Println(6 * 7)"}`),
		}}}},
		{Role: "tool", Content: "42", ToolCallID: "c1"},
	}
	prompt, err := tmpl.Render(msgs, chat.Options{Tools: tools, AddGenerationPrompt: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(prompt)
	// Output:
	// <|im_start|>system
	// You are Qwen, created by Alibaba Cloud. You are a helpful assistant.
	//
	// # Tools
	//
	// You may call one or more functions to assist with the user query.
	//
	// You are provided with function signatures within <tools></tools> XML tags:
	// <tools>
	// {"type": "function", "function": {"name": "python", "description": "Run Go code.", "parameters": {"type": "object", "properties": {"code": {"type": "string"}}}}}
	// </tools>
	//
	// For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:
	// <tool_call>
	// {"name": <function-name>, "arguments": <args-json-object>}
	// </tool_call><|im_end|>
	// <|im_start|>user
	// What is 6 * 7?<|im_end|>
	// <|im_start|>assistant
	// <tool_call>
	// {"name": "python", "arguments": {"code": "fmt.Println(6 * 7)"}}
	// </tool_call><|im_end|>
	// <|im_start|>user
	// <tool_response>
	// 42
	// </tool_response><|im_end|>
	// <|im_start|>assistant
}

// Load reads a checkpoint folder's tokenizer_config.json.
func ExampleLoad() {
	dir, err := os.MkdirTemp("", "checkpoint")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	config := `{"chat_template": "{{ bos_token }}{% for m in messages %}<{{ m.role }}>{{ m.content }}</{{ m.role }}>\n{% endfor %}", "bos_token": {"content": "<s>"}}`
	if err := os.WriteFile(dir+"/tokenizer_config.json", []byte(config), 0o644); err != nil {
		log.Fatal(err)
	}
	tmpl, err := chat.Load(dir)
	if err != nil {
		log.Fatal(err)
	}
	out, err := tmpl.Render([]chat.Message{{Role: "user", Content: "Hi"}, {Role: "assistant", Content: "Hello!"}}, chat.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(out)
	fmt.Println(tmpl.IsFallback(), tmpl.SpecialTokens().BOS)
	// Output:
	// <s><user>Hi</user>
	// <assistant>Hello!</assistant>
	// false <s>
}
