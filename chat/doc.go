// Package chat renders conversations with the chat template a checkpoint
// ships, byte for byte as Python transformers'
// tokenizer.apply_chat_template(messages, tools=..., add_generation_prompt=...,
// tokenize=False) renders them.
//
// # Templates
//
// Load reads a checkpoint folder: chat_template.jinja when present, else the
// chat_template of tokenizer_config.json (a string, or a list of {"name",
// "template"} objects such as "default" and "tool_use"), with the special
// tokens of tokenizer_config.json. A folder with neither gets Fallback:
// Qwen2.5-Instruct's own chat template (FallbackSource, the exact string its
// tokenizer_config.json ships), so a checkpoint without a template renders as
// Qwen2.5 does, tools included. New compiles a template string. A Template is
// immutable and safe for concurrent use.
//
// With named templates, Render picks as transformers does: "tool_use" when
// Options.Tools is not nil and the checkpoint has it, else "default";
// Options.TemplateName picks one by name.
//
// # Variables
//
// A template sees the variables of transformers' render call:
//
//   - messages: one dict per Message, with keys role, content, then
//     tool_calls (a list of {"id", "type": "function", "function": {"name",
//     "arguments"}}, id only when set), tool_call_id and name, each only
//     when set; arguments is a dict when FunctionCall.Arguments is a JSON
//     object, a string when it is a JSON string;
//   - tools: the Options.Tools objects, with their key order, or none;
//   - documents: none;
//   - add_generation_prompt;
//   - bos_token, eos_token, unk_token, sep_token, pad_token, cls_token,
//     mask_token (strings; an unset one is undefined) and
//     additional_special_tokens (a list; undefined when empty);
//   - Options.Vars, such as enable_thinking, which may override the special
//     tokens;
//   - raise_exception(message), which fails the render with a *RaiseError,
//     and strftime_now(format), the time of Options.Now (default time.Now)
//     formatted as Python's strftime does.
//
// JSON objects keep their key order, as Python dicts do. JSON numbers
// without '.', 'e' or 'E' that fit in an int64 are integers, the others
// floats.
//
// # Environment
//
// The engine is github.com/ardanlabs/jinja. Before compiling, the package
// lexes the source itself as Jinja2 does with transformers' settings, so the
// engine's own lexing rules do not matter: \r\n and \r become \n, one final
// newline is dropped, whitespace control follows trim_blocks=True and
// lstrip_blocks=True with the '-' and '+' markers, comments are removed,
// {% raw %} blocks are text, and string literals are decoded with Python's
// escapes. On top of the engine's statements (if, for with loop.*, set,
// namespace, macro, call, filter, break and continue, generation) and
// filters:
//
//   - tojson is transformers' json.dumps(x, ensure_ascii=False, indent=None,
//     separators=None, sort_keys=False): ", " and ": " separators, key order
//     kept, non-ASCII and U+2028/U+2029 as they are, floats as Python's repr
//     (1.0, 1e-05), and the indent, separators, sort_keys and ensure_ascii
//     arguments;
//   - {{ expression }} prints values as Python's str() does: None, True,
//     1.0, ['a', 1], {'k': None}; an undefined value prints nothing.
//
// Known differences from transformers' sandboxed Jinja2, none of which the
// templates of the tests meet: stringification other than printing (~,
// the string and join filters, string formatting) is the engine's, which
// writes none as "" and floats as Go's %g; {% filter tojson %} and
// map('tojson') use the engine's tojson; filters and methods that Jinja2
// lacks (such as fromjson) work where Jinja2 would fail; attributes of an
// undefined value are undefined, where Jinja2 fails; the engine has no
// tuples (they are lists); templates may call mutating methods that the
// sandbox forbids; \N{...} escapes in string literals are not supported.
//
// # Validation
//
// Render refuses, before rendering, what transformers would pass on to the
// template: no messages, a role other than system, user, assistant or tool,
// tool calls outside assistant messages, tool_call_id outside tool messages,
// a tool call whose type is not "function" or that has no function name,
// arguments or tools that are not valid JSON, a tool that is not a JSON
// object, and Vars that set messages, tools, documents or
// add_generation_prompt. Errors start with "chat: "; those of compiling and
// rendering name the template and the file it came from.
package chat
