package collective

import (
	"fmt"
	"os"
	"sync"
)

// NewLocal returns n ranks of one job inside this process, for tests of
// code that runs on many ranks: each goroutine takes one and makes the
// same calls the processes of an MPI job would. AllReduce adds the ranks'
// buffers in rank order, so its sums are fixed for a given n.
func NewLocal(n int) []Collective {
	if n < 1 {
		panic("collective: NewLocal needs n >= 1")
	}
	h := &hub{n: n, slots: make([]any, n)}
	h.cond = sync.NewCond(&h.mu)
	cs := make([]Collective, n)
	for i := range cs {
		cs[i] = &local{h: h, rank: i}
	}
	return cs
}

// hub is where the local ranks meet: each call deposits its rank's value,
// the last to arrive combines them, and all leave with the result.
type hub struct {
	n       int
	mu      sync.Mutex
	cond    *sync.Cond
	gen     int
	arrived int
	slots   []any
	result  any
}

// exchange blocks until all n ranks have called it, then returns
// combine(values in rank order) to each. The result of one generation
// cannot be overwritten before every rank has read it: the next one
// completes only once all ranks arrive again.
func (h *hub) exchange(rank int, v any, combine func([]any) any) any {
	h.mu.Lock()
	defer h.mu.Unlock()
	g := h.gen
	h.slots[rank] = v
	h.arrived++
	if h.arrived == h.n {
		h.result = combine(h.slots)
		h.slots = make([]any, h.n)
		h.arrived = 0
		h.gen++
		h.cond.Broadcast()
	} else {
		for g == h.gen {
			h.cond.Wait()
		}
	}
	return h.result
}

type local struct {
	h    *hub
	rank int
}

func (c *local) Rank() int    { return c.rank }
func (c *local) Size() int    { return c.h.n }
func (c *local) Close() error { return nil }

func (c *local) AllReduceFloat32(buf []float32) error { return allReduceLocal(c, buf) }
func (c *local) AllReduceFloat64(buf []float64) error { return allReduceLocal(c, buf) }

func allReduceLocal[T float32 | float64](c *local, buf []T) error {
	res := c.h.exchange(c.rank, buf, func(vs []any) any {
		n := len(vs[0].([]T))
		for r, v := range vs {
			if len(v.([]T)) != n {
				return fmt.Errorf("collective: AllReduce: rank %d has %d values, rank 0 %d", r, len(v.([]T)), n)
			}
		}
		sum := make([]T, n)
		for _, v := range vs { // rank order: the sums are fixed for a given n
			for i, x := range v.([]T) {
				sum[i] += x
			}
		}
		return sum
	})
	if err, ok := res.(error); ok {
		return err
	}
	copy(buf, res.([]T))
	return nil
}

func (c *local) Broadcast(buf []byte, root int) error {
	if err := checkRoot(root, c.h.n); err != nil {
		return err
	}
	res := c.h.exchange(c.rank, buf, func(vs []any) any {
		src := vs[root].([]byte)
		for r, v := range vs {
			if len(v.([]byte)) != len(src) {
				return fmt.Errorf("collective: Broadcast: rank %d has a %d-byte buffer, root %d bytes", r, len(v.([]byte)), len(src))
			}
		}
		return append([]byte(nil), src...)
	})
	if err, ok := res.(error); ok {
		return err
	}
	copy(buf, res.([]byte))
	return nil
}

func (c *local) Gather(data []byte, root int) ([][]byte, error) {
	if err := checkRoot(root, c.h.n); err != nil {
		return nil, err
	}
	res := c.h.exchange(c.rank, append([]byte(nil), data...), func(vs []any) any {
		out := make([][]byte, len(vs))
		for i, v := range vs {
			out[i] = v.([]byte)
		}
		return out
	}).([][]byte)
	if c.rank != root {
		return nil, nil
	}
	return res, nil
}

func (c *local) Barrier() error {
	c.h.exchange(c.rank, nil, func([]any) any { return nil })
	return nil
}

// Abort writes msg and exits the process: all local ranks end together.
func (c *local) Abort(code int, msg string) {
	fmt.Fprintf(os.Stderr, "rank %d: %s\n", c.rank, msg)
	os.Exit(code)
}
