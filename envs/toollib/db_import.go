package toollib

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/artist-rl/artist/envs"
)

// jsonLibrary is the layout of the JSON library files that came before
// the database.
type jsonLibrary struct {
	Tools []Tool `json:"tools"`
}

// Import adds the tools of a JSON library file as pending, with
// provenance source "import" and Run the file's path, and returns how
// many it added. See ImportTools.
func (d *DB) Import(ctx context.Context, run envs.Tool, jsonPath string) (int, error) {
	ids, err := d.ImportTools(ctx, run, jsonPath)
	return len(ids), err
}

// ImportTools adds the tools of a JSON library file as pending and
// returns their ids. Each tool is read again from its source by
// ParseTool and verified by Add, so its examples must be Go values:
// the printed form that JSON libraries once held (hello for "hello",
// [1 2 3] for []int{1, 2, 3}) is refused with the example named. A tool
// whose name is already stored with the same source is skipped; every
// other failure is collected, naming the tool, while the rest import.
func (d *DB) ImportTools(ctx context.Context, run envs.Tool, jsonPath string) ([]int64, error) {
	data, err := os.ReadFile(jsonPath)
	if err != nil {
		return nil, fmt.Errorf("toollib: import: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var lib jsonLibrary
	if err := dec.Decode(&lib); err != nil {
		return nil, fmt.Errorf("toollib: import %s: %w", jsonPath, err)
	}
	var ids []int64
	var errs []error
	for i, old := range lib.Tools {
		id, err := d.importTool(ctx, run, old, jsonPath)
		if err != nil {
			errs = append(errs, fmt.Errorf("toollib: import %s: tool %d (%s): %w", jsonPath, i+1, old.Name, err))
		} else if id != 0 {
			ids = append(ids, id)
		}
	}
	return ids, errors.Join(errs...)
}

// importTool adds one tool of a JSON file; 0 when it is already stored.
func (d *DB) importTool(ctx context.Context, run envs.Tool, old Tool, jsonPath string) (int64, error) {
	if have, err := d.ByName(ctx, old.Name); err == nil && have.Tool.Source == old.Source {
		return 0, nil
	}
	t, err := ParseTool(old.Source)
	if err != nil {
		return 0, err
	}
	if t.Name != old.Name {
		return 0, fmt.Errorf("source declares %s", t.Name)
	}
	return d.Add(ctx, run, t, Provenance{Run: jsonPath, Source: "import"}, Pending)
}
