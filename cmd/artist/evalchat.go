package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"net/http"
	"strings"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/bfcl"
	"github.com/artist-rl/artist/envs/family"
	"github.com/artist-rl/artist/evalbench"
	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/rollout"
)

// chatGen generates with a chat-completions server (-api chat).
type chatGen struct{ *rollout.RemoteChat }

// Generate implements evalbench.Generator.
func (g chatGen) Generate(ctx context.Context, tasks []envs.Task, k int, rng *rand.Rand) ([]evalbench.Rollout, error) {
	trajs, toks, err := g.Run(ctx, tasks, k, rng)
	if err != nil {
		return nil, err
	}
	out := make([]evalbench.Rollout, len(trajs))
	for i, t := range trajs {
		out[i] = evalbench.Rollout{Traj: t, Tokens: toks[i]}
	}
	return out, nil
}

// chatAdapter picks how a benchmark's tasks go to a chat server: BFCL
// conversations with their functions as tools, tasks that run Go code
// with the code tool offered as a function.
func chatAdapter(b *evalbench.Bench, kind, system string) (rollout.ChatAdapter, error) {
	switch {
	case b.Family.Name() == bfcl.FamilyName:
		return bfclChat{}, nil
	case kind == family.SandboxTool:
		return codeChat{system: system}, nil
	}
	return nil, fmt.Errorf("artist eval: -api chat does not know how to offer the tools of %s (family %s): use -api completions", b.Name, b.Family.Name())
}

// bfclChat sends a BFCL conversation as BFCL's own harness does for
// function-calling models: the user messages alone, the functions as
// tools (bfclTool), a call's arguments as its keyword arguments.
type bfclChat struct{}

// Start implements rollout.ChatAdapter.
func (bfclChat) Start(t envs.Task) ([]openai.ChatMessage, []openai.Tool, error) {
	msg, tools, err := splitDocs(t.Prompt, "Functions:")
	return []openai.ChatMessage{{Role: "user", Content: openai.Text(msg)}}, tools, err
}

// Turn implements rollout.ChatAdapter.
func (bfclChat) Turn(t envs.Task, k int) (openai.ChatMessage, []openai.Tool, error) {
	msg, tools, err := splitDocs(t.Turns[k-1], "New functions:")
	return openai.ChatMessage{Role: "user", Content: openai.Text(msg)}, tools, err
}

// Input implements rollout.ChatAdapter: the call as the JSON object a
// bfcl.Session takes.
func (bfclChat) Input(call openai.FunctionCall) (string, error) {
	args := strings.TrimSpace(call.Arguments)
	if args == "" {
		args = "{}"
	}
	if !json.Valid([]byte(args)) || args[0] != '{' {
		return "", fmt.Errorf("arguments of %s are not a JSON object: %.200q", call.Name, call.Arguments)
	}
	name, _ := json.Marshal(call.Name)
	return `{"name": ` + string(name) + `, "arguments": ` + args + `}`, nil
}

// splitDocs reads the layout bfcl.Tasks writes (header, one JSON
// documentation line per function, a blank line, the messages) into the
// messages and the functions as tools; text without the header is a
// message alone.
func splitDocs(text, header string) (string, []openai.Tool, error) {
	rest, ok := strings.CutPrefix(text, header+"\n")
	if !ok {
		return text, nil, nil
	}
	docs, msg, _ := strings.Cut(rest, "\n\n")
	var tools []openai.Tool
	for _, line := range strings.Split(docs, "\n") {
		tool, err := bfclTool(line)
		if err != nil {
			return "", nil, fmt.Errorf("bfcl function documentation %.80q: %w (-api chat needs task.bfcl.docs: json)", line, err)
		}
		tools = append(tools, tool)
	}
	return msg, tools, nil
}

