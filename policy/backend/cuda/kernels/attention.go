package kernels

// Launch functions of causal grouped-query attention. Shape legend: N
// rows, T rows per training sequence, H query heads, K key/value heads, D
// head dim, P cache positions.

import (
	"fmt"

	"github.com/artist-rl/artist/policy/backend"
)

// checkHeads returns an error naming the kernel when h cannot describe
// grouped-query attention.
func checkHeads(kernel string, h backend.Heads) error {
	if h.H <= 0 || h.K <= 0 || h.D <= 0 || h.H%h.K != 0 {
		return fmt.Errorf("kernels: %s: heads H=%d K=%d D=%d: H must be a positive multiple of K", kernel, h.H, h.K, h.D)
	}
	return nil
}

// attnShared is the dynamic shared memory of the attention kernels: the
// query row and an accumulator (D values each), a chunk of scores (one
// per thread) and a warp reduction scratch.
func attnShared(D int) int { return 4 * (2*D + blockAttn + warp) }

// tileRows is BR = BC of attention_tiled: query rows per block and keys
// per tile.
const tileRows = 16

// tiledShared is the dynamic shared memory of attention_tiled (its
// tile_layout): query and key tiles padded to D+1, value and accumulator
// tiles, the scores and three values per row.
func tiledShared(D int) int {
	return 4 * (2*tileRows*(D+1) + 2*tileRows*D + tileRows*(tileRows+1) + 3*tileRows)
}

// maxShared is the dynamic shared memory a kernel gets without opting in
// (cuFuncSetAttribute), on every GPU since sm_30.
const maxShared = 48 << 10

// oneRow makes Attention and AttentionBack take one query row per block
// at every head dim; tests set it to check those kernels too.
var oneRow = false

// Attention writes o [N, H·D] = softmax(q·kᵀ·Scale + causal mask)·v for
// the N/T sequences of T rows in q [N, H·D], k and v [N, K·D]. saved, when
// not 0, receives the probabilities, N·H·T values laid out [N/T, H, T, T]
// (row t holds t+1 probabilities, then zeros), which AttentionBack reads.
// A block computes a tile of 16 query rows of one head, with tiles of 16
// keys and values in shared memory and an online softmax; for head dims
// whose tiles do not fit 48 KiB (D > 186), a block computes one query row.
func Attention(l Launcher, o, saved, q, k, v uintptr, N int, h backend.Heads, T int) error {
	if err := checkHeads("Attention", h); err != nil {
		return err
	}
	if err := checkSizes("Attention", N, T); err != nil || N == 0 {
		return err
	}
	if T <= 0 || N%T != 0 {
		return fmt.Errorf("%w in Attention: N=%d is not a multiple of T=%d", errSize, N, T)
	}
	args := []any{o, saved, q, k, v, int32(T), int32(h.H), int32(h.K), int32(h.D), h.Scale}
	if shared := tiledShared(h.D); shared <= maxShared && !oneRow {
		grid := Dim3{X: uint32((T + tileRows - 1) / tileRows), Y: uint32(h.H), Z: uint32(N / T)}
		return launch(l, "attention_tiled", grid, threads(blockAttn), shared, args...)
	}
	grid := Dim3{X: uint32(T), Y: uint32(h.H), Z: uint32(N / T)}
	return launch(l, "attention_rows", grid, threads(blockAttn), attnShared(h.D), args...)
}

// kvRegs is KV_REGS of attention_back_kv_tiled: the dK and dV values
// each thread holds, so tiles of BC·D ≤ kvRegs·blockAttn.
const kvRegs = 24

// backShared returns the dynamic shared memory of attention_back_q_tiled
// and attention_back_kv_tiled.
func backShared(D int) (q, kv int) {
	q = 4 * (4*tileRows*(D+1) + tileRows*D + 2*tileRows*(tileRows+1) + 4*tileRows)
	kv = 4 * (2*tileRows*(D+1) + 2*tileRows*D + 2*tileRows*(tileRows+1) + 2*tileRows)
	return q, kv
}

