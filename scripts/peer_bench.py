#!/usr/bin/env python3
"""PyTorch peer of the Go speed benchmarks (trainer/bench_test.go).

The same Qwen2-style decoder, written out from the architecture rather than
taken from a library: token embedding tied to the LM head, RMSNorm
(eps 1e-6), rotary positions (rotate-half, theta 10000), grouped-query
attention with q/k/v biases, SwiGLU MLP, no dropout, float32. Sizes match
the tiny default model: hidden 64, intermediate 176, 2 layers, 4 heads,
2 key/value heads, vocab 521; --model-config takes them (and rope theta, norm
eps, tied head) from a HuggingFace config.json instead.

Measurements (median of --repeats after --warmup), one JSON line each on
stdout:
  train_step  forward, log-softmax gather of the next tokens, token-mean
              loss, backward, gradient-norm clip to 1, AdamW step; a batch
              of --batch x --seq tokens (32 x 96); tokens/s counts every
              token of the batch.
  sample_kv   --sample-seqs sequences (64): a --prompt-token prompt (32) in
              one forward, then --new-tokens greedy steps (64) of one token
              each with a key/value cache; tokens/s counts decoded tokens,
              the time includes the prompt.
  prefill     the prompt step of sample_kv alone; tokens/s counts prompt
              tokens.
  decode      the decoding steps of sample_kv alone; tokens/s counts
              decoded tokens.

Each line also gives the process's peak resident memory so far
(peak_rss_mib): with --only train_step, that of the training step.

Which BLAS and how many threads torch uses goes to stderr. On cores shared
with another busy process, set OMP_WAIT_POLICY=passive: GNU OpenMP's
spinning default then makes two torch threads about ten times slower.
"""

import argparse
import json
import math
import os
import resource
import statistics
import sys
import time

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    sys.exit("peer_bench: this Python has no torch; on Debian/Ubuntu: "
             "apt-get install -y python3-torch libopenblas0-pthread")

# Model sizes: the tiny default unless --model-config names a HuggingFace
# config.json (see configure).
VOCAB, HIDDEN, INTER, LAYERS, HEADS, KV_HEADS = 521, 64, 176, 2, 4, 2
EPS, THETA, MAX_POS, TIED = 1e-6, 10000.0, 256, True
TRAIN_B, TRAIN_T = 32, 96
SAMPLE_N, SAMPLE_PROMPT, SAMPLE_STEPS = 64, 32, 64


def configure(args):
    """Sets the module's sizes from the command line and --model-config."""
    global VOCAB, HIDDEN, INTER, LAYERS, HEADS, KV_HEADS, EPS, THETA, MAX_POS, TIED
    global TRAIN_B, TRAIN_T, SAMPLE_N, SAMPLE_PROMPT, SAMPLE_STEPS
    if args.model_config:
        with open(args.model_config) as f:
            c = json.load(f)
        VOCAB, HIDDEN, INTER = c["vocab_size"], c["hidden_size"], c["intermediate_size"]
        LAYERS, HEADS = c["num_hidden_layers"], c["num_attention_heads"]
        KV_HEADS = c.get("num_key_value_heads", HEADS)
        EPS, THETA = c.get("rms_norm_eps", 1e-6), c.get("rope_theta", 10000.0)
        TIED = c.get("tie_word_embeddings", False)
    TRAIN_B, TRAIN_T = args.batch, args.seq
    SAMPLE_N, SAMPLE_PROMPT, SAMPLE_STEPS = args.sample_seqs, args.prompt, args.new_tokens
    MAX_POS = max(TRAIN_T, SAMPLE_PROMPT + SAMPLE_STEPS)


class RMSNorm(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(c))

    def forward(self, x):
        var = x.pow(2).mean(-1, keepdim=True)
        return x * torch.rsqrt(var + EPS) * self.weight


def rope_tables(T, D):
    """cos, sin of shape [T, D]: angle(t, j) = t * theta^(-2j/D), halves repeated."""
    inv = THETA ** (-torch.arange(0, D, 2, dtype=torch.float64) / D)
    ang = torch.arange(T, dtype=torch.float64)[:, None] * inv[None, :]
    ang = torch.cat([ang, ang], dim=-1)
    return ang.cos().float(), ang.sin().float()


