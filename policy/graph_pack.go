package policy

// How Backward lays a batch into a training graph's rows: packed, the
// sequences back to back, in a graph shape (N, T) chosen from buckets so
// that batches of similar sizes share a graph.

// packedShape is the smallest graph shape (N, T) that Backward packs
// seqs, whose longest has longest tokens, into: their tokens and the
// longest, each rounded up by shapeBucket.
func packedShape(seqs [][]int, longest int) (N, T int) {
	tokens := 0
	for _, s := range seqs {
		tokens += len(s)
	}
	return shapeBucket(tokens), shapeBucket(longest)
}

// shapeBucket rounds n up to the next of 16, 20, 24, 28, 32, 40, 48, 56,
// 64, ...: 4, 5, 6 or 7 times a power of two, so that batches of
// similar sizes share a graph and a bucket wastes under a quarter.
func shapeBucket(n int) int {
	step := 4
	for 8*step <= n {
		step *= 2
	}
	return max(16, (n+step-1)/step*step)
}

// paddedBatch is the batch size a graph of padded sequences
// (graphSettings.pad) is built for: n rounded up to a power of two up to
// batchPad, to a multiple of batchPad above it.
func paddedBatch(n int) int {
	if n > batchPad {
		return (n + batchPad - 1) / batchPad * batchPad
	}
	b := 1
	for b < n {
		b *= 2
	}
	return b
}

// load packs the batch into the graph's input tensors and the blocks'
// rows (Backward), and returns each sequence's first row. Row r of a
// sequence holds its token r, the target token r+1 and its coefficient;
// the padding sequences after the last hold token 0 and no target. With
// pad, sequence i takes rows i·T to (i+1)·T, its tail padding.
func (tg *trainGraph) load(seqs [][]int, coef [][]float32, pad bool) (starts []int) {
	N, lens := tg.N, tg.mode.lens[:0]
	starts = make([]int, len(seqs))
	r := 0
	for i, s := range seqs {
		if pad && r < i*tg.T {
			lens = append(lens, tg.padRows(r, i*tg.T-r))
			r = i * tg.T
		}
		starts[i] = r
		if len(s) == 0 {
			continue
		}
		for t := range s {
			tg.ids[r+t], tg.targets[r+t], tg.coef[r+t] = float32(s[t]), -1, 0
			if t+1 < len(s) {
				tg.targets[r+t], tg.coef[r+t] = float32(s[t+1]), coef[i][t+1]
			}
			tg.mode.pos[r+t] = t
		}
		lens, r = append(lens, len(s)), r+len(s)
	}
	for r < N {
		n := tg.padRows(r, min(tg.T, N-r))
		lens, r = append(lens, n), r+n
	}
	tg.mode.lens = lens
	return starts
}

// padRows makes rows r to r+n a padding sequence and returns n.
func (tg *trainGraph) padRows(r, n int) int {
	for t := range n {
		tg.ids[r+t], tg.targets[r+t], tg.coef[r+t], tg.mode.pos[r+t] = 0, -1, 0, t
	}
	return n
}
