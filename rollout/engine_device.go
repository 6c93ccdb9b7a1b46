package rollout

import "fmt"

// decoder steps the engine's session and keeps, for each row a step
// fed, what its next token comes from: the row's logits, which the host
// samples, or, on a DeviceSession that can sample, the token the device
// drew. Either way a row's uniform number comes from its own stream
// (row.draw), one per token and only at a temperature above 0, so a seed
// fixes the trajectories on both paths.
type decoder struct {
	r    *runner
	sess Session
	dev  DeviceSession // nil: the host samples

	logits [][]float32 // host: by row, the logits of the steps since the last draws
	toks   []int       // device: by row, the tokens drawn
	lps    []float32   // device: their log-probs
	nucs   []float32   // device: their nucleus log-probs
}

// newDecoder decodes n rows on sess, sampling on the device when sess is
// a DeviceSession whose CanSampleOnDevice says it can.
func (r *runner) newDecoder(sess Session, n int) *decoder {
	d := &decoder{r: r, sess: sess}
	if ds, ok := sess.(DeviceSession); ok && ds.CanSampleOnDevice() {
		d.dev = ds
		d.toks, d.lps, d.nucs = make([]int, n), make([]float32, n), make([]float32, n)
	}
	return d
}

// step feeds the rows their pending tokens (active lists the rows fed);
// fresh starts a decoding step, otherwise the step's rows are added to
// those of the last call (rows resumed after their tool calls).
func (d *decoder) step(rows []*row, feed [][]int, active []int, fresh bool) error {
	if d.dev == nil {
		if fresh {
			logits, err := d.sess.Step(feed)
			d.logits = logits
			return err
		}
		return stepInto(d.sess, feed, d.logits)
	}
	var us []float64
	if d.r.sampler.temperature != 0 {
		us = make([]float64, len(feed))
		for _, i := range active {
			us[i] = rows[i].draw()
		}
	}
	toks, lps, nucs, err := d.dev.StepSample(feed, us, d.r.sampler.temperature, min(d.r.sampler.topP, 1))
	if err != nil {
		return err
	}
	if len(toks) != len(rows) || len(lps) != len(rows) || len(nucs) != len(rows) {
		return fmt.Errorf("session drew %d tokens for %d sequences", len(toks), len(rows))
	}
	for _, i := range active {
		d.toks[i], d.lps[i], d.nucs[i] = toks[i], lps[i], nucs[i]
	}
	return nil
}

// draws returns the tokens of the active rows (those fed since the last
// draws) with their log-probs and nucleus log-probs.
func (d *decoder) draws(rows []*row, active []int) (toks []int, lps, nucs []float32, err error) {
	if d.dev == nil {
		return d.r.sampleHost(d.logits, rows, active)
	}
	toks, lps, nucs = make([]int, len(active)), make([]float32, len(active)), make([]float32, len(active))
	for k, i := range active {
		if d.toks[i] < 0 {
			return nil, nil, nil, fmt.Errorf("rollout: sequence %d: the session drew no token", i)
		}
		toks[k], lps[k], nucs[k] = d.toks[i], d.lps[i], d.nucs[i]
	}
	return toks, lps, nucs, nil
}

// sampleHost draws the active rows' tokens from their logits on the
// host, at uniform numbers drawn from the rows' streams in row order;
// rows go in parallel when the step is large.
func (r *runner) sampleHost(logits [][]float32, rows []*row, active []int) (toks []int, lps, nucs []float32, err error) {
	if len(logits) != len(rows) {
		return nil, nil, nil, fmt.Errorf("rollout: session returned %d logit rows for %d sequences", len(logits), len(rows))
	}
	us := make([]float64, len(active))
	if r.sampler.temperature != 0 {
		for k := range us {
			us[k] = rows[active[k]].draw()
		}
	}
	toks = make([]int, len(active))
	lps = make([]float32, len(active))
	nucs = make([]float32, len(active))
	errs := make([]error, len(active))
	one := func(k int) { toks[k], lps[k], nucs[k], errs[k] = r.sampler.draw(logits[active[k]], us[k]) }
	if len(active)*len(logits[active[0]]) >= parallelWork {
		parallel(len(active), one)
	} else {
		for k := range active {
			one(k)
		}
	}
	for k, i := range active {
		if errs[k] != nil {
			return nil, nil, nil, fmt.Errorf("rollout: sequence %d: %w", i, errs[k])
		}
	}
	return toks, lps, nucs, nil
}
