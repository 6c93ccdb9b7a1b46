package archgraph_test

import (
	"fmt"

	"github.com/artist-rl/artist/internal/archgraph"
)

// A graph is rendered layer by layer and checked against rules.
func Example() {
	g := archgraph.Graph{
		"rollout/format": {},
		"rollout":        {"rollout/format"},
		"server":         {"rollout", "trainer"},
		"trainer":        {"rollout"},
	}
	layers := []archgraph.Layer{
		{Name: "base", Packages: []string{"rollout/..."}},
		{Name: "top", Packages: []string{"server", "trainer"}},
	}
	fmt.Print(g.Render(layers, 78))
	rules := []archgraph.Rule{{Doc: "server imports no trainer", From: []string{"server"}, To: []string{"trainer"}}}
	for _, v := range g.Check(rules) {
		fmt.Println(v)
	}
	// Output:
	// # base
	// rollout: rollout/format
	// rollout/format:
	//
	// # top
	// server: rollout trainer
	// trainer: rollout
	// server imports trainer: breaks "server imports no trainer"
}
