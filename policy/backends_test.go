package policy

import (
	_ "github.com/artist-rl/artist/policy/backend/cpu" // the tests build models; the command links the backends
	// The GPU backend, so that a device runs the model's tests on it
	// (TestBackendsAgree, and every test under ARTIST_BACKEND=cuda);
	// where no driver opens, it is passed over.
	_ "github.com/artist-rl/artist/policy/backend/cuda"
)
