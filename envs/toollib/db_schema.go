package toollib

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
)

// migration is one step of the schema: apply moves a database from
// version i to i+1, where i is the step's index in migrations.
type migration struct {
	name  string
	apply func(ctx context.Context, tx *sql.Tx) error
}

// migrations are the schema's steps in order. A step, once released, is
// never changed: a new need is a new step at the end.
var migrations = []migration{
	{"tools", execAll(`
CREATE TABLE tools (
	id         INTEGER PRIMARY KEY,
	name       TEXT NOT NULL UNIQUE,
	doc        TEXT NOT NULL,
	signature  TEXT NOT NULL,
	source     TEXT NOT NULL,
	cases      TEXT NOT NULL, -- JSON array of Case
	state      TEXT NOT NULL CHECK (state IN ('pending', 'approved', 'rejected')),
	verified   INTEGER NOT NULL DEFAULT 0,
	verify_log TEXT NOT NULL DEFAULT '',
	task       TEXT NOT NULL DEFAULT '',
	run        TEXT NOT NULL DEFAULT '',
	origin     TEXT NOT NULL DEFAULT '', -- Provenance.Source
	created    TEXT NOT NULL -- RFC 3339, UTC
)`)},
	{"approval, use counts and full-text search", migrateApproval},
}

// migrateApproval adds the decision and use columns and the FTS5 index,
// filled from the tools already stored.
func migrateApproval(ctx context.Context, tx *sql.Tx) error {
	err := execAll(`
ALTER TABLE tools ADD COLUMN uses INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tools ADD COLUMN decider TEXT NOT NULL DEFAULT '';
ALTER TABLE tools ADD COLUMN decided_at TEXT NOT NULL DEFAULT '';
ALTER TABLE tools ADD COLUMN reason TEXT NOT NULL DEFAULT '';
CREATE INDEX tools_state ON tools (state);
CREATE VIRTUAL TABLE tools_fts USING fts5(name, description, signature, examples, tokenize = 'porter unicode61')`)(ctx, tx)
	if err != nil {
		return err
	}
	// The columns of version 1 only: later steps may add more.
	rows, err := tx.QueryContext(ctx, `SELECT id, name, doc, signature, cases FROM tools`)
	if err != nil {
		return err
	}
	ids, tools := []int64{}, []Tool{}
	for rows.Next() {
		var id int64
		var t Tool
		var cases string
		if err := rows.Scan(&id, &t.Name, &t.Doc, &t.Signature, &cases); err != nil {
			rows.Close()
			return err
		}
		if err := json.Unmarshal([]byte(cases), &t.Cases); err != nil {
			rows.Close()
			return fmt.Errorf("tool %s: cases: %w", t.Name, err)
		}
		ids, tools = append(ids, id), append(tools, t)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	for i, t := range tools {
		if err := index(ctx, tx, ids[i], t); err != nil {
			return err
		}
	}
	return nil
}

// execAll returns a step that runs each ";"-separated statement of sql.
func execAll(script string) func(context.Context, *sql.Tx) error {
	return func(ctx context.Context, tx *sql.Tx) error {
		for stmt := range strings.SplitSeq(script, ";") {
			if strings.TrimSpace(stmt) == "" {
				continue
			}
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("%w in %s", err, strings.TrimSpace(stmt))
			}
		}
		return nil
	}
}

// migrate brings the database to the latest schema, to version upTo at
// most (tests stop early to build old files), in one immediate
// transaction, so that processes opening the same file at once migrate it
// once. A database newer than this program knows is an error.
func migrate(ctx context.Context, db *sql.DB, upTo int) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
		return err
	}
	var v int
	switch err := tx.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&v); {
	case err == sql.ErrNoRows:
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version (version) VALUES (0)`); err != nil {
			return err
		}
	case err != nil:
		return err
	}
	if v > len(migrations) {
		return fmt.Errorf("schema version %d is newer than this program's %d: use a newer artist", v, len(migrations))
	}
	for ; v < min(upTo, len(migrations)); v++ {
		if err := migrations[v].apply(ctx, tx); err != nil {
			return fmt.Errorf("migrate to version %d (%s): %w", v+1, migrations[v].name, err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE schema_version SET version = ?`, v+1); err != nil {
			return err
		}
	}
	return tx.Commit()
}
