package bfcl

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/rollout"
)

// ChatAdapter implements the optional interface of families that say how
// their tasks go to a chat-completions server (artist eval -api chat).
func (Family) ChatAdapter() rollout.ChatAdapter { return Chat{} }

var _ rollout.ChatAdapter = Chat{}

// Chat is the rollout.ChatAdapter of BFCL conversations: it sends them as
// BFCL's own harness does for function-calling models: the user messages
// alone, the functions as tools (ChatTool), a call's arguments as its
// keyword arguments.
type Chat struct{}

// Start implements rollout.ChatAdapter.
func (Chat) Start(_ context.Context, t envs.Task) ([]openai.ChatMessage, []openai.Tool, error) {
	msg, tools, err := splitDocs(t.Prompt, "Functions:")
	return []openai.ChatMessage{{Role: "user", Content: openai.Text(msg)}}, tools, err
}

// Turn implements rollout.ChatAdapter.
func (Chat) Turn(t envs.Task, k int) (openai.ChatMessage, []openai.Tool, error) {
	msg, tools, err := splitDocs(t.Turns[k-1], "New functions:")
	return openai.ChatMessage{Role: "user", Content: openai.Text(msg)}, tools, err
}

// Input implements rollout.ChatAdapter: the call as the JSON object a
// Session takes.
func (Chat) Input(call openai.FunctionCall) (string, error) { return call.Object() }

// splitDocs reads the layout Tasks writes (header, one JSON
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
		tool, err := ChatTool(line)
		if err != nil {
			return "", nil, fmt.Errorf("bfcl: function documentation %.80q: %w (-api chat needs task.bfcl.docs: json)", line, err)
		}
		tools = append(tools, tool)
	}
	return msg, tools, nil
}

// ChatTool converts one BFCL function documentation line to an OpenAI
// tool as BFCL's convert_to_tool does: parameters become an "object",
// every type name is mapped to its JSON Schema name (gorillaTypes), key
// order kept, and fields OpenAI's function object lacks (response) left
// out.
func ChatTool(line string) (openai.Tool, error) {
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
