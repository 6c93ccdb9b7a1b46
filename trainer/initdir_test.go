package trainer

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestMissingInit: an init folder that does not exist fails Setup before
// the tokenizer inside it is read, naming the folder and the download
// command.
func TestMissingInit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "Qwen2.5-7B-Instruct")
	for _, c := range []struct{ init, want string }{
		{dir, "folder " + dir + " does not exist: download Qwen/Qwen2.5-7B-Instruct into it (huggingface-cli download Qwen/Qwen2.5-7B-Instruct --local-dir " + dir + ")"},
		{filepath.Join(t.TempDir(), "mine"), "huggingface-cli download ORG/MODEL --local-dir"},
	} {
		cfg := DefaultConfig()
		cfg.Init, cfg.Tokenizer = c.init, filepath.Join(c.init, "tokenizer.json")
		if _, err := Setup(context.Background(), cfg, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("init %s: error %v, want one containing %q", c.init, err, c.want)
		}
	}
}
