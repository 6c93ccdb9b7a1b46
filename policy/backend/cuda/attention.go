package cuda

import (
	"fmt"

	"github.com/artist-rl/artist/policy/backend"
	"github.com/artist-rl/artist/policy/backend/cuda/kernels"
)

// Attention writes o [N, H·D], causal attention over the N/T sequences
// of T rows; saved holds N·H·T values or none.
func (b *Backend) Attention(o, saved, q, k, v backend.Tensor, h backend.Heads, T int) error {
	if err := b.args("Attention", o, saved, q, k, v); err != nil {
		return err
	}
	N, err := b.attnRows("Attention", q, k, h, T)
	if err != nil {
		return err
	}
	if err := b.fits("Attention", "o", o.Len(), N*h.H*h.D, "v", v.Len(), N*h.K*h.D); err != nil {
		return err
	}
	if saved.Len() > 0 {
		if err := b.fits("Attention", "saved", saved.Len(), N*h.H*T); err != nil {
			return err
		}
	}
	return b.wrap("Attention", kernels.Attention(b.dev, o.Addr(), saved.Addr(), q.Addr(), k.Addr(), v.Addr(), N, h, T))
}

// AttentionBack writes dq, dk and dv, the gradients of Attention; it
// needs 2·N·H values of scratch.
func (b *Backend) AttentionBack(dq, dk, dv, q, k, v, o, saved, do backend.Tensor, h backend.Heads, T int) error {
	if err := b.args("AttentionBack", dq, dk, dv, q, k, v, o, saved, do); err != nil {
		return err
	}
	N, err := b.attnRows("AttentionBack", q, k, h, T)
	if err != nil {
		return err
	}
	HD, KD := N*h.H*h.D, N*h.K*h.D
	if err := b.fits("AttentionBack", "dq", dq.Len(), HD, "dk", dk.Len(), KD, "dv", dv.Len(), KD,
		"v", v.Len(), KD, "o", o.Len(), HD, "do", do.Len(), HD); err != nil {
		return err
	}
	return b.withScratch(4*2*N*h.H, func(s uintptr) error {
		return b.wrap("AttentionBack", kernels.AttentionBack(b.dev, dq.Addr(), dk.Addr(), dv.Addr(),
			q.Addr(), k.Addr(), v.Addr(), o.Addr(), saved.Addr(), do.Addr(), s, N, h, T))
	})
}

// attnRows is the N of q [N, H·D], checked against k [N, K·D] and T.
func (b *Backend) attnRows(op string, q, k backend.Tensor, h backend.Heads, T int) (int, error) {
	if h.H <= 0 || h.K <= 0 || h.D <= 0 || T <= 0 {
		return 0, fmt.Errorf("%s: %s: heads %+v and T=%d must be positive", b.name, op, h, T)
	}
	N := q.Len() / (h.H * h.D)
	if N%T != 0 {
		return 0, fmt.Errorf("%s: %s: %d rows are not sequences of T=%d", b.name, op, N, T)
	}
	return N, b.fits(op, "k", k.Len(), N*h.K*h.D)
}

// AttendCached is decoding attention over each span's cache. The spans'
// descriptors (cache addresses, rows, positions) are uploaded to scratch
// with the launch.
func (b *Backend) AttendCached(o, q backend.Tensor, keys, vals []backend.Tensor, spans []backend.Span, h backend.Heads) error {
	if err := b.args("AttendCached", o, q); err != nil {
		return err
	}
	if len(keys) != len(spans) || len(vals) != len(spans) {
		return fmt.Errorf("%s: AttendCached: %d spans with %d key and %d value caches", b.name, len(spans), len(keys), len(vals))
	}
	ka, va := make([]uintptr, len(spans)), make([]uintptr, len(spans))
	HD, KD := h.H*h.D, h.K*h.D
	for i, sp := range spans {
		if err := b.args(fmt.Sprintf("AttendCached: span %d", i), keys[i], vals[i]); err != nil {
			return err
		}
		if err := b.fits("AttendCached", "q", q.Len(), (sp.Row+sp.N)*HD, "o", o.Len(), (sp.Row+sp.N)*HD,
			"a key cache", keys[i].Len(), (sp.P0+sp.N)*KD, "a value cache", vals[i].Len(), (sp.P0+sp.N)*KD); err != nil {
			return err
		}
		ka[i], va[i] = keys[i].Addr(), vals[i].Addr()
	}
	if len(spans) == 0 {
		return nil
	}
	words := kernels.PackSpans(nil, ka, va, spans)
	return b.withScratch(8*len(words), func(s uintptr) error {
		if err := b.dev.upload(s, wordBytes(words)); err != nil {
			return b.wrap("AttendCached", err)
		}
		return b.wrap("AttendCached", kernels.AttendCached(b.dev, o.Addr(), q.Addr(), s, spans, h))
	})
}
