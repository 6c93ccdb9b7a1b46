package taubench

import (
	"embed"
	"fmt"
)

// shipped holds the tools.json of each domain (tools/NOTICE gives their
// MIT attribution): upstream keeps the schemas only in the tools' Python
// code, so they are not among the fetched files.
//
//go:embed tools/airline.json tools/retail.json
var shipped embed.FS

// ShippedTools returns the shipped tools.json text of a domain: the
// function schemas of its tools in the reference order.
func ShippedTools(domain string) ([]byte, error) {
	if _, ok := collections[domain]; !ok {
		return nil, fmt.Errorf("taubench: unknown domain %q: use %q or %q", domain, Airline, Retail)
	}
	return shipped.ReadFile("tools/" + domain + ".json")
}
