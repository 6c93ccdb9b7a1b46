package trainer

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/artist-rl/artist/collective"
	"github.com/artist-rl/artist/policy"
	"gopkg.in/yaml.v3"
)

// rankSetup is what the ranks of a job compare before they start: the
// resolved config, and the compute backend and its kernel type (ranks on
// different ones would round differently and drift apart).
type rankSetup struct {
	Config  []byte `json:"config"`
	Backend string `json:"backend"`
}

// checkSameConfig gathers every rank's resolved config on every rank and
// returns the same error on all of them when one differs from rank 0's,
// naming the first key (in sorted order) that differs, so that no rank
// starts a job the others refuse.
func checkSameConfig(c collective.Collective, cfg Config) error {
	y, err := cfg.Marshal()
	if err != nil {
		return err
	}
	var be string
	if sel, err := policy.DefaultBackend(); err == nil {
		i := sel.Backend.Info()
		be = i.Name
		if i.Core != "" {
			be += " (kernels " + i.Core + ")"
		}
	}
	mine, _ := json.Marshal(rankSetup{Config: y, Backend: be})
	sum := sha256.Sum256(mine)
	hashes, err := collective.AllGather(c, sum[:])
	if err != nil {
		return fmt.Errorf("trainer: compare configs: %w", err)
	}
	same := true
	for _, h := range hashes {
		same = same && bytes.Equal(h, hashes[0])
	}
	if same {
		return nil
	}
	all, err := collective.AllGather(c, mine) // only when they differ: the whole configs
	if err != nil {
		return fmt.Errorf("trainer: compare configs: %w", err)
	}
	var first rankSetup
	json.Unmarshal(all[0], &first)
	for rank := 1; rank < len(all); rank++ {
		var s rankSetup
		json.Unmarshal(all[rank], &s)
		if s.Backend != first.Backend {
			return fmt.Errorf("trainer: rank %d computes with backend %s but rank 0 with %s: give every rank the same ARTIST_BACKEND and libraries", rank, s.Backend, first.Backend)
		}
		if key, a, b := configDiff(first.Config, s.Config); key != "" {
			return fmt.Errorf("trainer: rank %d was started with another config than rank 0: %s is %s on rank %d and %s on rank 0: start every rank with the same -config file and -set flags", rank, key, b, rank, a)
		}
	}
	return nil
}

// configDiff returns the first dotted key, in sorted order, whose value
// differs between two YAML documents, with both values ("" if none).
func configDiff(a, b []byte) (key, va, vb string) {
	if d := flatDiff(a, b); len(d) > 0 {
		return d[0].Key, d[0].Run, d[0].Config
	}
	return "", "", ""
}

// flatDiff lists, sorted by key, the dotted leaf keys (flatYAML) whose
// values differ between the YAML documents a and b, with a's value as Run
// and b's as Config, "(unset)" where a document lacks the key.
func flatDiff(a, b []byte) []keyDiff {
	fa, fb := flatYAML(a), flatYAML(b)
	var out []keyDiff
	for k, vb := range fb {
		if _, ok := fa[k]; !ok {
			out = append(out, keyDiff{Key: k, Run: "(unset)", Config: vb})
		}
	}
	for k, va := range fa {
		if vb, ok := fb[k]; !ok || va != vb {
			out = append(out, keyDiff{Key: k, Run: va, Config: orUnset(vb, ok)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

func orUnset(v string, ok bool) string {
	if !ok {
		return "(unset)"
	}
	return v
}

// flatYAML maps each leaf of a YAML document to its value as YAML text
// (a list as one line of JSON, which is YAML too), under its dotted key
// path.
func flatYAML(doc []byte) map[string]string {
	var v any
	yaml.Unmarshal(doc, &v)
	out := map[string]string{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		if m, ok := v.(map[string]any); ok && len(m) > 0 {
			for k, x := range m {
				walk(strings.TrimPrefix(prefix+"."+k, "."), x)
			}
			return
		}
		if list, ok := v.([]any); ok { // on one line, as -set takes it
			b, _ := json.Marshal(list)
			out[prefix] = string(b)
			return
		}
		b, _ := yaml.Marshal(v)
		out[prefix] = strings.TrimSpace(string(b))
	}
	walk("", v)
	return out
}
