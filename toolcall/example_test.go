package toolcall_test

import (
	"fmt"

	"github.com/artist-rl/artist/toolcall"
)

// A model's output arrives in pieces; the call's name and arguments come
// out as soon as they are known.
func ExampleParser() {
	var p toolcall.Parser
	pieces := []string{"Checking.\n<tool_", "call>\n{\"name\": \"get_weather\", \"argu", "ments\": {\"city\": \"Par", "is\"}}\n</tool_call>"}
	for _, piece := range append(pieces, "") {
		evs := p.Feed(piece)
		if piece == "" {
			evs = p.End()
		}
		for _, e := range evs {
			switch e.Kind {
			case toolcall.Content:
				fmt.Printf("content %q\n", e.Text)
			case toolcall.Start:
				fmt.Printf("call %d: %s\n", e.Index, e.Name)
			case toolcall.Args:
				fmt.Printf("arguments %d += %s\n", e.Index, e.Text)
			}
		}
	}
	// Output:
	// content "Checking."
	// call 0: get_weather
	// arguments 0 += {"city": "Par
	// arguments 0 += is"}
}

func ExampleParse() {
	content, calls := toolcall.Parse("<tool_call>\n{\"arguments\": {\"a\": 1}, \"name\": \"f\"}\n</tool_call>")
	fmt.Printf("%q %+v\n", content, calls)
	// Output:
	// "" [{Name:f Arguments:{"a": 1}}]
}
