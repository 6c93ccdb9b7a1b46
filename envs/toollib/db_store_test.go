package toollib

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestMigrateV1 opens a database written at schema version 1 (tools
// without decisions, use counts or a search index) and migrates it.
func TestMigrateV1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v1.db")
	old, err := openDB(path, 1)
	if err != nil {
		t.Fatal(err)
	}
	gcd := fixture(t, "gcd")
	cases, _ := json.Marshal(gcd.Cases)
	_, err = old.db.Exec(`INSERT INTO tools (name, doc, signature, source, cases, state, verified, origin, created)
		VALUES (?, ?, ?, ?, ?, 'approved', 1, 'human', '2025-01-02T03:04:05Z')`, gcd.Name, gcd.Doc, gcd.Signature, gcd.Source, string(cases))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.Search(context.Background(), "divisor", 1); err == nil {
		t.Fatal("a version 1 database has a search index")
	}
	old.Close()

	d, err := OpenDB(path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var v int
	if err := d.db.QueryRow(`SELECT version FROM schema_version`).Scan(&v); err != nil || v != len(migrations) {
		t.Fatalf("schema version %d, %v; want %d", v, err, len(migrations))
	}
	recs, err := d.Search(context.Background(), "greatest common divisor", 3)
	if err != nil || len(recs) != 1 {
		t.Fatalf("Search after migrating = %v, %v; want gcd", recs, err)
	}
	r := recs[0]
	if r.Tool.Name != "gcd" || r.Uses != 0 || r.Decider != "" || r.Created != time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC) || len(r.Tool.Cases) != 3 {
		t.Errorf("migrated record %+v", r)
	}
	d.Close()
	if again, err := OpenDB(path); err != nil || again.Len() != 1 {
		t.Errorf("reopening a migrated database: %v", err)
	} else {
		again.Close()
	}
}

func TestOpenDBNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new.db")
	d, err := OpenDB(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.db.Exec(`UPDATE schema_version SET version = 99`); err != nil {
		t.Fatal(err)
	}
	d.Close()
	if _, err := OpenDB(path); err == nil || !strings.Contains(err.Error(), "schema version 99 is newer") {
		t.Errorf("OpenDB of a newer schema: %v", err)
	}
}

// TestDBConcurrent: one DB writes while another on the same file reads,
// as two processes would; the reader never fails and sees the writes.
func TestDBConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tools.db")
	w, err := OpenDB(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r, err := OpenDB(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	const n = 30
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range n {
			src := fmt.Sprintf("// add%d adds %d to the number x.\n//\tadd%d(1) == %d\nfunc add%d(x int) int { return x + %d }", i, i, i, i+1, i, i)
			tool, err := ParseTool(src)
			if err == nil {
				_, err = w.insert(context.Background(), tool, Provenance{Source: "human"}, Approved)
			}
			if err != nil {
				t.Errorf("write %d: %v", i, err)
				return
			}
		}
	})
	seen := 0
	for seen < n {
		recs, err := r.Search(context.Background(), "adds number", n)
		if err != nil {
			t.Fatalf("read while writing: %v", err)
		}
		if len(recs) < seen {
			t.Fatalf("the reader saw %d tools, then %d", seen, len(recs))
		}
		seen = len(recs)
		if _, err := r.List(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
}

func TestImport(t *testing.T) {
	ctx := context.Background()
	s := newSandbox(t, 2*time.Second)
	dir := t.TempDir()
	gcd, prime := fixture(t, "gcd"), fixture(t, "isprime")
	shout := Tool{Name: "shout", Source: "// shout upper-cases s.\n//\tshout(\"hi\") == HI!\nfunc shout(s string) string { return strings.ToUpper(s) }"}
	data, _ := json.Marshal(jsonLibrary{Tools: []Tool{gcd, shout, prime}})
	lib := filepath.Join(dir, "tools.json")
	if err := os.WriteFile(lib, data, 0o644); err != nil {
		t.Fatal(err)
	}
	d := openTemp(t)
	n, err := d.Import(ctx, s, lib)
	if n != 2 || err == nil || !strings.Contains(err.Error(), `tool 2 (shout)`) || !strings.Contains(err.Error(), `WANT "HI!" is not a Go value`) {
		t.Fatalf("Import = %d, %v; want 2 and an error naming shout's example", n, err)
	}
	r, err := d.ByName(context.Background(), "gcd")
	if err != nil || r.State != Pending || r.Provenance != (Provenance{Run: lib, Source: "import"}) {
		t.Errorf("imported gcd: %+v, %v", r, err)
	}
	if n, err := d.Import(ctx, s, lib); n != 0 || err == nil || strings.Contains(err.Error(), "gcd") {
		t.Errorf("importing again = %d, %v; want 0 and only shout's error", n, err)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"tools": [], "extra": 1}`), 0o644)
	if _, err := d.Import(ctx, s, bad); err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), `unknown field "extra"`) {
		t.Errorf("Import of a malformed file: %v", err)
	}
}

// TestSaveAsAndCopy: a copy is private (its writes leave the source as it
// was) and a snapshot holds what the copy had.
func TestSaveAsAndCopy(t *testing.T) {
	ctx := context.Background()
	s := newSandbox(t, 2*time.Second)
	dir := t.TempDir()
	seed := fixtureDB(t, s)
	seed.Close()
	c, err := OpenCopy(seed.Path())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Add(ctx, s, fixture(t, "wrong"), Provenance{Source: "grow"}, Pending); err == nil {
		t.Fatal("a failing tool joined the copy")
	}
	cube, _ := ParseTool("// cube returns x cubed.\n//\tcube(2) == 8\nfunc cube(x int) int { return x * x * x }")
	if _, err := c.Add(ctx, s, cube, Provenance{Source: "grow"}, Pending); err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(dir, "snap.db")
	if err := c.SaveAs(snap); err != nil {
		t.Fatal(err)
	}
	tmp := c.tmpDir
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("the copy's folder is left: %v", err)
	}
	for path, want := range map[string]int{seed.Path(): 4, snap: 5} {
		d, err := OpenDB(path)
		if err != nil {
			t.Fatal(err)
		}
		if d.Len() != want {
			t.Errorf("%s holds %d tools, want %d", path, d.Len(), want)
		}
		d.Close()
	}
	if empty, err := OpenCopy(filepath.Join(dir, "missing.db")); err != nil || empty.Len() != 0 {
		t.Errorf("OpenCopy(missing) = %v; want an empty copy", err)
	} else {
		empty.Close()
	}
	if _, err := os.Stat(filepath.Join(dir, "missing.db")); !os.IsNotExist(err) {
		t.Error("OpenCopy created its missing source")
	}
	open, _ := OpenDB(snap)
	defer open.Close()
	if err := open.SaveAs(snap); err == nil || !strings.Contains(err.Error(), "open elsewhere") {
		t.Errorf("SaveAs over an open database: %v", err)
	}
}
