package fleet_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/artist-rl/artist/checkpoint"
	"github.com/artist-rl/artist/fleet"
	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/server"
)

// vllmServer is artist serve started on a model folder, behind a handler
// that speaks vLLM's side of the protocol: POST /collective_rpc
// reload_weights re-reads that folder (here as an update_weights_from_disk
// of it), there is no /get_model_info or /update_weights_from_disk, and
// completion answers carry no weight_version.
type vllmServer struct {
	*httptest.Server
	reloads atomic.Int64
}

func startVLLM(t *testing.T, modelDir string) *vllmServer {
	t.Helper()
	s, err := server.Open(modelDir, "tiny", 1, server.Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	v := &vllmServer{}
	v.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case fleet.CollectiveRPCPath:
			var in struct {
				Method string `json:"method"`
			}
			if json.NewDecoder(r.Body).Decode(&in); in.Method != "reload_weights" {
				http.Error(w, `{"detail":"unknown method"}`, http.StatusInternalServerError)
				return
			}
			v.reloads.Add(1)
			body, _ := json.Marshal(openai.UpdateWeightsRequest{ModelPath: modelDir})
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, openai.UpdateWeightsPath, bytes.NewReader(body)))
			if rec.Code != http.StatusOK {
				http.Error(w, rec.Body.String(), http.StatusInternalServerError)
				return
			}
			io.WriteString(w, `{"results":[null]}`)
		case openai.ModelInfoPath, openai.UpdateWeightsPath:
			http.Error(w, `{"detail":"Not Found"}`, http.StatusNotFound)
		case openai.CompletionsPath:
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, r)
			var ans map[string]any
			if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &ans) != nil {
				w.WriteHeader(rec.Code)
				w.Write(rec.Body.Bytes())
				return
			}
			delete(ans, "weight_version")
			json.NewEncoder(w).Encode(ans)
		default:
			s.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(v.Close)
	return v
}

// modelFolder copies the model and tokenizer files of the checkpoint src
// into a new folder, as one prepares a folder to start vLLM on (vLLM would
// load optimizer.safetensors too).
func modelFolder(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "model")
	if err := os.Mkdir(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !slices.Contains(append([]string{"config.json", "model.safetensors"}, policy.TokenizerFileNames...), e.Name()) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err == nil {
			err = os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// TestTrainOnVLLMReload: with weight_sync vllm-reload the trainer writes
// each version over the servers' model folder and has both re-read it,
// once per version; the run trains what the same seed trains in
// process, bit for bit (a server left on old weights would sample other
// rollouts), and the folder ends with the last weights pushed and the
// tokenizer files untouched.
func TestTrainOnVLLMReload(t *testing.T) {
	if testing.Short() {
		t.Skip("trains tiny runs")
	}
	modelDir := modelFolder(t, serverCheckpoint(t))
	tokBefore, err := os.ReadFile(filepath.Join(modelDir, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	a, b := startVLLM(t, modelDir), startVLLM(t, modelDir)
	dir := t.TempDir()
	if err := train(dir, "rollout.servers=["+a.URL+","+b.URL+"]", "rollout.weight_sync=vllm-reload", "rollout.vllm_model_dir="+modelDir); err != nil {
		t.Fatal(err)
	}
	sameRun(t, dir)
	const pushes = 2 // grpo.steps: the weights before step 1 and before step 2
	for i, s := range []*vllmServer{a, b} {
		if n := s.reloads.Load(); n != pushes {
			t.Errorf("server %d reloaded %d times, want %d", i, n, pushes)
		}
	}
	// The folder holds the last version pushed: the weights after step 1.
	got, err := checkpoint.FileSHA256(modelDir, "model.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	if want, err := checkpoint.FileSHA256(filepath.Join(dir, "checkpoints", "step-000001"), "model.safetensors"); err != nil || got != want {
		t.Errorf("the model folder's weights sha256 %s, the step-1 checkpoint's %s (%v)", got, want, err)
	}
	if tok, err := os.ReadFile(filepath.Join(modelDir, "tokenizer.json")); err != nil || !bytes.Equal(tok, tokBefore) {
		t.Errorf("tokenizer.json changed or went missing (%v)", err)
	}
	entries, _ := os.ReadDir(modelDir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".tmp") {
			t.Errorf("%s left in the model folder", e.Name())
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "rollout-weights")); !os.IsNotExist(err) {
		t.Errorf("rollout-weights written under the run folder with vllm-reload (%v)", err)
	}
}

// TestVLLMReloadRefusedFolder: a model folder that holds another weights
// file is refused before any rollout, by name.
func TestVLLMReloadRefusedFolder(t *testing.T) {
	if testing.Short() {
		t.Skip("trains tiny runs")
	}
	modelDir := modelFolder(t, serverCheckpoint(t))
	a := startVLLM(t, modelDir)
	if err := os.WriteFile(filepath.Join(modelDir, "model-00001-of-00002.safetensors"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err := train(t.TempDir(), "rollout.servers=["+a.URL+"]", "rollout.weight_sync=vllm-reload", "rollout.vllm_model_dir="+modelDir)
	if err == nil || !strings.Contains(err.Error(), "model-00001-of-00002.safetensors") || !strings.Contains(err.Error(), "rollout.vllm_model_dir") {
		t.Fatalf("err = %v, want the extra weights file named", err)
	}
	if n := a.reloads.Load(); n != 0 {
		t.Errorf("%d reloads of a refused folder", n)
	}
}