def rotate(x, cos, sin):
    """Rotate-half rotary embedding of x [B, heads, T, D] by cos/sin [T, D]."""
    h = x.shape[-1] // 2
    rot = torch.cat([-x[..., h:], x[..., :h]], dim=-1)
    return x * cos + rot * sin


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        D = HIDDEN // HEADS
        self.input_layernorm = RMSNorm(HIDDEN)
        self.q_proj = torch.nn.Linear(HIDDEN, HEADS * D, bias=True)
        self.k_proj = torch.nn.Linear(HIDDEN, KV_HEADS * D, bias=True)
        self.v_proj = torch.nn.Linear(HIDDEN, KV_HEADS * D, bias=True)
        self.o_proj = torch.nn.Linear(HEADS * D, HIDDEN, bias=False)
        self.post_attention_layernorm = RMSNorm(HIDDEN)
        self.gate_proj = torch.nn.Linear(HIDDEN, INTER, bias=False)
        self.up_proj = torch.nn.Linear(HIDDEN, INTER, bias=False)
        self.down_proj = torch.nn.Linear(INTER, HIDDEN, bias=False)

    def forward(self, x, cos, sin, cache=None):
        """x [B, T, C]; cos/sin [T, D] for the new positions; cache is None
        (no cache) or a [k, v] list of [B, K, P, D] tensors (or None before
        the first call) that is extended in place."""
        B, T, _ = x.shape
        D = HIDDEN // HEADS
        h = self.input_layernorm(x)
        q = self.q_proj(h).view(B, T, HEADS, D).transpose(1, 2)
        k = self.k_proj(h).view(B, T, KV_HEADS, D).transpose(1, 2)
        v = self.v_proj(h).view(B, T, KV_HEADS, D).transpose(1, 2)
        q, k = rotate(q, cos, sin), rotate(k, cos, sin)
        if cache is not None:
            if cache[0] is not None:
                k = torch.cat([cache[0], k], dim=2)
                v = torch.cat([cache[1], v], dim=2)
            cache[0], cache[1] = k, v
        rep = HEADS // KV_HEADS  # query head j reads key/value head j // rep
        k = k.repeat_interleave(rep, dim=1)
        v = v.repeat_interleave(rep, dim=1)
        P = k.shape[2]
        scores = q @ k.transpose(-1, -2) / math.sqrt(D)  # [B, H, T, P]
        if T > 1:
            causal = torch.ones(T, P, dtype=torch.bool).tril(P - T)
            scores = scores.masked_fill(~causal, float("-inf"))
        o = (scores.softmax(-1) @ v).transpose(1, 2).reshape(B, T, HEADS * D)
        x = x + self.o_proj(o)
        h = self.post_attention_layernorm(x)
        return x + self.down_proj(F.silu(self.gate_proj(h)) * self.up_proj(h))


