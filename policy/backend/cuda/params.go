package cuda

import (
	"fmt"
	"math"
)

// encodeParams lays out kernel arguments for cuLaunchKernel: one 8-byte
// slot per argument holding its value little-endian in its low bytes (4
// bytes for int32, uint32 and float32, 8 for the others), so that a
// pointer to the slot is a pointer to the C value. The types are those
// kernels.Launcher allows: uintptr (a device address), int32, uint32,
// int64, uint64 and float32.
func encodeParams(params []any) ([]uint64, error) {
	slots := make([]uint64, len(params))
	for i, p := range params {
		switch v := p.(type) {
		case uintptr:
			slots[i] = uint64(v)
		case int32:
			slots[i] = uint64(uint32(v))
		case uint32:
			slots[i] = uint64(v)
		case int64:
			slots[i] = uint64(v)
		case uint64:
			slots[i] = v
		case float32:
			slots[i] = uint64(math.Float32bits(v))
		default:
			return nil, fmt.Errorf("argument %d has type %T, not one of uintptr, int32, uint32, int64, uint64, float32", i+1, p)
		}
	}
	return slots, nil
}
