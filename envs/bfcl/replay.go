package bfcl

// Replay executes an entry's ground truth turn by turn on fresh instances
// and returns the trace as a conformance record: id, category,
// involved_classes, long_context, initial_state and turns (turn, calls,
// results, state).
func Replay(d *Data, e Entry) (*Dict, error) {
	env, err := NewEnv(d, e.InvolvedClasses, e.InitialConfig, e.LongContext())
	if err != nil {
		return nil, err
	}
	classes := make([]any, len(e.InvolvedClasses))
	for i, c := range e.InvolvedClasses {
		classes[i] = c
	}
	rec := NewDict("id", e.ID, "category", e.Category, "involved_classes", classes,
		"long_context", e.LongContext(), "initial_state", env.State())
	turns := []any{}
	for i, calls := range e.GroundTruth {
		cs, rs := []any{}, []any{}
		for _, c := range calls {
			cs = append(cs, c)
			rs = append(rs, env.Execute(c))
		}
		turns = append(turns, NewDict("turn", int64(i), "calls", cs, "results", rs, "state", env.State()))
	}
	rec.Set("turns", turns)
	return rec, nil
}
