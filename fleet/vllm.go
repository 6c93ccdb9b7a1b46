package fleet

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/artist-rl/artist/openai"
)

// Sync is how Push has the servers load new weights.
type Sync int

const (
	// UpdateFromDisk (the default) has each server load a new folder with
	// SGLang's POST /update_weights_from_disk and a weight_version, then
	// checks GET /get_model_info (artist serve, SGLang); every answer
	// after the push must carry that version.
	UpdateFromDisk Sync = iota
	// VLLMReload has each server re-read the folder it was started on
	// with vLLM's POST /collective_rpc {"method": "reload_weights"}
	// (VLLM_SERVER_DEV_MODE=1). vLLM reports no weight version, in its
	// model list or in its answers, so nothing after the reload is
	// checked against one, and answers carry none.
	VLLMReload
)

// CollectiveRPCPath is vLLM's development route that calls a method on
// every worker.
const CollectiveRPCPath = "/collective_rpc"

// rpcRequest is the body of POST /collective_rpc.
type rpcRequest struct {
	Method string `json:"method"`
}

// rpcAnswer is what POST /collective_rpc answers: nothing, or one result
// per worker; errors come as FastAPI's detail or an OpenAI-style error.
type rpcAnswer struct {
	Results []json.RawMessage `json:"results"`
	Detail  any               `json:"detail"`
	Error   any               `json:"error"`
	Object  string            `json:"object"` // "error" in older vLLM error bodies
}

// reload has s re-read its model folder (reload_weights). A connection
// that fails is an *unreachableError; an answer other than 200, or one
// that reports an error, is a refusal.
func reload(ctx context.Context, s *server) error {
	status, data, err := send(ctx, http.MethodPost, s.url+CollectiveRPCPath, rpcRequest{Method: "reload_weights"})
	if err != nil {
		return err
	}
	var ans rpcAnswer
	if len(bytes.TrimSpace(data)) > 0 && json.Unmarshal(data, &ans) != nil {
		ans.Error = "an answer that is not JSON"
	}
	if status != http.StatusOK || ans.Detail != nil || ans.Error != nil || ans.Object == "error" {
		return fmt.Errorf("POST %s%s reload_weights: %d %s: %s (start vLLM with VLLM_SERVER_DEV_MODE=1, which serves %s)",
			s.url, CollectiveRPCPath, status, http.StatusText(status), bytes.TrimSpace(data[:min(len(data), 300)]), CollectiveRPCPath)
	}
	return nil
}

// modelList is the part of GET /v1/models that Check reads.
type modelList struct {
	Data []struct {
		ID   string `json:"id"`
		Root string `json:"root"` // vLLM: the folder it was started on
	} `json:"data"`
}

// checkVLLM checks a server of a VLLMReload fleet: it must list a model
// (GET /v1/models; vLLM has no /get_model_info) and encode the probe text
// to the run's ids.
func (f *Fleet) checkVLLM(ctx context.Context, s *server) error {
	var list modelList
	if err := call(ctx, http.MethodGet, s.url+openai.ModelsPath, nil, &list); err != nil {
		return fmt.Errorf("fleet: server %s: %w", s.url, err)
	}
	if len(list.Data) == 0 {
		return fmt.Errorf("fleet: server %s lists no model at /v1/models: start it on the model folder (vllm serve DIR)", s.url)
	}
	return f.probe(ctx, s)
}

// reloadAll is Push for VLLMReload: every server in service re-reads
// dir, the folder it was started on, where the caller wrote the weights.
func (f *Fleet) reloadAll(ctx context.Context, dir string) (dropped, unreachable []string, err error) {
	for _, s := range f.live() {
		err := reload(ctx, s)
		var ue *unreachableError
		if errors.As(err, &ue) {
			f.drop(s)
			dropped, unreachable = append(dropped, s.url), append(unreachable, fmt.Sprintf("%s: %v", s.url, err))
			continue
		}
		if err != nil {
			return dropped, unreachable, fmt.Errorf("fleet: server %s did not reload %s: %w", s.url, dir, err)
		}
	}
	return dropped, unreachable, nil
}
