// Package toolcall parses the function calls a model writes in its own
// format out of its text, incrementally: text arrives in pieces as it is
// decoded, and the parser returns what it can tell already (content, the
// start of a call with its name, fragments of the call's arguments),
// holding back only what the next piece could still change.
//
// The format is Qwen's (Hermes'), which the Qwen2.5 chat template asks
// for:
//
//	<tool_call>
//	{"name": "get_weather", "arguments": {"city": "Paris"}}
//	</tool_call>
//
// Contracts:
//
//   - The events do not depend on how the text was cut into pieces: for
//     any cut, the content joined, each call's name and each call's
//     arguments joined are those of feeding the text whole (fuzzed).
//   - A call whose JSON starts {"name": "...", "arguments": {...} streams
//     its arguments as they arrive, byte for byte as written; any other
//     valid call object ({"arguments": ..., "name": ...}) is reported when
//     its closing tag arrives, with the arguments as written. A block that
//     is not a call object (invalid JSON, no name) is content, tags
//     included, unless its arguments have already streamed.
//   - Whitespace between content and a call block, and between blocks, is
//     dropped, as servers do; other content is kept byte for byte.
//   - Arguments are a JSON object; a call without them gets "{}".
package toolcall
