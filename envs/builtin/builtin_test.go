package builtin

import (
	"maps"
	"testing"

	"github.com/artist-rl/artist/envs/family"
)

// TestVerdictLabels: of the built-in families, BFCL alone names the judge
// of its verdicts (its official checker), for the run viewer.
func TestVerdictLabels(t *testing.T) {
	if got, want := family.VerdictLabels(), map[string]string{"bfcl": "checker"}; !maps.Equal(got, want) {
		t.Errorf("verdict labels %v, want %v", got, want)
	}
}
