// Package atlass runs the phases of ATLASS (2025) over the
// tool database: a task analyzer splits a task into subtasks; a tool
// master decides whether it needs tools and names each one with a
// description; a tool selector decides which of them the database already
// holds, matching by meaning rather than by name; a tool generator writes
// each missing one as a documented Go function, in a loop with the code
// tool that feeds every failing example or compile error back to the
// writer; and a task solver runs the model in the pause-at-tool-call loop
// with the selected and generated tools defined in its snippets.
//
// # Contracts
//
// Each phase has its own prompt and a structured reply: JSON for the
// analyzer ({"subtasks": [...]}), the tool master ({"needs_tools": bool,
// "tools": [{"name", "description"}]}) and the selector ({"matches":
// [{"needed", "existing": id or null, "why"}]}), Go source for the
// generator. A reply that does not decode or validate is answered with the
// error and asked again, Pipeline.Retries times; a function whose examples
// fail is answered with the failure, for Pipeline.MaxAttempts functions.
// A phase that runs out of tries ends the task Failed.
//
// Generated tools are stored Pending with their provenance (the task, the
// run, source "atlass"). Their code runs only inside verification until a
// person approves them (artist tools approve ID): the solver gets approved
// tools only, and a task that needs a pending tool ends AwaitingApproval
// without solving, its message the command that approves it. With
// Pipeline.AutoApprove a generated tool is approved as soon as it is
// stored, for unattended runs, and the transcript says so.
//
// Every phase is recorded in a Transcript (the messages sent, each reply,
// each refusal fed back), which Save writes atomically as JSON.
//
// # Inside rollouts
//
// The phases are methods of Pipeline over two small interfaces, so that
// training can run them with the policy instead of a server: Chat (a
// conversation in, the next message's text out) for the analyzer, tool
// master, selector and generator, and Solver for the task solver.
// PolicyChat implements Chat with rollout.Complete over the policy and
// its chat template; EngineSolver implements Solver with rollout.Engine,
// so the solver's trajectory carries tokens, loss mask (tool results
// masked) and sampling log-probs, and the rewards score it as any other
// rollout. A trainer that lets the policy grow its own tools would build
//
//	p := &atlass.Pipeline{
//		Chat:   &atlass.PolicyChat{Policy: model, Tokenizer: tok, Render: chatTemplate, Config: cc, RNG: rng},
//		Solver: &atlass.EngineSolver{Engine: engine, RNG: rng},
//		DB:     db, Code: sandbox,
//		AutoApprove: cfg.AutoApprove, // unattended RL; logged
//	}
//
// and then, per task, either p.Run(ctx, task), or the phases one by one
// to batch or reward them separately:
//
//	a, _, err := p.Analyze(ctx, task)
//	plan, _, err := p.Plan(ctx, task, a)
//	needs, err := p.Needs(ctx, plan.Tools)             // candidates per needed tool
//	matches, _, err := p.Select(ctx, task, needs)
//	rec, _, err := p.Generate(ctx, task, spec)    // each need whose match has no Existing
//	sol, err := p.Solve(ctx, task, approvedIDs)   // sol.Traj is the trajectory to score
//
// The trainer (tool.library.atlass) takes a third way, so that a whole
// GRPO group solves each task: Prepare runs the phases before the solver,
// ApprovedTools reads back the provided tools that are approved, and the
// group rolls out on the trainer's own engine with WithTools(code, tools)
// as its tool. The phase replies are not trained on there; only the
// solver's trajectories are. RenderPlain renders a conversation for a
// policy without a chat template, and PolicyChat.MaxLen keeps a long one
// within the policy's context.
//
// # Teaching the phases
//
// A policy too small to follow the phases' instructions learns them from
// demonstrations: Teacher turns a task's ground truth (a
// family.PhaseTruth: subtasks, and each needed tool with the stored tools
// that do its job and a source for it) into the first conversation of
// each phase, exactly as the phases send it over the database, with the
// reply the phase should get; each reply passes its phase's validator and
// each generated source is verified. PolicyChat.Prompt gives the tokens
// the policy is fed for a conversation, so a trainer can encode the
// demonstrations as the rollouts will see them.
//
// Generated tools stay pending unless AutoApprove is set, so under RL the
// policy solves only with tools a person (or the run's stated policy)
// approved.
//
// The command is artist atlass.
package atlass
