package policy

// Adapters on disk in PEFT's layout, which PEFT's PeftModel.from_pretrained
// and vLLM's --enable-lora load: adapter_config.json and
// adapter_model.safetensors with PEFT's tensor names.

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/artist-rl/artist/internal/atomicfile"
)

// Adapter file names in a checkpoint folder.
const (
	AdapterConfigFile  = "adapter_config.json"
	AdapterWeightsFile = "adapter_model.safetensors"
)

// PEFTConfig is adapter_config.json: the keys PEFT's LoraConfig writes
// that a loader reads. artist writes bias "none", no fan_in_fan_out, no
// rsLoRA or DoRA, and reads back only adapters of that kind.
type PEFTConfig struct {
	PeftType            string   `json:"peft_type"`
	TaskType            string   `json:"task_type"`
	BaseModelNameOrPath string   `json:"base_model_name_or_path"`
	R                   int      `json:"r"`
	LoraAlpha           float64  `json:"lora_alpha"`
	LoraDropout         float64  `json:"lora_dropout"`
	TargetModules       []string `json:"target_modules"`
	Bias                string   `json:"bias"`
	FanInFanOut         bool     `json:"fan_in_fan_out"`
	InferenceMode       bool     `json:"inference_mode"`
	InitLoraWeights     bool     `json:"init_lora_weights"`
	UseRSLoRA           bool     `json:"use_rslora"`
	UseDoRA             bool     `json:"use_dora"`
	ModulesToSave       []string `json:"modules_to_save"`
	LayersToTransform   []int    `json:"layers_to_transform"`
	RankPattern         struct{} `json:"rank_pattern"`
	AlphaPattern        struct{} `json:"alpha_pattern"`
	Revision            *string  `json:"revision"`
}

// SaveAdapter writes m's adapters to dir as adapter_config.json and
// adapter_model.safetensors (F32), each atomically, creating dir if
// needed. base names the base model in base_model_name_or_path.
func SaveAdapter(dir string, m *Model, base string) error {
	l := m.lora
	if l == nil {
		return errors.New("policy: save adapter: the model has no adapters")
	}
	if err := m.HostWeights(); err != nil {
		return fmt.Errorf("policy: save adapter: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("policy: save adapter: %w", err)
	}
	var tensors []NamedTensor
	for _, p := range l.Params() {
		tensors = append(tensors, NamedTensor{Name: p.Name, Shape: p.Shape, Data: p.Data})
	}
	if err := WriteSafetensors(filepath.Join(dir, AdapterWeightsFile), tensors); err != nil {
		return fmt.Errorf("policy: save adapter: %w", err)
	}
	cfg := PEFTConfig{PeftType: "LORA", TaskType: "CAUSAL_LM", BaseModelNameOrPath: base,
		R: l.Config.Rank, LoraAlpha: l.Config.Alpha, LoraDropout: l.Config.Dropout,
		Bias: "none", InferenceMode: true, InitLoraWeights: true}
	for t := range numTargets {
		if l.has(t) {
			cfg.TargetModules = append(cfg.TargetModules, loraModules[t].short+"_proj")
		}
	}
	b, err := marshalJSON(cfg)
	if err == nil {
		err = atomicfile.WriteFile(filepath.Join(dir, AdapterConfigFile), b, 0o644)
	}
	if err != nil {
		return fmt.Errorf("policy: save adapter: %w", err)
	}
	return nil
}

// has reports whether target t has adapters.
func (l *LoRA) has(t loraTarget) bool {
	return len(l.at) > 0 && l.at[0][t] != nil
}

// HasAdapter reports whether dir holds adapter_config.json.
func HasAdapter(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, AdapterConfigFile))
	return err == nil
}

// ReadAdapterConfig reads dir/adapter_config.json as the LoRAConfig it
// describes, refusing adapters artist does not compute (another
// peft_type, a bias, fan_in_fan_out, rsLoRA, DoRA, per-module ranks or
// layers, modules_to_save) or a target outside Qwen2's seven.
func ReadAdapterConfig(dir string) (LoRAConfig, error) {
	path := filepath.Join(dir, AdapterConfigFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return LoRAConfig{}, fmt.Errorf("policy: adapter: %w", err)
	}
	var raw struct {
		PEFTConfig
		RankPattern  map[string]any `json:"rank_pattern"`
		AlphaPattern map[string]any `json:"alpha_pattern"`
		Bias         *string        `json:"bias"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return LoRAConfig{}, fmt.Errorf("policy: adapter: %s: %w", path, err)
	}
	p := raw.PEFTConfig
	var why string
	switch {
	case p.PeftType != "LORA":
		why = fmt.Sprintf("peft_type is %q, want LORA", p.PeftType)
	case raw.Bias != nil && *raw.Bias != "none":
		why = fmt.Sprintf("bias is %q, want none", *raw.Bias)
	case p.FanInFanOut || p.UseRSLoRA || p.UseDoRA:
		why = "fan_in_fan_out, use_rslora and use_dora must be false"
	case len(raw.RankPattern) > 0 || len(raw.AlphaPattern) > 0 || len(p.LayersToTransform) > 0 || len(p.ModulesToSave) > 0:
		why = "rank_pattern, alpha_pattern, layers_to_transform and modules_to_save must be empty"
	}
	if why != "" {
		return LoRAConfig{}, fmt.Errorf("policy: adapter %s: %s", path, why)
	}
	cfg := LoRAConfig{Rank: p.R, Alpha: p.LoraAlpha, Dropout: p.LoraDropout, Targets: slices.Clone(p.TargetModules)}
	if cfg.Rank <= 0 {
		return LoRAConfig{}, fmt.Errorf("policy: adapter %s: r = %d must be positive", path, cfg.Rank)
	}
	if err := cfg.Validate(); err != nil {
		return LoRAConfig{}, fmt.Errorf("policy: adapter %s: %w", path, err)
	}
	return cfg, nil
}

// LoadAdapter attaches to m the adapters of dir (ReadAdapterConfig and
// adapter_model.safetensors, F32, F16 or BF16), replacing any it had.
// Every tensor the config implies must be present with PEFT's name and
// shape; a PEFT file may also name them with the adapter's name
// (lora_A.default.weight).
func LoadAdapter(dir string, m *Model) error {
	cfg, err := ReadAdapterConfig(dir)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, AdapterWeightsFile)
	f, c, err := openSafetensors(path)
	if err != nil {
		return fmt.Errorf("policy: adapter: %w", err)
	}
	defer c.Close()
	l := m.newLoRA(cfg)
	for _, p := range l.Params() {
		name := p.Name
		e, ok := f.entries[name]
		if !ok {
			name = p.Name[:len(p.Name)-len(".weight")] + ".default.weight"
			e, ok = f.entries[name]
		}
		if !ok {
			return fmt.Errorf("policy: adapter %s: tensor %q is missing", path, p.Name)
		}
		if !slices.Equal(e.Shape, p.Shape) {
			return fmt.Errorf("policy: adapter %s: tensor %q has shape %v, want %v (rank %d)", path, name, e.Shape, p.Shape, cfg.Rank)
		}
		if err := f.read(name, e, p.Data); err != nil {
			return fmt.Errorf("policy: adapter: %w", err)
		}
	}
	m.setLoRA(l)
	return nil
}
