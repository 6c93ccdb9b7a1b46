package openai

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// The rollout-server control routes, with SGLang's names and bodies, so
// that a trainer drives artist serve and SGLang alike.
const (
	UpdateWeightsPath      = "/update_weights_from_disk"
	ModelInfoPath          = "/get_model_info"
	PauseGenerationPath    = "/pause_generation"
	ContinueGenerationPath = "/continue_generation"
)

// UpdateWeightsRequest is the body of POST /update_weights_from_disk:
// load the model folder ModelPath and serve it as WeightVersion.
type UpdateWeightsRequest struct {
	ModelPath     string  `json:"model_path"`
	WeightVersion Version `json:"weight_version,omitempty"`
}

// UpdateWeightsAnswer is the answer of POST /update_weights_from_disk, as
// SGLang writes it; Message says why when Success is false.
type UpdateWeightsAnswer struct {
	Success       bool   `json:"success"`
	Message       string `json:"message"`
	WeightVersion string `json:"weight_version,omitempty"`
}

// ModelInfo is the answer of GET /get_model_info: SGLang's fields
// (model_path, tokenizer_path, is_generation, weight_version) and
// artist's digests of the served files, by which a trainer checks that a
// server holds its tokenizer and the weights it sent.
type ModelInfo struct {
	ModelPath       string `json:"model_path"`
	TokenizerPath   string `json:"tokenizer_path"`
	IsGeneration    bool   `json:"is_generation"`
	WeightVersion   string `json:"weight_version"`
	MaxModelLen     int    `json:"max_model_len,omitempty"`
	WeightsSHA256   string `json:"weights_sha256,omitempty"`
	TokenizerSHA256 string `json:"tokenizer_sha256,omitempty"`
}

// Version is a weight_version: SGLang's is a string; a JSON number is
// taken as its decimal text.
type Version string

// UnmarshalJSON accepts a JSON string or number.
func (v *Version) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*v = Version(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("weight_version must be a string or a number, got %s", b)
	}
	*v = Version(n.String())
	return nil
}

// VersionOf is the weight_version of training step n.
func VersionOf(n int) Version { return Version(strconv.Itoa(n)) }
