package chat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ardanlabs/jinja"
)

// messageValue is msg as the dict a template sees: role, content, then
// tool_calls, tool_call_id and name where set, in that order (the order
// tojson writes them in).
func messageValue(msg Message) (jinja.Value, error) {
	v := jinja.NewDict()
	d := v.AsDict()
	d.Set("role", jinja.NewString(msg.Role))
	d.Set("content", jinja.NewString(msg.Content))
	if len(msg.ToolCalls) > 0 {
		calls := make([]jinja.Value, len(msg.ToolCalls))
		for i, tc := range msg.ToolCalls {
			c, err := toolCallValue(tc)
			if err != nil {
				return jinja.Undefined(), fmt.Errorf("tool call %d: %w", i, err)
			}
			calls[i] = c
		}
		d.Set("tool_calls", jinja.NewList(calls))
	}
	if msg.ToolCallID != "" {
		d.Set("tool_call_id", jinja.NewString(msg.ToolCallID))
	}
	if msg.Name != "" {
		d.Set("name", jinja.NewString(msg.Name))
	}
	return v, nil
}

// toolCallValue is tc in OpenAI's shape: {"id", "type", "function":
// {"name", "arguments"}}, id only when set.
func toolCallValue(tc ToolCall) (jinja.Value, error) {
	typ := tc.Type
	if typ == "" {
		typ = "function"
	}
	if typ != "function" {
		return jinja.Undefined(), fmt.Errorf("type %q: want \"function\"", tc.Type)
	}
	if tc.Function.Name == "" {
		return jinja.Undefined(), errors.New("no function name")
	}
	args := jinja.NewDict()
	if len(bytes.TrimSpace(tc.Function.Arguments)) > 0 {
		var err error
		if args, err = jsonValue(tc.Function.Arguments); err != nil {
			return jinja.Undefined(), fmt.Errorf("function %s: arguments: %w", tc.Function.Name, err)
		}
	}
	fn := jinja.NewDict()
	fn.AsDict().Set("name", jinja.NewString(tc.Function.Name))
	fn.AsDict().Set("arguments", args)
	v := jinja.NewDict()
	if tc.ID != "" {
		v.AsDict().Set("id", jinja.NewString(tc.ID))
	}
	v.AsDict().Set("type", jinja.NewString(typ))
	v.AsDict().Set("function", fn)
	return v, nil
}

// jsonValue decodes one JSON value into a template value, keeping the
// order of object keys (Python dicts keep insertion order, and tojson
// writes them in it). Numbers written without '.', 'e' or 'E' that fit in
// an int64 become integers, the others floats, as Python's json.loads
// makes int and float.
func jsonValue(data []byte) (jinja.Value, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return jinja.Undefined(), err
	}
	if _, err := dec.Token(); err != io.EOF {
		return jinja.Undefined(), errors.New("invalid JSON: data after the value")
	}
	return v, nil
}

// invalidJSON wraps a decoding error; the end of the input inside a
// value is an unexpected EOF.
func invalidJSON(err error) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("invalid JSON: %w", err)
}

func decodeValue(dec *json.Decoder) (jinja.Value, error) {
	tok, err := dec.Token()
	if err != nil {
		return jinja.Undefined(), invalidJSON(err)
	}
	switch t := tok.(type) {
	case nil:
		return jinja.None(), nil
	case bool:
		return jinja.NewBool(t), nil
	case string:
		return jinja.NewString(t), nil
	case json.Number:
		if !strings.ContainsAny(string(t), ".eE") {
			if n, err := t.Int64(); err == nil {
				return jinja.NewInt(n), nil
			}
		}
		f, err := t.Float64()
		if err != nil {
			return jinja.Undefined(), fmt.Errorf("invalid JSON number %s: %w", t, err)
		}
		return jinja.NewFloat(f), nil
	case json.Delim:
		switch t {
		case '{':
			v := jinja.NewDict()
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return jinja.Undefined(), invalidJSON(err)
				}
				item, err := decodeValue(dec)
				if err != nil {
					return jinja.Undefined(), err
				}
				v.AsDict().Set(k.(string), item)
			}
			if _, err := dec.Token(); err != nil {
				return jinja.Undefined(), invalidJSON(err)
			}
			return v, nil
		case '[':
			items := []jinja.Value{}
			for dec.More() {
				item, err := decodeValue(dec)
				if err != nil {
					return jinja.Undefined(), err
				}
				items = append(items, item)
			}
			if _, err := dec.Token(); err != nil {
				return jinja.Undefined(), invalidJSON(err)
			}
			return jinja.NewList(items), nil
		}
	}
	return jinja.Undefined(), fmt.Errorf("invalid JSON: unexpected %v", tok)
}

// goValue converts a Go value to a template value through its JSON
// encoding: struct fields keep their order, map keys are sorted (as
// encoding/json writes them), json.RawMessage keeps its own order.
func goValue(x any) (jinja.Value, error) {
	data, err := json.Marshal(x)
	if err != nil {
		return jinja.Undefined(), err
	}
	return jsonValue(data)
}
