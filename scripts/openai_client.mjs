// Drives `artist serve` with the official OpenAI client (npm openai): the
// model list, a chat with tools (whole and streamed, tool-call deltas
// reassembled), a chat whose tool_choice names a function, and a
// completion (whole and streamed). It prints what the client read and
// exits non-zero when the client fails or an answer is malformed.
//
// Usage, from the repository root (the npm install goes to a temporary
// folder, never into the repository):
//
//	ref=$(mktemp -d) && (cd "$ref" && npm install openai@4.104.0)
//	go run ./cmd/artist serve -checkpoint DIR -addr 127.0.0.1:8080 &
//	node scripts/openai_client.mjs "$ref/node_modules" http://127.0.0.1:8080/v1
//
// The checkpoint's context must hold the rendered tools (about 400 tokens
// with Qwen2.5's template).

import { createRequire } from "node:module";
import { join } from "node:path";

const [modules, baseURL] = process.argv.slice(2);
if (!modules || !baseURL) {
  console.error("usage: node scripts/openai_client.mjs NODE_MODULES_DIR BASE_URL");
  process.exit(2);
}
const require = createRequire(join(modules, "resolve.js"));
const OpenAI = require("openai");
const client = new OpenAI({ baseURL, apiKey: "unused", maxRetries: 0 });

const check = (ok, what) => {
  if (!ok) {
    console.error("FAIL:", what);
    process.exitCode = 1;
  }
};

const tools = [{
  type: "function",
  function: {
    name: "get_weather",
    description: "Current weather of a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
}];
const messages = [
  { role: "system", content: "You are terse." },
  { role: "user", content: "Weather in Paris?" },
  { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city": "Paris"}' } }] },
  { role: "tool", tool_call_id: "call_1", content: "18 C, clear" },
  { role: "user", content: "And in Rome?" },
];

const models = await client.models.list();
const model = models.data[0].id;
console.log("models:", models.data.map((m) => m.id));
check(models.data.length === 1, "one model");

const chat = await client.chat.completions.create({ model, messages, tools, max_tokens: 16, temperature: 0, seed: 1 });
const choice = chat.choices[0];
console.log("chat:", JSON.stringify({ finish: choice.finish_reason, message: choice.message, usage: chat.usage }));
check(chat.object === "chat.completion" && chat.usage.completion_tokens > 0, "chat answer");

const stream = await client.chat.completions.create({ model, messages, tools, max_tokens: 16, temperature: 0, seed: 1, stream: true, stream_options: { include_usage: true } });
let content = "", finish = null, chunks = 0, usage = null;
const calls = [];
for await (const chunk of stream) {
  chunks++;
  if (chunk.usage) usage = chunk.usage;
  const c = chunk.choices[0];
  if (!c) continue;
  content += c.delta.content ?? "";
  for (const tc of c.delta.tool_calls ?? []) {
    calls[tc.index] ??= { id: tc.id, name: tc.function?.name, arguments: "" };
    calls[tc.index].arguments += tc.function?.arguments ?? "";
  }
  finish = c.finish_reason ?? finish;
}
console.log("chat stream:", JSON.stringify({ chunks, finish, content, calls, usage }));
check((choice.message.content ?? "") === content && finish === choice.finish_reason, "stream joins to the whole answer");
check(calls.length === (choice.message.tool_calls ?? []).length, "same calls streamed");

const named = await client.chat.completions.create({ model, messages, tools, max_tokens: 16, temperature: 0, tool_choice: { type: "function", function: { name: "get_weather" } } });
console.log("named tool_choice:", JSON.stringify(named.choices[0].message));

const comp = await client.completions.create({ model, prompt: "7 boxes hold 6 coins each. How many coins?\n", max_tokens: 12, temperature: 0, logprobs: 1 });
console.log("completion:", JSON.stringify({ text: comp.choices[0].text, finish: comp.choices[0].finish_reason, tokens: comp.choices[0].logprobs.tokens.length, usage: comp.usage }));
const cstream = await client.completions.create({ model, prompt: "7 boxes hold 6 coins each. How many coins?\n", max_tokens: 12, temperature: 0, stream: true });
let text = "", pieces = 0;
for await (const chunk of cstream) {
  pieces++;
  text += chunk.choices[0]?.text ?? "";
}
console.log("completion stream:", JSON.stringify({ pieces, text }));
check(text === comp.choices[0].text, "streamed completion joins to the whole one");

try {
  await client.chat.completions.create({ model, messages: [], max_tokens: 4 });
  check(false, "an empty conversation is refused");
} catch (e) {
  console.log("error:", e.status, JSON.stringify(e.error));
  check(e.status === 400 && e.error?.param === "messages", "400 naming messages");
}
console.log(process.exitCode ? "FAILED" : "OK");
