package bfcl

import (
	"errors"

	"github.com/artist-rl/artist/reward"
)

// The function-calling components of ARTIST (BFCL v3): fc_format reads
// the text alone; fc_function and fc_state replay the entries of the
// Scope that the task family supplies.
func init() {
	reward.Register("fc_format", func(e reward.Env) (reward.Func, error) { return FormatFC(e.Format), nil })
	reward.Register("fc_function", fcComponent((*FC).Function))
	reward.Register("fc_state", fcComponent((*FC).State))
}

// errNoScope is the error of a function-calling component built without
// the entries it judges.
var errNoScope = errors.New("it replays BFCL v3 entries, but the task family supplies no Scope: use it with a function-calling task")

// fcComponent builds a component of an FC over the env's Scope.
func fcComponent(part func(*FC) reward.Func) reward.Constructor {
	return func(e reward.Env) (reward.Func, error) {
		s, ok := reward.Supplied[Scope](e)
		if !ok {
			return nil, errNoScope
		}
		fc, err := NewFC(s.Data, s.Category, e.Format)
		if err != nil {
			return nil, err
		}
		if s.Golds != nil {
			fc.golds = s.Golds
		}
		return part(fc), nil
	}
}
