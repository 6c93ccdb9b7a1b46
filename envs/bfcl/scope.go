package bfcl

// Scope names the entries that rewards and checkers of a run or a
// benchmark judge: those of one category of the loaded data. The bfcl
// task family supplies it to the reward components (reward.Env.Supplies).
type Scope struct {
	Data     *Data
	Category string
	// Golds, when set, holds the ground-truth replays that the set's
	// checker shares with the rewards; nil gives each reward its own.
	Golds *Golds
}
