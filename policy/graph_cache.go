package policy

// The compiled training graphs a model keeps, one per batch shape (N
// rows, sequences of at most T tokens), bounded in count and in bytes
// (SetGraphCacheBytes).

import G "gorgonia.org/gorgonia"

// graphCache holds a model's compiled graphs by shape (N, T).
type graphCache struct {
	graphs map[[2]int]*trainGraph
	clock  int64
}

// graph returns the graph of shape (N, T): the cached one, else a new
// one. The shape is the batch's alone, never a larger cached graph's: the
// padding rows' number changes how the products sum, and a resumed run
// must sum as the uninterrupted one did.
func (m *Model) graph(N, T int) (*trainGraph, error) {
	if m.graphs == nil {
		m.graphs = &graphCache{graphs: make(map[[2]int]*trainGraph)}
	}
	c := m.graphs
	c.clock++
	if tg, ok := c.graphs[[2]int{N, T}]; ok {
		tg.used = c.clock
		return tg, nil
	}
	if len(c.graphs) >= maxGraphs {
		var oldest [2]int
		var when int64 = -1
		for k, tg := range c.graphs {
			if when < 0 || tg.used < when {
				oldest, when = k, tg.used
			}
		}
		c.graphs[oldest].close()
		delete(c.graphs, oldest)
	}
	tg, err := buildGraph(m, N, T)
	if err != nil {
		return nil, err
	}
	tg.used = c.clock
	c.graphs[[2]int{N, T}] = tg
	return tg, nil
}

// trim closes the least recently used graphs other than keep until the
// others fit in limit bytes.
func (c *graphCache) trim(keep *trainGraph, limit int64) {
	for {
		var total int64
		var oldest [2]int
		var victim *trainGraph
		for k, tg := range c.graphs {
			if tg == keep {
				continue
			}
			total += tg.bytes
			if victim == nil || tg.used < victim.used {
				oldest, victim = k, tg
			}
		}
		if victim == nil || total <= limit {
			return
		}
		victim.close()
		delete(c.graphs, oldest)
	}
}

// sizeBytes is what the graph holds after a run, apart from the weights
// it shares with the model: every node's value and the saved values of
// its forward kernels.
func (tg *trainGraph) sizeBytes() int64 {
	shared := make(map[*G.Node]bool, len(tg.params))
	for _, n := range tg.params {
		shared[n] = true
	}
	var n int64
	seen := map[uintptr]bool{} // planned outputs share buffers
	for _, node := range tg.eg.AllNodes() {
		v := node.Value()
		if v == nil || shared[node] || v.MemSize() == 0 {
			continue
		}
		if p := v.Uintptr(); !seen[p] {
			seen[p] = true
			n += int64(v.MemSize())
		}
	}
	for _, k := range tg.saves {
		n += int64(len(k.saved)) * 4
	}
	return n + tg.scratch
}

// close releases the graph's machine and its planned buffers; the graph
// must not run again.
func (tg *trainGraph) close() {
	tg.vm.Close()
	tg.plan.release()
	tg.gm.release()
}

// dropGraphs closes and forgets every compiled graph.
func (m *Model) dropGraphs() {
	if m.graphs == nil {
		return
	}
	for _, tg := range m.graphs.graphs {
		tg.close()
	}
	m.graphs = nil
}
