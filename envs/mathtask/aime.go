package mathtask

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/artist-rl/artist/internal/pyval"
)

// AIME2025Papers are the folders of the two AIME 2025 papers in
// eth-sri/matharena's data/aime folder, in the order DeriveAIME writes them.
var AIME2025Papers = []string{"aime_2025_I", "aime_2025_II"}

// DeriveAIME joins AIME papers laid out as in eth-sri/matharena's data/aime
// folder (srcDir/<paper>/answers.csv with header "id,answer", and
// srcDir/<paper>/problems/<id>.tex) into JSON Lines, one record per row of
// answers.csv, in file order:
//
//	{"id": "2025-I-1", "problem": ..., "answer": "70", "source_path": "data/aime/aime_2025_I/problems/1.tex"}
//
// The id is the paper folder without its "aime_" prefix, "_" written as
// "-", then "-" and the problem id. Problem text and answer have leading
// and trailing whitespace removed as Python's str.strip does, and are
// otherwise verbatim. Records are encoded as Python's json.dumps does by
// default (", " and ": " separators, non-ASCII escaped), each line ending
// in "\n". A missing file, a problem file without an answer, or an empty
// answer is an error naming the file.
func DeriveAIME(srcDir string, papers []string) ([]byte, error) {
	var out bytes.Buffer
	for _, paper := range papers {
		if err := deriveAIMEPaper(&out, srcDir, paper); err != nil {
			return nil, fmt.Errorf("mathtask: %w", err)
		}
	}
	return out.Bytes(), nil
}

func deriveAIMEPaper(out *bytes.Buffer, srcDir, paper string) error {
	ansPath := filepath.Join(srcDir, paper, "answers.csv")
	f, err := os.Open(ansPath)
	if err != nil {
		return err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return fmt.Errorf("%s: %w", ansPath, err)
	}
	if len(rows) == 0 || len(rows[0]) != 2 || rows[0][0] != "id" || rows[0][1] != "answer" {
		return fmt.Errorf("%s: the header must be id,answer", ansPath)
	}
	prefix := strings.ReplaceAll(strings.TrimPrefix(paper, "aime_"), "_", "-")
	seen := map[string]bool{}
	for i, row := range rows[1:] {
		id, answer := pyStrip(row[0]), pyStrip(row[1])
		if id == "" || answer == "" || strings.ContainsAny(id, `/\`) || seen[id] {
			return fmt.Errorf("%s line %d: need a new problem id and a non-empty answer", ansPath, i+2)
		}
		seen[id] = true
		rel := paper + "/problems/" + id + ".tex"
		text, err := os.ReadFile(filepath.Join(srcDir, filepath.FromSlash(rel)))
		if err != nil {
			return err
		}
		if !utf8.Valid(text) {
			return fmt.Errorf("%s: not UTF-8 text", rel)
		}
		out.WriteString(pyval.MustJSON(pyval.NewDict("id", prefix+"-"+id, "problem", pyStrip(string(text)),
			"answer", answer, "source_path", "data/aime/"+rel)) + "\n")
	}
	problems, err := os.ReadDir(filepath.Join(srcDir, paper, "problems"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	var extra []string
	for _, p := range problems {
		if id, ok := strings.CutSuffix(p.Name(), ".tex"); ok && !seen[id] {
			extra = append(extra, p.Name())
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return fmt.Errorf("%s: no answer in answers.csv for %s", filepath.Join(srcDir, paper, "problems"), strings.Join(extra, ", "))
	}
	return nil
}

// pyStrip removes leading and trailing whitespace as Python's str.strip
// does: Unicode white space plus the separators U+001C to U+001F.
func pyStrip(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f })
}
