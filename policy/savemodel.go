package policy

// Writing a model folder in HuggingFace's layout.

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/artist-rl/artist/internal/atomicfile"
)

// SaveModel writes dir/model.safetensors (F32, HuggingFace names; a tied head
// is stored once, as model.embed_tokens.weight) and dir/config.json, each
// atomically, creating dir if needed. Weights frozen in bfloat16
// (Freeze16, FreezeBase16) are written as BF16 tensors, the bits they
// hold: LoadModel reads them back widened, LoadModel16 (or LoadModel then
// Freeze16) bit for bit, so a LoRA checkpoint over a bfloat16 base
// resumes on the same base. Adapters are not written (SaveAdapter).
func SaveModel(dir string, m *Model) error {
	if err := m.Config.Validate(); err != nil {
		return fmt.Errorf("policy: save model: %w", err)
	}
	if err := m.HostWeights(); err != nil {
		return fmt.Errorf("policy: save model: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("policy: save model: %w", err)
	}
	tensors := make([]NamedTensor, len(m.Params))
	for i, p := range m.Params {
		tensors[i] = NamedTensor{Name: p.Name, Shape: p.Shape, Data: p.Data, BF16: p.half}
	}
	if err := WriteSafetensors(filepath.Join(dir, "model.safetensors"), tensors); err != nil {
		return fmt.Errorf("policy: save model: %w", err)
	}
	cfg, err := marshalJSON(hfModelConfig{
		Architectures: []string{"Qwen2ForCausalLM"}, ModelType: "qwen2",
		HiddenAct: "silu", TorchDtype: "float32", Config: m.Config,
	})
	if err == nil {
		err = atomicfile.WriteFile(filepath.Join(dir, "config.json"), cfg, 0o644)
	}
	if err != nil {
		return fmt.Errorf("policy: save model: %w", err)
	}
	return nil
}
