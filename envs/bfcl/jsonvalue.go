package bfcl

import "github.com/artist-rl/artist/internal/pyval"

// DecodeJSON parses JSON text into values as json.loads does: objects
// become *Dict in source order, numbers with a fraction or exponent become
// float64 and the rest int64 (internal/pyval.DecodeJSON).
func DecodeJSON(data []byte) (any, error) { return pyval.DecodeJSON(data) }
