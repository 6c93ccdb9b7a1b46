package server

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"sync"

	"github.com/artist-rl/artist/checkpoint"
	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/rollout"
)

// weightsFile is the weights file of a checkpoint folder.
const weightsFile = "model.safetensors"

// defaultVersion is the weight_version of the weights a server starts
// with, as SGLang names it.
const defaultVersion = "default"

// weights is one version of the served model. A request takes the current
// one when it starts and decodes on it to its end, so a swap never changes
// the weights under a request in flight.
type weights struct {
	model   *policy.Model
	batch   *rollout.Batcher // decodes the requests on model together
	policy  rollout.Policy   // when set, decodes each request alone instead (tests script it)
	version string
	dir     string // the folder it was loaded from; "" for a model given to New
	sha     string // SHA-256 of dir's model.safetensors; "" when unknown
}

// current is the weights new requests decode on.
func (s *Server) current() *weights { return s.cur.Load() }

// updateWeights answers POST /update_weights_from_disk: it loads and
// verifies the folder (checkpoint.Open: every file against its
// manifest), checks that it holds the served model's shape and tokenizer,
// and swaps it in for new requests. On any failure the old weights stay
// and the answer (400, success false) names the file at fault.
func (s *Server) updateWeights(w http.ResponseWriter, r *http.Request) error {
	var in openai.UpdateWeightsRequest
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	if in.ModelPath == "" {
		return badField("model_path", "model_path is required: the checkpoint folder to load")
	}
	s.loadMu.Lock()
	defer s.loadMu.Unlock()
	nw, err := s.load(in.ModelPath, string(in.WeightVersion))
	if err != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		writeBody(w, openai.UpdateWeightsAnswer{Success: false, Message: err.Error()})
		return nil
	}
	s.cur.Store(nw)
	writeJSON(w, openai.UpdateWeightsAnswer{Success: true, Message: fmt.Sprintf("serving %s as weight_version %s", nw.dir, nw.version), WeightVersion: nw.version})
	return nil
}

// load reads the folder dir as weight version version ("" names it by the
// folder).
func (s *Server) load(dir, version string) (*weights, error) {
	ck, err := checkpoint.Open(dir, nil)
	if err != nil {
		return nil, fmt.Errorf("server: update_weights_from_disk: %w", err)
	}
	old := s.current()
	if ck.Model.Config != old.model.Config {
		return nil, fmt.Errorf("server: update_weights_from_disk: %s describes another model (%+v) than the one served (%+v): start a server for it",
			filepath.Join(dir, "config.json"), ck.Model.Config, old.model.Config)
	}
	if s.tokSHA != "" {
		sha, err := checkpoint.FileSHA256(dir, policy.TokenizerJSONFile)
		if err != nil {
			return nil, fmt.Errorf("server: update_weights_from_disk: %w", err)
		}
		if sha != s.tokSHA {
			return nil, fmt.Errorf("server: update_weights_from_disk: %s differs from the served tokenizer (sha256 %s, served %s): weights for another tokenizer need another server",
				filepath.Join(dir, policy.TokenizerJSONFile), sha, s.tokSHA)
		}
	}
	sha, err := checkpoint.FileSHA256(dir, weightsFile)
	if err != nil {
		return nil, fmt.Errorf("server: update_weights_from_disk: %w", err)
	}
	if version == "" {
		version = filepath.Base(filepath.Clean(dir))
	}
	return &weights{model: ck.Model, batch: newBatcher(ck.Model), version: version, dir: dir, sha: sha}, nil
}

// modelInfo answers GET /get_model_info.
func (s *Server) modelInfo(w http.ResponseWriter, r *http.Request) error {
	cur := s.current()
	writeJSON(w, openai.ModelInfo{ModelPath: cur.dir, TokenizerPath: s.tokDir, IsGeneration: true, WeightVersion: cur.version,
		MaxModelLen: s.context(), WeightsSHA256: cur.sha, TokenizerSHA256: s.tokSHA})
	return nil
}

// pauseGeneration answers POST /pause_generation: requests in flight stop
// between two tokens and new ones wait, until /continue_generation.
func (s *Server) pauseGeneration(w http.ResponseWriter, r *http.Request) error {
	s.gate.pause()
	writeJSON(w, map[string]any{"success": true, "message": "generation paused"})
	return nil
}

// continueGeneration answers POST /continue_generation.
func (s *Server) continueGeneration(w http.ResponseWriter, r *http.Request) error {
	s.gate.resume()
	writeJSON(w, map[string]any{"success": true, "message": "generation continues"})
	return nil
}

// gate holds generation while paused.
type gate struct {
	mu      sync.Mutex
	paused  bool
	open    chan struct{} // closed while not paused
	waiting int           // requests held now
}

func newGate() *gate {
	g := &gate{open: make(chan struct{})}
	close(g.open)
	return g
}

func (g *gate) pause() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.paused {
		g.paused, g.open = true, make(chan struct{})
	}
}

func (g *gate) resume() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.paused {
		g.paused = false
		close(g.open)
	}
}

// wait returns once generation is not paused, or with ctx's error.
func (g *gate) wait(ctx context.Context) error {
	g.mu.Lock()
	open, paused := g.open, g.paused
	if paused {
		g.waiting++
	}
	g.mu.Unlock()
	if paused {
		defer func() {
			g.mu.Lock()
			g.waiting--
			g.mu.Unlock()
		}()
	}
	select {
	case <-open:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// held is the number of requests the gate holds now.
func (g *gate) held() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.waiting
}
