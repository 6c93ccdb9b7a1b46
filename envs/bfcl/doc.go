// Package bfcl implements the BFCL v3 multi-turn function-calling
// environments and their official checker.
//
// Eight API classes (GorillaFileSystem, VehicleControlAPI, TravelAPI,
// TradingBot, MessageAPI, TwitterAPI, TicketAPI, MathAPI) are built per
// entry from its initial_config, with the long-context extensions in the
// long_context category. Calls are written in the BFCL call syntax,
// `cd(folder='document')`, or as JSON objects {"name": ..., "arguments":
// {...}}; each call returns the exact result string of the reference
// implementation: a returned dict JSON-encoded the Python way, anything
// else as its Python repr, a raised exception as "Error during execution:
// <message>". Values keep Python semantics (int versus float, insertion
// order, Python float repr), so results and state snapshots match the
// reference byte for byte.
//
// Check scores a policy's calls the way the official checker does: after
// every turn with ground truth, the public state of every class must equal
// that of a ground-truth replay, and every ground-truth result string must
// occur, with multiplicity, among the policy's results so far.
//
// Load reads the benchmark material (the reference tables and extensions);
// Data.Entries reads one category's entries with their ground truth.
//
// Tasks turns entries into multi-turn envs.Tasks (the function list and
// first user message as the prompt, each later user message a turn), and
// Tool runs their calls for the rollout engine: each trajectory gets a
// Session with fresh instances of its entry, withheld functions offered
// at their turn. StepCalls reads one tool block back as the call strings
// Check replays.
package bfcl