class Qwen2(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed_tokens = torch.nn.Embedding(VOCAB, HIDDEN)
        self.layers = torch.nn.ModuleList(Block() for _ in range(LAYERS))
        self.norm = RMSNorm(HIDDEN)
        self.lm_head = None if TIED else torch.nn.Linear(HIDDEN, VOCAB, bias=False)
        cos, sin = rope_tables(MAX_POS, HIDDEN // HEADS)
        self.register_buffer("cos", cos, persistent=False)
        self.register_buffer("sin", sin, persistent=False)
        for name, p in self.named_parameters():
            if p.dim() >= 2:
                torch.nn.init.normal_(p, std=0.02)
            elif name.endswith("bias"):
                torch.nn.init.zeros_(p)

    def forward(self, ids, p0=0, caches=None):
        """Logits [B, T, V] of ids [B, T] at positions p0.."""
        T = ids.shape[1]
        cos, sin = self.cos[p0:p0 + T], self.sin[p0:p0 + T]
        x = self.embed_tokens(ids)
        for i, layer in enumerate(self.layers):
            x = layer(x, cos, sin, None if caches is None else caches[i])
        head = self.embed_tokens.weight if self.lm_head is None else self.lm_head.weight
        return self.norm(x) @ head.t()


def make_optimizer(model):
    """AdamW with decay on matrices only, like the Go optimizer."""
    decay = [p for p in model.parameters() if p.dim() >= 2]
    rest = [p for p in model.parameters() if p.dim() < 2]
    return torch.optim.AdamW(
        [{"params": decay, "weight_decay": 0.01}, {"params": rest, "weight_decay": 0.0}],
        lr=1e-4, betas=(0.9, 0.999), eps=1e-8)


def train_step(model, opt, ids):
    opt.zero_grad(set_to_none=True)
    logp = model(ids)[:, :-1].log_softmax(-1)
    loss = -logp.gather(-1, ids[:, 1:, None]).mean()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    return loss


def sample_kv(model, prompts, times=None):
    """Greedy decoding with a cache; appends the seconds of the prompt
    step and of the decoding steps to times when given."""
    with torch.inference_mode():
        t0 = time.perf_counter()
        caches = [[None, None] for _ in model.layers]
        logits = model(prompts, 0, caches)[:, -1]
        t1 = time.perf_counter()
        pos = prompts.shape[1]
        for _ in range(SAMPLE_STEPS):
            nxt = logits.argmax(-1, keepdim=True)  # [N, 1]
            logits = model(nxt, pos, caches)[:, -1]
            pos += 1
        if times is not None:
            times.append((t1 - t0, time.perf_counter() - t1))


def timed(fn, warmup, repeats):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def blas_libraries():
    """Shared libraries with BLAS-like names mapped into this process."""
    libs = set()
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1] if len(line.split()) >= 6 else ""
                name = os.path.basename(path)
                if any(s in name for s in ("blas", "mkl", "dnnl", "gomp", "omp")):
                    libs.add(os.path.realpath(path))
    except OSError:
        return ["unknown (no /proc/self/maps)"]
    return sorted(libs)


def describe_torch():
    cfg = torch.__config__.show()
    keep = []
    for line in cfg.splitlines():
        line = line.strip(" -")
        if line.startswith("Build settings:"):
            keep += [p.strip() for p in line[len("Build settings:"):].split(", ")
                     if p.strip().startswith(("BLAS_INFO", "LAPACK_INFO", "USE_MKLDNN", "USE_OPENMP"))]
        elif any(s in line for s in ("MKL", "OpenMP", "CPU capability", "LAPACK")):
            keep.append(line)
    info = {
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "interop_threads": torch.get_num_interop_threads(),
        "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS", "unset"),
        "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "unset"),
        "OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY", "unset"),
        "mkldnn": torch.backends.mkldnn.is_available(),
        "config": "; ".join(keep),
        "libraries": blas_libraries(),
    }
    print("peer_bench: " + json.dumps(info), file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", type=int, default=2, help="torch intra-op threads (default 2)")
    ap.add_argument("--warmup", type=int, default=2, help="untimed runs per measurement (default 2)")
    ap.add_argument("--repeats", type=int, default=5, help="timed runs; the median is reported (default 5)")
    ap.add_argument("--seed", type=int, default=1, help="torch seed for weights and tokens (default 1)")
    ap.add_argument("--only", choices=["train_step", "sample_kv"], help="run one measurement")
    ap.add_argument("--model-config", help="HuggingFace Qwen2 config.json to size the model (default: the tiny model)")
    ap.add_argument("--batch", type=int, default=TRAIN_B, help=f"training sequences (default {TRAIN_B})")
    ap.add_argument("--seq", type=int, default=TRAIN_T, help=f"tokens per training sequence (default {TRAIN_T})")
    ap.add_argument("--sample-seqs", type=int, default=SAMPLE_N, help=f"sampled sequences (default {SAMPLE_N})")
    ap.add_argument("--prompt", type=int, default=SAMPLE_PROMPT, help=f"prompt tokens per sampled sequence (default {SAMPLE_PROMPT})")
    ap.add_argument("--new-tokens", type=int, default=SAMPLE_STEPS, help=f"decoded tokens per sampled sequence (default {SAMPLE_STEPS})")
    args = ap.parse_args()
    if args.threads < 1 or args.repeats < 1 or args.warmup < 0:
        ap.error("--threads and --repeats must be at least 1, --warmup at least 0")
    if min(args.batch, args.seq, args.sample_seqs, args.prompt, args.new_tokens) < 1:
        ap.error("--batch, --seq, --sample-seqs, --prompt and --new-tokens must be at least 1")
    configure(args)

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    describe_torch()
    model = Qwen2()

    if args.only in (None, "train_step"):
        opt = make_optimizer(model)
        ids = torch.randint(VOCAB, (TRAIN_B, TRAIN_T))
        s = timed(lambda: train_step(model, opt, ids), args.warmup, args.repeats)
        report("train_step", TRAIN_B * TRAIN_T, s)
    if args.only in (None, "sample_kv"):
        prompts = torch.randint(VOCAB, (SAMPLE_N, SAMPLE_PROMPT))
        parts = []
        s = timed(lambda: sample_kv(model, prompts, parts), args.warmup, args.repeats)
        parts = parts[args.warmup:]
        report("sample_kv", SAMPLE_N * SAMPLE_STEPS, s)
        report("prefill", SAMPLE_N * SAMPLE_PROMPT, statistics.median(p for p, _ in parts))
        report("decode", SAMPLE_N * SAMPLE_STEPS, statistics.median(d for _, d in parts))


def report(name, tokens, seconds):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    print(json.dumps({"name": name, "tokens_per_s": round(tokens / seconds, 1),
                      "ms": round(seconds * 1e3, 3), "peak_rss_mib": round(peak, 1)}), flush=True)


if __name__ == "__main__":
    main()
