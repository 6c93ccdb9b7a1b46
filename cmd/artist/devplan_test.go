package main

import (
	"strings"
	"testing"
	"time"

	"github.com/artist-rl/artist/internal/memplan"
	"github.com/artist-rl/artist/policy/backend"
	"github.com/artist-rl/artist/policy/backend/cuda"
)

const qwen7BRun = "../../configs/artist-math-qwen2.5-7b.yaml"

// qwen7BLoRA are the keys of docs/gpu.md's plan: LoRA rank 16, one
// sequence per backward pass, recomputation.
var qwen7BLoRA = []string{"-config", qwen7BRun, "-model-config", "../../configs/models/qwen2.5-7b.json",
	"-set", "model.lora.rank=16", "-set", "model.recompute=true", "-set", "grpo.micro_batch=1"}

// TestPlanCommand runs artist plan on the 7B config against an 80 GB
// device: its 192 decoding sequences do not fit, 16 do; bad flags are
// usage errors.
func TestPlanCommand(t *testing.T) {
	for _, c := range []struct {
		name  string
		extra []string
		code  int
		want  []string
	}{
		{"192 sequences", []string{"-device-memory", "80GB"}, 1, []string{"KV cache (192 x 12480 tokens)     255.9 GiB",
			"device context and workspaces       560 MiB", "available                          74.5 GiB  (free on a device of 80GB)",
			"the estimated peak, 301.3 GiB, exceeds the memory free on a device of 80GB, 74.5 GiB", "grpo.batch_size x rollout.group_size"}},
		{"16 sequences", []string{"-device-memory", "80e9", "-set", "grpo.batch_size=8", "-set", "rollout.group_size=2"}, 0,
			[]string{"KV cache (16 x 12480 tokens)       21.3 GiB", "estimated peak                     66.6 GiB", "the plan fits"}},
		{"bad size", []string{"-device-memory", "lots"}, 2, []string{"-device-memory", "80GB"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(append(append([]string{"plan"}, qwen7BLoRA...), c.extra...)...)
			for _, w := range c.want {
				if code != c.code || !strings.Contains(stdout+stderr, w) {
					t.Errorf("exit %d (want %d), output lacks %q:\n%s%s", code, c.code, w, stdout, stderr)
				}
			}
			if strings.Contains(stdout, "runtime and data") {
				t.Errorf("a device plan with the host's runtime term:\n%s", stdout)
			}
		})
	}
	if code, _, stderr := runCLI("plan", "-config", qwen7BRun, "-device-memory", "80GB"); code != 1 || !strings.Contains(stderr, "-model-config") {
		t.Errorf("a plan without the init folder: exit %d, %s", code, stderr)
	}
}

// emulated opens cudaemu, or skips without the emulator's compiler.
func emulated(t *testing.T) *cuda.Backend {
	t.Helper()
	b, err := cuda.OpenEmulated()
	if err != nil {
		t.Skipf("cudaemu: %v", err)
	}
	return b
}

// TestDevicePlanOnEmulator checks plans against cudaemu sized by
// ARTIST_CUDAEMU_MEMORY: a plan over its memory is refused with the
// device, the estimate and the free bytes; one within is printed as a
// device plan.
func TestDevicePlanOnEmulator(t *testing.T) {
	b := emulated(t)
	c, err := readShape("../../configs/models/qwen2.5-7b.json")
	if err != nil {
		t.Fatal(err)
	}
	plan := memplan.Estimate(c, memplan.Run{DecodeSeqs: 4, DecodeLen: 1024}) // inference: 28.4 GiB of weights
	for _, tc := range []struct {
		memory string
		want   []string // the output, then the error's
		fails  bool
	}{
		{"1GB", []string{"(free on cudaemu (host emulator))", "exceeds the memory free on cudaemu (host emulator), 954 MiB", "the estimated peak, 29.4 GiB", "its largest term is weights (f32), 28.4 GiB"}, true},
		{"", []string{"device context and workspaces", "74.5 GiB  (free on cudaemu (host emulator))"}, false},
	} {
		t.Setenv(cuda.EmulatedMemoryEnv, tc.memory)
		var out strings.Builder
		err := checkPlanOn(&out, plan, b)
		all := out.String()
		if err != nil {
			all += err.Error()
		}
		for _, w := range tc.want {
			if (err != nil) != tc.fails || !strings.Contains(all, w) {
				t.Errorf("%s=%q: error %v, output lacks %q:\n%s", cuda.EmulatedMemoryEnv, tc.memory, err, w, all)
			}
		}
	}
}

// TestTrainRefusesOnDevice: artist train on a device backend prints the
// device plan and refuses a 7B run that does not fit the device before
// reading a weight.
func TestTrainRefusesOnDevice(t *testing.T) {
	b := emulated(t)
	t.Setenv(cuda.EmulatedMemoryEnv, "20GB")
	defer func(f func() backend.DeviceMemory) { planDevice = f }(planDevice)
	planDevice = func() backend.DeviceMemory { return b }
	dir := qwen7BFolder(t)
	conf := writeFiles(t, "7b.yaml", "init: "+dir+"\nrun_dir: "+t.TempDir()+"/run\n")[0]
	began := time.Now()
	code, _, stderr := runCLI("train", "-config", conf)
	for _, w := range []string{"device context and workspaces", "(free on cudaemu (host emulator))",
		"exceeds the memory free on cudaemu (host emulator), 18.6 GiB", "model.lora.rank"} {
		if code != 1 || !strings.Contains(stderr, w) {
			t.Errorf("exit %d, stderr lacks %q:\n%s", code, w, stderr)
		}
	}
	if strings.Contains(stderr, "runtime and data") || strings.Contains(stderr, "MemAvailable") {
		t.Errorf("the host plan on a device backend:\n%s", stderr)
	}
	if d := time.Since(began); d > 10*time.Second {
		t.Errorf("refused after %v, want well under 10 s", d)
	}
}
