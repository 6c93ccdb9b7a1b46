package policy

// A static memory plan for the training graph: kernels whose outputs are
// never needed at the same time write into the same buffer.

import (
	"fmt"
	"runtime"

	"github.com/artist-rl/artist/policy/backend"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// memoryPlan is the order the graph's kernels run in and the buffers
// their outputs share. gorgonia's tape machine gives every node its own
// register, so without a plan a graph holds every intermediate of the
// forward and the backward pass at once; with it, a backward temporary
// reuses the memory of values whose last reader has run.
type memoryPlan struct {
	order   []*kernel // kernels with planned outputs, in execution order
	next    int       // position in order of the next kernel to run
	bytes   int64     // memory of the shared buffers
	shared  int       // kernels that write into a buffer another one used
	release func()    // returns the buffers' memory; nothing may use them after
}

// planMemory orders the nodes of eg as the tape machine does (gorgonia's
// stabilised topological sort, inputs first) and gives each kernel node an
// output buffer. A kernel's output is free for reuse after the last kernel
// that reads it has run; it is kept (never shared) when a node that is not
// one of our kernels reads it (gorgonia's own ops may keep or overwrite
// it) or when it is in keep (values read after the run: log-probs,
// gradients). Buffers are shared only between outputs of one length.
func planMemory(eg *G.ExprGraph, keep []*G.Node, gm *graphMemory) (*memoryPlan, error) {
	sorted, err := G.Sort(eg)
	if err != nil {
		return nil, fmt.Errorf("policy: memory plan: %w", err)
	}
	for i, j := 0, len(sorted)-1; i < j; i, j = i+1, j-1 { // inputs first, as compile does
		sorted[i], sorted[j] = sorted[j], sorted[i]
	}
	p := &memoryPlan{}
	slots, slotOf := p.assignSlots(sorted, lastReaders(eg, sorted, keep))
	if err := p.bind(sorted, slots, slotOf, gm); err != nil {
		return nil, err
	}
	return p, nil
}

// lastReaders returns, for each node of sorted (in execution order), the
// position of the last reader of its output, or -1 when the output must
// be kept: a node of keep, or one read by a node that is not a planned
// kernel.
func lastReaders(eg *G.ExprGraph, sorted []*G.Node, keep []*G.Node) []int {
	pos := make(map[*G.Node]int, len(sorted))
	for i, n := range sorted {
		pos[n] = i
	}
	pinned := make(map[*G.Node]bool, len(keep))
	for _, n := range keep {
		pinned[n] = true
	}
	last := make([]int, len(sorted))
	for i, n := range sorted {
		last[i] = i
		if pinned[n] {
			last[i] = -1
			continue
		}
		readers := eg.To(n.ID())
		for readers.Next() {
			r := readers.Node().(*G.Node)
			if _, ok := r.Op().(*kernel); !ok {
				last[i] = -1
				break
			}
			last[i] = max(last[i], pos[r])
		}
	}
	return last
}

// assignSlots gives each kernel's output a shared buffer (slot), reusing a
// slot of the same length once the last reader of its earlier output has
// run, and records the kernels' order in p. It returns each slot's length
// and the slot of each kernel.
func (p *memoryPlan) assignSlots(sorted []*G.Node, last []int) ([]int, map[*kernel]int) {
	var slots []int              // length of each shared buffer
	slotOf := map[*kernel]int{}  // the buffer each kernel writes
	free := map[int][]int{}      // free slots by length
	releaseAt := map[int][]int{} // position -> outputs whose last reader runs there
	owner := map[int]int{}       // position -> its slot
	for i, n := range sorted {
		if k, ok := n.Op().(*kernel); ok && k.outDims > 0 {
			size := n.Shape().TotalSize()
			var slot int
			if l := free[size]; len(l) > 0 {
				slot, free[size] = l[len(l)-1], l[:len(l)-1]
				p.shared++
			} else {
				slot = len(slots)
				slots = append(slots, size)
			}
			slotOf[k] = slot
			k.plan, k.pos = p, len(p.order)
			p.order = append(p.order, k)
			owner[i] = slot
			if last[i] >= 0 {
				releaseAt[last[i]] = append(releaseAt[last[i]], i)
			}
		}
		// Outputs whose last reader is this node are free for the nodes
		// after it (not for this one, which is still reading them).
		for _, j := range releaseAt[i] {
			s := owner[j]
			free[slots[s]] = append(free[slots[s]], s)
		}
		delete(releaseAt, i)
	}
	return slots, slotOf
}

// bind lays the slots out in one arena outside the Go heap and gives each
// kernel its output tensor over its slot; on a device backend the slots
// are laid out the same way in one device buffer too, which holds the
// values (the host arena then only carries their shapes).
func (p *memoryPlan) bind(sorted []*G.Node, slots []int, slotOf map[*kernel]int, gm *graphMemory) error {
	total := 0
	offset := make([]int, len(slots))
	for s, n := range slots {
		offset[s] = total
		total += n
	}
	p.bytes = int64(total) * 4
	var mem []float32
	mem, p.release = hostArena(total)
	// A graph dropped with its model (never closed) gives its memory
	// back when it is collected; the cleanup holds only the release.
	runtime.AddCleanup(p, func(release func()) { release() }, p.release)
	dev := backend.Host(mem)
	if !gm.host {
		var err error
		if dev, err = gm.scratch(total); err != nil {
			return fmt.Errorf("policy: memory plan: %w", err)
		}
	}
	for _, n := range sorted {
		if k, ok := n.Op().(*kernel); ok && k.outDims > 0 {
			s := slotOf[k]
			d := mem[offset[s] : offset[s]+slots[s] : offset[s]+slots[s]]
			k.out = tensor.New(tensor.WithShape(n.Shape().Clone()...), tensor.WithBacking(d))
			k.outT = dev.Slice(offset[s], offset[s]+slots[s])
			gm.register(d, k.outT)
		}
	}
	return nil
}

// ran checks that k runs where the plan put it: the tape machine's order
// must be the plan's, or shared buffers would be overwritten while still
// needed.
func (p *memoryPlan) ran(k *kernel) error {
	if p.next >= len(p.order) || p.order[p.next] != k {
		return fmt.Errorf("policy: memory plan: %s ran at position %d, planned at %d: the graph's execution order differs from the plan", k.name, p.next, k.pos)
	}
	p.next++
	if p.next == len(p.order) {
		p.next = 0
	}
	return nil
}
