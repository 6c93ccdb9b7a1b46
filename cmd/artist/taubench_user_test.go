package main

import (
	"slices"
	"strings"
	"testing"
)

// TestUserFlags: -user-policy with -user-model and -user-checkpoint
// stand for the keys of task.taubench.user, their values quoted as YAML
// strings; flags that do not go together are refused, naming them.
func TestUserFlags(t *testing.T) {
	for i, c := range []struct {
		flags userFlags
		want  []string
		err   string
	}{
		{userFlags{}, nil, ""},
		{userFlags{url: "http://h:1", model: "7"}, []string{"task.taubench.user.kind=openai", `task.taubench.user.url="http://h:1"`, `task.taubench.user.model="7"`}, ""},
		{userFlags{ckpt: "runs/a b/step-1"}, []string{"task.taubench.user.kind=checkpoint", `task.taubench.user.checkpoint="runs/a b/step-1"`}, ""},
		{userFlags{url: "http://h:1"}, nil, "-user-model"},
		{userFlags{model: "m"}, nil, "-user-policy"},
		{userFlags{url: "http://h:1", model: "m", ckpt: "c"}, nil, "-user-checkpoint"},
	} {
		got, err := c.flags.sets()
		if (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) || !slices.Equal(got, c.want) {
			t.Errorf("case %d: %q, %v; want %q and an error naming %q", i, got, err, c.want, c.err)
		}
	}
	if code, _, stderr := runCLI("eval", "-bench", "taubench_retail", "-policy", "http://127.0.0.1:1", "-user-model", "m"); code != 2 || !strings.Contains(stderr, "-user-policy") {
		t.Errorf("eval with -user-model alone: exit %d: %s", code, stderr)
	}
}