// AttentionBack writes dq [N, H·D], dk and dv [N, K·D], the gradients of
// Attention given q, k, v, its output o, its saved probabilities (0 when
// it saved none: they are recomputed) and do. scratch is 2·N·H float32
// values of device memory the kernels overwrite (each query row's
// log-sum-exp and rowdot(do, o)). Two kernels run in order: the first
// writes dq and the scratch, a block per tile of 16 query rows and head;
// the second sums dk and dv, a block per tile of 16 keys and key/value
// head, over its query heads and rows in a fixed order (no atomics). For
// head dims whose tiles do not fit (D > 145), the blocks take one row.
func AttentionBack(l Launcher, dq, dk, dv, q, k, v, o, saved, do, scratch uintptr, N int, h backend.Heads, T int) error {
	if err := checkHeads("AttentionBack", h); err != nil {
		return err
	}
	if err := checkSizes("AttentionBack", N, T); err != nil || N == 0 {
		return err
	}
	if T <= 0 || N%T != 0 {
		return fmt.Errorf("%w in AttentionBack: N=%d is not a multiple of T=%d", errSize, N, T)
	}
	if scratch == 0 {
		return fmt.Errorf("%w in AttentionBack: it needs a scratch of 2·N·H values", errSize)
	}
	dims := []any{int32(T), int32(h.H), int32(h.K), int32(h.D), h.Scale}
	qArgs := append([]any{dq, scratch, q, k, v, o, saved, do}, dims...)
	kvArgs := append([]any{dk, dv, q, k, v, saved, do, scratch}, dims...)
	qShared, kvShared := backShared(h.D)
	if qShared <= maxShared && kvShared <= maxShared && tileRows*h.D <= kvRegs*blockAttn && !oneRow {
		tiles := uint32((T + tileRows - 1) / tileRows)
		err := launch(l, "attention_back_q_tiled", Dim3{X: tiles, Y: uint32(h.H), Z: uint32(N / T)}, threads(blockAttn), qShared, qArgs...)
		if err != nil {
			return err
		}
		return launch(l, "attention_back_kv_tiled", Dim3{X: tiles, Y: uint32(h.K), Z: uint32(N / T)}, threads(blockAttn), kvShared, kvArgs...)
	}
	grid := Dim3{X: uint32(T), Y: uint32(h.H), Z: uint32(N / T)}
	if err := launch(l, "attention_back_q", grid, threads(blockAttn), 4*(3*h.D+2*blockAttn+warp), qArgs...); err != nil {
		return err
	}
	grid.Y = uint32(h.K)
	return launch(l, "attention_back_kv", grid, threads(blockAttn), 4*(2*blockAttn/warp*h.D+2*h.D), kvArgs...)
}

// SpanWords is the number of uint64 words that PackSpans writes per span:
// the C struct SpanDesc {const float *k, *v; int row, n, p0, pad;}.
const SpanWords = 4

// PackSpans appends to dst, for each span i, the SpanDesc of
// AttendCached: the device addresses of the span's key and value caches
// keys[i] and vals[i] ([P, K·D] each) and the span's Row, N and P0. The
// caller uploads the words (8·SpanWords bytes per span, little-endian) to
// device memory and passes that address to AttendCached.
func PackSpans(dst []uint64, keys, vals []uintptr, spans []backend.Span) []uint64 {
	for i, sp := range spans {
		dst = append(dst, uint64(keys[i]), uint64(vals[i]),
			uint64(uint32(sp.Row))|uint64(uint32(sp.N))<<32, uint64(uint32(sp.P0)))
	}
	return dst
}

// maxGroup is MAX_GROUP of attend_cached: the most query heads per
// key/value head that it takes in one block.
const maxGroup = 8

// AttendCached is decoding attention: for each span, the rows of q and o
// [N, H·D] in the span attend causally over the span's caches, which
// already hold the span's own rows. desc is the device address of the
// spans' descriptors (PackSpans); spans, on the host, give their number
// and sizes for the grid. Rows of o outside every span are not written.
// A block computes one row for the query heads of one key/value head
// (up to 8 of them; one head per block beyond), reading each cached key
// and value once for them all.
func AttendCached(l Launcher, o, q, desc uintptr, spans []backend.Span, h backend.Heads) error {
	if err := checkHeads("AttendCached", h); err != nil {
		return err
	}
	rows := 0
	for _, sp := range spans {
		if sp.N < 0 || sp.P0 < 0 || sp.Row < 0 {
			return fmt.Errorf("%w in AttendCached: span %+v", errSize, sp)
		}
		rows = max(rows, sp.N)
	}
	if rows == 0 {
		return nil
	}
	args := []any{o, q, desc, int32(h.H), int32(h.K), int32(h.D), h.Scale}
	G := h.H / h.K
	if shared := 4 * G * (2*h.D + blockAttn + 3); G <= maxGroup && shared <= maxShared && !oneRow {
		grid := Dim3{X: uint32(rows), Y: uint32(h.K), Z: uint32(len(spans))}
		return launch(l, "attend_cached", grid, threads(blockAttn), shared, args...)
	}
	grid := Dim3{X: uint32(rows), Y: uint32(h.H), Z: uint32(len(spans))}
	return launch(l, "attend_cached_rows", grid, threads(blockAttn), attnShared(h.D), args...)
}
