package atlass

import (
	"context"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/toollib"
)

// ToolDB is the tool database the pipeline reads and grows: the methods of
// the SQLite tool database that the phases use.
//
// Add verifies t in run (its doc examples) before storing it and refuses a
// failing tool with the failing example named, or a name already stored.
// Search ranks the stored tools for a query and returns up to k of them in
// the given states (approved only when none are given). Get and ByName
// read one tool in any state. Approve records who approved a tool and
// when; MarkUsed counts a use of each tool. Each stops with ctx's error
// when ctx ends first.
type ToolDB interface {
	Add(ctx context.Context, run envs.Tool, t toollib.Tool, p Provenance, state State) (int64, error)
	Search(ctx context.Context, query string, k int, states ...State) ([]Record, error)
	Get(ctx context.Context, id int64) (Record, error)
	ByName(ctx context.Context, name string) (Record, error) // an error wrapping toollib.ErrNotFound when none
	Approve(ctx context.Context, id int64, who string) error
	MarkUsed(ctx context.Context, ids ...int64) error
}

// The database's records, as the pipeline reads them.
type (
	State      = toollib.State      // a tool's approval state
	Provenance = toollib.Provenance // the task, run and source that made a tool
	Record     = toollib.Record     // a stored tool with its verification, approval and use
)

// The approval states. Only approved tools run when solving; pending ones
// run only inside verification.
const (
	Pending  = toollib.Pending
	Approved = toollib.Approved
	Rejected = toollib.Rejected
)

var _ ToolDB = (*toollib.DB)(nil)