// bfclTool converts one BFCL function documentation line to an OpenAI
// tool as BFCL's convert_to_tool does: parameters become an "object",
// every type name is mapped to its JSON Schema name (gorillaTypes), key
// order kept, and fields OpenAI's function object lacks (response) left
// out.
func bfclTool(line string) (openai.Tool, error) {
	var doc struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	if err := json.Unmarshal([]byte(line), &doc); err != nil || doc.Name == "" {
		return openai.Tool{}, fmt.Errorf("not a function documentation object")
	}
	params := []byte(`{"type": "object", "properties": {}}`)
	if len(doc.Parameters) > 0 {
		var b bytes.Buffer
		if err := mapTypes(json.NewDecoder(bytes.NewReader(doc.Parameters)), &b, false); err != nil {
			return openai.Tool{}, err
		}
		params = b.Bytes()
	}
	return openai.Tool{Type: "function", Function: openai.Function{Name: doc.Name, Description: doc.Description, Parameters: params}}, nil
}

// gorillaTypes is BFCL's GORILLA_TO_OPENAPI type mapping.
var gorillaTypes = map[string]string{
	"integer": "integer", "number": "number", "float": "number", "string": "string", "boolean": "boolean", "bool": "boolean",
	"array": "array", "list": "array", "dict": "object", "object": "object", "tuple": "array", "any": "string",
	"byte": "integer", "short": "integer", "long": "integer", "double": "number", "char": "string",
	"ArrayList": "array", "Array": "array", "HashMap": "object", "Hashtable": "object", "Queue": "array", "Stack": "array",
	"Any": "string", "String": "string", "Bigint": "integer",
}

// mapTypes copies one JSON value from dec to out, mapping the string
// value of every "type" key through gorillaTypes (typeValue: the value
// is such a type).
func mapTypes(dec *json.Decoder, out *bytes.Buffer, typeValue bool) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch v := tok.(type) {
	case json.Delim:
		closing := map[json.Delim]byte{'{': '}', '[': ']'}[v]
		out.WriteByte(byte(v))
		for i := 0; dec.More(); i++ {
			if i > 0 {
				out.WriteString(", ")
			}
			key := ""
			if v == '{' {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				key = k.(string)
				kb, _ := json.Marshal(key)
				out.Write(kb)
				out.WriteString(": ")
			}
			if err := mapTypes(dec, out, v == '{' && key == "type"); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return err
		}
		out.WriteByte(closing)
	case string:
		if m, ok := gorillaTypes[v]; ok && typeValue {
			v = m
		}
		b, _ := json.Marshal(v)
		out.Write(b)
	default:
		b, _ := json.Marshal(v)
		out.Write(b)
	}
	return nil
}

// codeChat offers the Go code tool as a function: the task's prompt is
// the user message (after the config's system prompt, when it has one),
// and a call's code runs as a code block would.
type codeChat struct{ system string }

// codeTool is the function the code tool is offered as.
var codeTool = openai.Tool{Type: "function", Function: openai.Function{
	Name:        "run_go",
	Description: "Run a Go program (package main, standard library only) and return what it prints.",
	Parameters:  json.RawMessage(`{"type": "object", "properties": {"code": {"type": "string", "description": "the complete Go source"}}, "required": ["code"]}`),
}}

// Start implements rollout.ChatAdapter.
func (c codeChat) Start(t envs.Task) ([]openai.ChatMessage, []openai.Tool, error) {
	msgs := []openai.ChatMessage{{Role: "user", Content: openai.Text(t.Prompt)}}
	if c.system != "" {
		msgs = append([]openai.ChatMessage{{Role: "system", Content: openai.Text(c.system)}}, msgs...)
	}
	return msgs, []openai.Tool{codeTool}, nil
}

// Turn implements rollout.ChatAdapter.
func (codeChat) Turn(t envs.Task, k int) (openai.ChatMessage, []openai.Tool, error) {
	return openai.ChatMessage{Role: "user", Content: openai.Text(t.Turns[k-1])}, nil, nil
}

// Input implements rollout.ChatAdapter: the code argument.
func (codeChat) Input(call openai.FunctionCall) (string, error) {
	var args struct {
		Code *string `json:"code"`
	}
	if err := json.Unmarshal([]byte(call.Arguments), &args); err != nil || args.Code == nil {
		return "", fmt.Errorf("%s needs {\"code\": \"...\"}, got %.200q", call.Name, call.Arguments)
	}
	return *args.Code, nil
}

// bearer adds an API key to every request it sends.
type bearer struct {
	key  string
	next http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return b.next.RoundTrip(r)
}
