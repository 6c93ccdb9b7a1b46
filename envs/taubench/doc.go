// Package taubench is a Go port of the tau-bench airline and retail
// environments (sierra-research/tau-bench): their databases, every tool
// with its exact output strings and error messages, the database hash, the
// reward, and the episode loop with a user-simulator interface.
//
// # Data
//
// Load reads one domain's folder: the collection files (airline:
// flights.json, reservations.json, users.json; retail: orders.json,
// products.json, users.json), and tools.json and wiki.md when present
// (without tools.json the shipped schemas, ShippedTools, stand in).
// Values keep Python's typing (package pyval): objects keep their key
// order, and a number written with ".", "e" or "E" is a float, any other an
// int. Each episode works on its own copy (Domain.NewEnv; records are
// copied on first write), which is the same as loading the files afresh.
//
// # Tools
//
// Env.Call runs one tool as the reference's step() does, returning the
// observation string: a JSON record in Python's json.dumps form (", " and
// ": " separators, insertion order, non-ASCII escaped, floats in repr
// form), a bare string, or "Error: " and the exception message. Arguments
// are bound as Python keyword arguments, so a missing or unexpected one
// gives CPython's TypeError text, "<Class>.invoke() missing 1 required
// positional argument: 'x'". A tool checks everything before it changes
// the database, so an error leaves it untouched (the one exception is a
// booking that names the same certificate twice). A name that is no tool
// gives "Unknown action <name>". transfer_to_human_agents is the one tool
// that ends an episode.
//
// # Hash
//
// Hash is the reference's get_data_hash: SHA-256 of Python's str() of the
// database as nested tuples, objects sorted by key. Int versus float
// counts; key order inside records does not.
//
// # Reward
//
// Reward is 1 when the episode's final database hash equals the hash after
// the task's gold actions and every required output appears in some
// respond message (lower-cased, commas removed from the message), else 0.
// Components gives it with the GRPO components, each a plain function
// that returns a score and whether it applies:
//
//   - state (StateScore): 1 when the final database hash is the gold one;
//   - function (FunctionScore): the share of gold actions matched one to
//     one, in any order, by an agent action of the same name with equal
//     kwargs under Python's == (key order ignored, 1 equal to 1.0);
//   - outputs (OutputScore): the share of required outputs said, for tasks
//     that have some;
//   - format (FormatScore): the share of agent actions that are well formed
//     (respond with one string content; a tool of the domain with exactly
//     its parameters).
//
// pass^k (every one of k trials succeeds, estimated as C(c,k)/C(n,k) per
// task) is computed by evalbench for every benchmark.
//
// # Task files
//
// LoadTasks reads the shared tasks_<split>.json files. ConvertTasks and
// ConvertRules rebuild them, and rules.json, from upstream's Python modules
// (Task(...) and Action(...) literals) with a small reader of Python
// literals; ConvertJSON writes them as the shared files are written.
//
// # Conformance records
//
// Replay runs a task's gold actions on a fresh database and returns its
// conformance record (every observation, the final hash, the changed
// records); WriteRecords writes a split's records as JSON Lines, the
// format of the shared conformance files.
//
// # Episodes
//
// Episode steps agent actions through an Env and a User: a respond action
// is sent to the user, whose reply is the observation; the episode ends
// when the reply contains StopMarker or the agent calls
// transfer_to_human_agents. ScriptedUser replays fixed messages for tests;
// LLMUser wraps a chat function that the caller supplies.
//
// # Task family
//
// Family is task.name taubench (Config, the task.taubench section): a
// domain's split as training tasks and another as the held-out set, and
// the benchmarks taubench_airline and taubench_retail (each domain's test
// split). A task's prompt is the domain's wiki, its tool schemas and how
// to call them, and the customer's opening message. The tool (kind
// taubench) is an envs.UserTool: each trajectory gets a fresh database and
// its own simulated user; a tool block holds JSON calls (ParseActions),
// and each end of the policy's turn is a respond action whose content is
// the turn's text without its reasoning (Message), which the user answers
// until it says StopMarker or transfer_to_human_agents is called. The
// user is scripted (the instruction, then UserConfig.Script) or a model,
// behind an OpenAI-compatible chat-completions endpoint (ChatClient) or
// one of our checkpoints in this process (UserModel, opened through the
// UserModels a program sets with UseUserModels), played through LLMUser;
// a model's opening is generated once per task so that a GRPO group
// shares its prompt. Set.ChatAdapter presents the tasks to a
// chat-completions agent with native tool calls (the wiki as the system
// message, tools.json as the tools). Set.Score replays a trajectory's episode
// (TrajectoryOutcome) for the reward components, which package reward
// registers as taubench_reward, _state, _function, _outputs and _format;
// a rollout is correct when the tau-bench reward is 1.
package taubench
