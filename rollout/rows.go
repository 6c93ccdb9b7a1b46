package rollout

// perSequence is Rows over a policy whose sessions cannot add sequences:
// each sequence is a session of its own (NewSession(1, maxLen)), and a
// step steps the fed ones one after another. The engine's batcher decodes
// on it when the policy's sessions are not Rows.
type perSequence struct {
	p      Policy
	maxLen int
	seqs   []Session
}

// Add opens the sequence's session.
func (s *perSequence) Add() int {
	s.seqs = append(s.seqs, s.p.NewSession(1, s.maxLen))
	return len(s.seqs) - 1
}

// Reset closes sequence i's session and opens a fresh one.
func (s *perSequence) Reset(i int) {
	closeSession(s.seqs[i])
	s.seqs[i] = s.p.NewSession(1, s.maxLen)
}

// Size is the number of sequences.
func (s *perSequence) Size() int { return len(s.seqs) }

// Step steps each fed sequence's session on its feed.
func (s *perSequence) Step(feed [][]int) ([][]float32, error) {
	out := make([][]float32, len(feed))
	for i, f := range feed {
		if len(f) == 0 {
			continue
		}
		l, err := s.seqs[i].Step([][]int{f})
		if err != nil {
			return nil, err
		}
		out[i] = l[0]
	}
	return out, nil
}

// Close closes every sequence's session.
func (s *perSequence) Close() {
	for _, q := range s.seqs {
		closeSession(q)
	}
}
