package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/artist-rl/artist/checkpoint"
	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/policy"
)

// rolloutServer serves the tiny checkpoint as artist serve opens it, and
// returns a second weights folder for the same tokenizer (every weight
// scaled), which greedy decoding tells apart.
func rolloutServer(t *testing.T) (srv *httptest.Server, other string, tok *policy.Tokenizer) {
	t.Helper()
	dir := tinyCheckpoint(t)
	s, err := Open(dir, "tiny", 1, Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv = httptest.NewServer(s)
	t.Cleanup(srv.Close)
	ck, err := checkpoint.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := ck.Model.Clone()
	for _, p := range m.Params {
		for i := range p.Data {
			p.Data[i] *= -1.5
		}
	}
	other = filepath.Join(t.TempDir(), "v7")
	if err := checkpoint.WriteWeights(other, m, ck.Tok); err != nil {
		t.Fatal(err)
	}
	return srv, other, ck.Tok
}

func postAny(t *testing.T, url string, body any, out any) int {
	t.Helper()
	b, _ := json.Marshal(body)
	res, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if out != nil {
		json.NewDecoder(res.Body).Decode(out)
	}
	return res.StatusCode
}

func modelInfo(t *testing.T, url string) openai.ModelInfo {
	t.Helper()
	res, err := http.Get(url + openai.ModelInfoPath)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var info openai.ModelInfo
	if err := json.NewDecoder(res.Body).Decode(&info); err != nil {
		t.Fatal(err)
	}
	return info
}

// greedy is the text and weight_version of a greedy completion of "q\n".
func greedy(t *testing.T, url string) (string, string) {
	t.Helper()
	var out openai.Completion
	if code := postAny(t, url+openai.CompletionsPath, map[string]any{"prompt": "q\n", "max_tokens": 8, "temperature": 0, "return_token_ids": true}, &out); code != 200 {
		t.Fatalf("completion: status %d", code)
	}
	return out.Choices[0].Text, out.WeightVersion
}

// TestUpdateWeightsFromDisk: the folder loads as the version sent,
// get_model_info and every answer report it, and the answers come from
// the new weights; a folder that fails to load keeps the old weights and
// the error names the file.
func TestUpdateWeightsFromDisk(t *testing.T) {
	srv, other, _ := rolloutServer(t)
	info := modelInfo(t, srv.URL)
	if info.WeightVersion != defaultVersion || info.WeightsSHA256 == "" || info.TokenizerSHA256 == "" {
		t.Fatalf("start: %+v", info)
	}
	before, v := greedy(t, srv.URL)
	if v != defaultVersion {
		t.Fatalf("answer weight_version %q, want %q", v, defaultVersion)
	}
	var ans openai.UpdateWeightsAnswer
	if code := postAny(t, srv.URL+openai.UpdateWeightsPath, map[string]any{"model_path": other, "weight_version": 7}, &ans); code != 200 || !ans.Success {
		t.Fatalf("update: status %d %+v", code, ans)
	}
	after, v := greedy(t, srv.URL)
	info2 := modelInfo(t, srv.URL)
	want, _ := checkpoint.FileSHA256(other, weightsFile)
	if v != "7" || info2.WeightVersion != "7" || info2.WeightsSHA256 != want || info2.ModelPath != other || after == before {
		t.Fatalf("after the update: answer version %q text %q (before %q), info %+v", v, after, before, info2)
	}

	damaged := filepath.Join(t.TempDir(), "bad")
	os.CopyFS(damaged, os.DirFS(other))
	b, _ := os.ReadFile(filepath.Join(damaged, weightsFile))
	b[len(b)-2] ^= 1
	os.WriteFile(filepath.Join(damaged, weightsFile), b, 0o644)
	otherTok := filepath.Join(t.TempDir(), "tok")
	ck, _ := checkpoint.Open(other, nil)
	tokDir := t.TempDir()
	if err := policy.WriteByteLevelTokenizer(tokDir, []string{"<x>"}, "<x>"); err != nil {
		t.Fatal(err)
	}
	tok2, err := policy.LoadTokenizer(filepath.Join(tokDir, policy.TokenizerJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := checkpoint.WriteWeights(otherTok, ck.Model, tok2); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, dir, file string
	}{
		{"damaged weights", damaged, weightsFile},
		{"another tokenizer", otherTok, policy.TokenizerJSONFile},
		{"no such folder", filepath.Join(t.TempDir(), "missing"), "missing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var ans openai.UpdateWeightsAnswer
			code := postAny(t, srv.URL+openai.UpdateWeightsPath, map[string]any{"model_path": c.dir, "weight_version": "8"}, &ans)
			if code != http.StatusBadRequest || ans.Success || !strings.Contains(ans.Message, c.file) {
				t.Errorf("status %d %+v, want a 400 naming %s", code, ans, c.file)
			}
			if text, v := greedy(t, srv.URL); v != "7" || text != after {
				t.Errorf("after a failed load: version %q text %q, want the old 7 %q", v, text, after)
			}
		})
	}
}

// TestUpdateWhileInFlight: a request in flight during a pause and an
// update finishes on the weights it started on; pause holds it and
// continue lets it go; the next request decodes on the new weights.
func TestUpdateWhileInFlight(t *testing.T) {
	srv, other, _ := rolloutServer(t)
	old, _ := greedy(t, srv.URL)
	if code := postAny(t, srv.URL+openai.PauseGenerationPath, map[string]any{}, nil); code != 200 {
		t.Fatalf("pause: %d", code)
	}
	type result struct {
		text, version string
	}
	done := make(chan result, 1)
	go func() {
		text, v := greedy(t, srv.URL)
		done <- result{text, v}
	}()
	select {
	case r := <-done:
		t.Fatalf("a paused server answered %+v", r)
	case <-time.After(300 * time.Millisecond):
	}
	if code := postAny(t, srv.URL+openai.UpdateWeightsPath, map[string]any{"model_path": other, "weight_version": "1"}, nil); code != 200 {
		t.Fatalf("update while paused: %d", code)
	}
	if code := postAny(t, srv.URL+openai.ContinueGenerationPath, map[string]any{}, nil); code != 200 {
		t.Fatalf("continue: %d", code)
	}
	var r result
	select {
	case r = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the request did not finish after continue_generation")
	}
	if r.version != defaultVersion || r.text != old {
		t.Errorf("in-flight request: version %q text %q, want %q %q (the weights it started on)", r.version, r.text, defaultVersion, old)
	}
	if text, v := greedy(t, srv.URL); v != "1" || text == old {
		t.Errorf("next request: version %q text %q, want version 1 and new text", v, text)
	}
}
