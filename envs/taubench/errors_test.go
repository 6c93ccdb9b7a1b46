package taubench

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/artist-rl/artist/internal/datadir"
)

// TestGoldErrorCounts replays the gold actions of all 685 tasks, the 548
// held back from the visible traces included, and counts the actions that
// fail, by kind: the conformance notes give 44 such actions in 38 tasks,
// all retail: 20 failing lookups, 21 modifications refused by the
// gift-card balance check, 2 returns refused for their refund method and
// 1 exchange of an order that was not delivered.
func TestGoldErrorCounts(t *testing.T) {
	root := datadir.Require(t, "tau_bench")
	kinds := map[string]int{}
	actions, tasksWithErrors := 0, 0
	for _, tf := range taskFiles {
		d := loadDomain(t, filepath.Join(root, tf.domain), tf.domain)
		tasks, err := LoadTasks(filepath.Join(root, tf.domain, "tasks_"+tf.split+".json"))
		if err != nil {
			t.Fatal(err)
		}
		for i, task := range tasks {
			rec, err := Replay(d, tf.split, i, task)
			if err != nil {
				t.Fatal(err)
			}
			failed := false
			for _, a := range rec.Actions {
				msg, ok := strings.CutPrefix(a.Output, "Error: ")
				if !ok {
					continue
				}
				failed = true
				actions++
				if tf.domain != Retail {
					t.Errorf("%s %s task %d: %s failed: %s", tf.domain, tf.split, i, a.Name, msg)
				}
				kinds[errorKind(msg)]++
			}
			if failed {
				tasksWithErrors++
			}
		}
	}
	want := map[string]int{"lookup": 20, "gift card balance": 21, "refund method": 2, "not delivered": 1}
	for k, n := range want {
		if kinds[k] != n {
			t.Errorf("%d failing gold actions of kind %q, want %d", kinds[k], k, n)
		}
	}
	if actions != 44 || tasksWithErrors != 38 {
		t.Errorf("%d failing gold actions in %d tasks, want 44 in 38 (by kind: %v)", actions, tasksWithErrors, kinds)
	}
}

func errorKind(msg string) string {
	switch {
	case strings.HasSuffix(msg, " not found"):
		return "lookup"
	case strings.HasPrefix(msg, "insufficient gift card balance"):
		return "gift card balance"
	case strings.HasPrefix(msg, "payment method should be"):
		return "refund method"
	case msg == "non-delivered order cannot be exchanged":
		return "not delivered"
	}
	return msg
}
