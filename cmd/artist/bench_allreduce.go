package main

// artist bench -allreduce: the data-parallel gradient all-reduce on this
// job's ranks against a memory copy of the same bytes.

import (
	"errors"
	"fmt"
	"io"
	"math/rand"
	"time"

	"github.com/artist-rl/artist/collective"
)

// allReduceReport is what artist bench -allreduce prints (rank 0).
type allReduceReport struct {
	Ranks      int    `json:"ranks"`
	Collective string `json:"collective"`
	Floats     int    `json:"floats"` // float32 values per all-reduce: the model's gradient
	Bytes      int    `json:"bytes"`
	Steps      int    `json:"steps"`
	// Medians over Steps repetitions.
	AllReduceS float64 `json:"allreduce_s"`
	// AlgGBps is bytes / time; BusGBps scales it by 2(n-1)/n, the bytes a
	// ring all-reduce moves per rank, comparable across rank counts.
	AlgGBps float64 `json:"alg_gb_per_s"`
	BusGBps float64 `json:"bus_gb_per_s"`
	// MemcpyS is one copy of the same bytes in one process.
	MemcpyS    float64 `json:"memcpy_s"`
	MemcpyGBps float64 `json:"memcpy_gb_per_s"`
	// Ratio is AllReduceS / MemcpyS.
	Ratio float64 `json:"allreduce_over_memcpy"`
}

// benchAllReduce times AllReduceFloat32 of floats values over the job's
// ranks (artist bench runs under mpirun -np N) and a copy of the same
// bytes.
func benchAllReduce(floats int, s benchSettings, stdout io.Writer) error {
	c, err := collective.Open()
	if err != nil {
		return err
	}
	defer c.Close()
	if c.Size() < 2 {
		return errors.New("artist bench -allreduce needs 2 or more ranks: run it under mpirun -np 2 (or srun)")
	}
	rng := rand.New(rand.NewSource(s.seed + int64(c.Rank())))
	buf := make([]float32, floats)
	for i := range buf {
		buf[i] = float32(rng.NormFloat64())
	}
	var red []float64
	for i := range s.warmup + s.steps {
		if err := c.Barrier(); err != nil {
			return err
		}
		start := time.Now()
		if err := c.AllReduceFloat32(buf); err != nil {
			return err
		}
		if i >= s.warmup {
			red = append(red, time.Since(start).Seconds())
		}
		for j := range buf { // keep the values finite and moving
			buf[j] /= float32(c.Size())
		}
	}
	dst := make([]float32, floats)
	var cp []float64
	for i := range s.warmup + s.steps {
		start := time.Now()
		copy(dst, buf)
		if i >= s.warmup {
			cp = append(cp, time.Since(start).Seconds())
		}
	}
	if c.Rank() != 0 {
		return nil
	}
	n, b := c.Size(), 4*floats
	rep := allReduceReport{Ranks: n, Collective: fmt.Sprintf("%T", c), Floats: floats, Bytes: b, Steps: s.steps,
		AllReduceS: benchMedian(red), MemcpyS: benchMedian(cp)}
	rep.AlgGBps = float64(b) / rep.AllReduceS / 1e9
	rep.BusGBps = rep.AlgGBps * 2 * float64(n-1) / float64(n)
	rep.MemcpyGBps = float64(b) / rep.MemcpyS / 1e9
	rep.Ratio = rep.AllReduceS / rep.MemcpyS
	rep.AllReduceS, rep.MemcpyS = benchRound(rep.AllReduceS, 9), benchRound(rep.MemcpyS, 9)
	rep.AlgGBps, rep.BusGBps = benchRound(rep.AlgGBps, 3), benchRound(rep.BusGBps, 3)
	rep.MemcpyGBps, rep.Ratio = benchRound(rep.MemcpyGBps, 3), benchRound(rep.Ratio, 2)
	return benchPrintJSON(stdout, rep)
}
