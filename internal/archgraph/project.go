package archgraph

// Layers are the project's layers, earliest first: a package imports
// packages of its own layer or an earlier one (Graph.CheckLayers), and
// every package belongs to one. docs/ARCHITECTURE.md describes them.
var Layers = []Layer{
	{"base: task and tool interfaces, formats, wire types, helpers", []string{
		"envs", "rollout/format", "chat", "openai", "toolcall", "collective/...",
		"internal/archgraph", "internal/atomicfile", "internal/datadir", "internal/doccheck",
		"internal/frame", "internal/headless", "internal/progress", "internal/pyval",
		"internal/qwentest", "internal/sysmem", "internal/workerpool",
	}},
	{"model: the policy, its compute backends, checkpoints", []string{
		"policy/...", "checkpoint", "internal/memplan",
	}},
	{"rollout: engine, tools, families' contract, rewards", []string{
		"rollout", "envs/family", "envs/sandbox", "envs/pysandbox", "envs/toollib",
		"envs/library", "reward/...", "internal/runlog",
	}},
	{"families: the task families and their registration", append([]string{"envs/builtin"}, families...)},
	{"services: evaluation, serving, rollout servers, ATLASS, run viewer", []string{
		"evalbench", "server", "fleet", "atlass/...", "runview",
	}},
	{"trainer", []string{"trainer"}},
	{"commands", []string{"cmd/..."}},
}

// families are the task families' packages.
var families = []string{"envs/arith", "envs/bfcl/...", "envs/fcsynth", "envs/mathtask", "envs/taubench"}

// Rules are the import rules docs/ARCHITECTURE.md states, beyond the
// order of Layers.
var Rules = []Rule{
	{
		Doc:  "only cmd/ imports trainer",
		From: []string{"..."}, NotFrom: []string{"cmd/...", "trainer"},
		To: []string{"trainer"},
	},
	{
		Doc:  "policy imports nothing of the project outside policy/ but internal helpers",
		From: []string{"policy/..."},
		To:   []string{"..."}, NotTo: []string{"policy/...", "internal/atomicfile"},
	},
	{
		Doc:  "only checkpoint, internal/memplan, server, trainer and cmd/ use the model: the rest sees it through interfaces",
		From: []string{"..."}, NotFrom: []string{"policy/...", "checkpoint", "internal/memplan", "server", "trainer", "cmd/..."},
		To: []string{"policy/...", "checkpoint"},
	},
	{
		Doc:  "only cmd/ and policy/backend/arenatest import a concrete backend (policy/backend/cpu, policy/backend/cuda)",
		From: []string{"..."}, NotFrom: []string{"cmd/...", "policy/backend/arenatest", "policy/backend/cuda/..."},
		To: []string{"policy/backend/cpu", "policy/backend/cuda/..."},
	},
	{
		Doc:  "rollout/format imports nothing of the project",
		From: []string{"rollout/format"},
		To:   []string{"..."},
	},
	{
		Doc:  "reward/mathgrade imports only rollout/format",
		From: []string{"reward/mathgrade"},
		To:   []string{"..."}, NotTo: []string{"rollout/format"},
	},
	{
		Doc:  "only the families themselves, envs/builtin and cmd/ import a task family",
		From: []string{"..."}, NotFrom: append([]string{"envs/builtin", "cmd/..."}, families...),
		To: families,
	},
	{
		Doc:  "envs imports nothing of the project",
		From: []string{"envs"},
		To:   []string{"..."},
	},
}
