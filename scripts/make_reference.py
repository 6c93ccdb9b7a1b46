#!/usr/bin/python3
"""Write small random Qwen2 checkpoints and their reference outputs.

Each variant is a HuggingFace Qwen2 checkpoint folder (config.json plus
model.safetensors, or shards with model.safetensors.index.json) and:

  reference.json         token sequences, greedy prompts and their greedy
                         continuations, and how the logits were computed
  reference.safetensors  F32 tensors "logits.<i>" [T_i, V]: the logits after
                         each token of sequence i

The logits come from a PyTorch forward written here from the Qwen2
architecture (HuggingFace transformers' modeling_qwen2.py): RMSNorm, q/k/v
projections with biases, rotary positions (rotate-half), grouped-query
attention (each key/value head serves H/K consecutive query heads) with a
causal mask, o projection without bias, SwiGLU MLP, final RMSNorm, LM head
(the embedding when tied). It runs in float64 on the weights as stored (a
bf16 or f16 checkpoint is rounded first), so the reference is the exact
function of the stored weights up to float64 rounding.

Usage: /usr/bin/python3 scripts/make_reference.py policy/testdata/qwen2-ref
The output is deterministic (fixed seeds).

With -qwen05b DIR it instead writes a random bf16 checkpoint of
Qwen2.5-0.5B's shape (about 1 GB, no reference outputs), for measuring how
long loading takes and how much memory it needs.
"""

import json
import math
import os
import struct
import sys

import torch

VARIANTS = [
    # name, dtype, tied, shards, config overrides
    ("untied-f32", torch.float32, False, 1,
     dict(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=3,
          num_attention_heads=4, num_key_value_heads=2, rope_theta=500000.0)),
    ("tied-bf16", torch.bfloat16, True, 1,
     dict(vocab_size=112, hidden_size=32, intermediate_size=48, num_hidden_layers=2,
          num_attention_heads=4, num_key_value_heads=1, rope_theta=1000000.0)),
    ("sharded-f16", torch.float16, False, 2,
     dict(vocab_size=96, hidden_size=48, intermediate_size=64, num_hidden_layers=2,
          num_attention_heads=6, num_key_value_heads=2, rope_theta=10000.0, rms_norm_eps=1e-5)),
]

DTYPE_NAMES = {torch.float32: ("F32", "float32"), torch.bfloat16: ("BF16", "bfloat16"),
               torch.float16: ("F16", "float16")}


def config_json(cfg, dtype, tied):
    return {
        "architectures": ["Qwen2ForCausalLM"],
        "attention_dropout": 0.0,
        "bos_token_id": 0,
        "eos_token_id": 1,
        "hidden_act": "silu",
        "hidden_size": cfg["hidden_size"],
        "initializer_range": 0.02,
        "intermediate_size": cfg["intermediate_size"],
        "max_position_embeddings": cfg.get("max_position_embeddings", 64),
        "max_window_layers": cfg["num_hidden_layers"],
        "model_type": "qwen2",
        "num_attention_heads": cfg["num_attention_heads"],
        "num_hidden_layers": cfg["num_hidden_layers"],
        "num_key_value_heads": cfg["num_key_value_heads"],
        "rms_norm_eps": cfg.get("rms_norm_eps", 1e-6),
        "rope_scaling": None,
        "rope_theta": cfg["rope_theta"],
        "sliding_window": cfg.get("max_position_embeddings", 64),
        "tie_word_embeddings": tied,
        "torch_dtype": DTYPE_NAMES[dtype][1],
        "transformers_version": "4.43.1",
        "use_cache": True,
        "use_sliding_window": False,
        "vocab_size": cfg["vocab_size"],
    }


def weight_specs(cfg, tied):
    """(name, shape, kind) of every tensor, kind one of embed, linear, norm, bias."""
    C, F, V = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"]
    H, K = cfg["num_attention_heads"], cfg["num_key_value_heads"]
    D = C // H
    specs = [("model.embed_tokens.weight", (V, C), "embed")]
    for i in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{i}."
        specs += [
            (p + "input_layernorm.weight", (C,), "norm"),
            (p + "self_attn.q_proj.weight", (H * D, C), "linear"),
            (p + "self_attn.q_proj.bias", (H * D,), "bias"),
            (p + "self_attn.k_proj.weight", (K * D, C), "linear"),
            (p + "self_attn.k_proj.bias", (K * D,), "bias"),
            (p + "self_attn.v_proj.weight", (K * D, C), "linear"),
            (p + "self_attn.v_proj.bias", (K * D,), "bias"),
            (p + "self_attn.o_proj.weight", (C, H * D), "linear"),
            (p + "post_attention_layernorm.weight", (C,), "norm"),
            (p + "mlp.gate_proj.weight", (F, C), "linear"),
            (p + "mlp.up_proj.weight", (F, C), "linear"),
            (p + "mlp.down_proj.weight", (C, F), "linear"),
        ]
    specs.append(("model.norm.weight", (C,), "norm"))
    if not tied:
        specs.append(("lm_head.weight", (V, C), "linear"))
    return specs


def random_tensor(shape, kind, gen, dtype=torch.float64):
    """Scaled so that logits are O(1): linear weights N(0, 1/in),
    embeddings N(0, 1), norm weights 1 + N(0, 0.1²), biases N(0, 0.5²)."""
    x = torch.randn(*shape, generator=gen, dtype=dtype)
    if kind == "linear":
        return x / math.sqrt(shape[1])
    if kind == "norm":
        return 1 + 0.1 * x
    if kind == "bias":
        return 0.5 * x
    return x


def random_weights(cfg, tied, gen):
    return {n: random_tensor(shape, kind, gen) for n, shape, kind in weight_specs(cfg, tied)}


def tensor_bytes(t):
    if t.dtype == torch.float32:
        return t.contiguous().numpy().tobytes()
    return t.contiguous().view(torch.int16).numpy().tobytes()


def write_safetensors(path, tensors):
    """tensors: list of (name, tensor); little-endian, data 8-byte aligned."""
    header, blobs, off = {"__metadata__": {"format": "pt"}}, [], 0
    for name, t in tensors:
        b = tensor_bytes(t)
        header[name] = {"dtype": DTYPE_NAMES[t.dtype][0], "shape": list(t.shape),
                        "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - (8 + len(h)) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def save_checkpoint(folder, cfg, dtype, tied, shards, weights):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config_json(cfg, dtype, tied), f, indent=2, sort_keys=True)
        f.write("\n")
    stored = [(n, t.to(dtype)) for n, t in weights.items()]
    if shards == 1:
        write_safetensors(os.path.join(folder, "model.safetensors"), stored)
        return
    per = (len(stored) + shards - 1) // shards
    weight_map, total = {}, 0
    for s in range(shards):
        part = stored[s * per:(s + 1) * per]
        fname = f"model-{s + 1:05d}-of-{shards:05d}.safetensors"
        write_safetensors(os.path.join(folder, fname), part)
        for n, t in part:
            weight_map[n] = fname
            total += t.numel() * t.element_size()
    with open(os.path.join(folder, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f, indent=2, sort_keys=True)
        f.write("\n")


def rms_norm(x, w, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


def rope(x, theta):
    """x: [T, heads, D]; rotate-half rotary embedding at positions 0..T-1."""
    T, D = x.shape[0], x.shape[-1]
    inv = 1.0 / (theta ** (torch.arange(0, D, 2, dtype=torch.float64) / D))
    freqs = torch.outer(torch.arange(T, dtype=torch.float64), inv)
    emb = torch.cat((freqs, freqs), dim=-1)[:, None, :]
    return x * emb.cos().to(x.dtype) + rotate_half(x) * emb.sin().to(x.dtype)


def forward(w, cfg, tied, ids):
    """Logits [T, V] after each token of ids, in float64."""
    C, H, K = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"]
    D, T, eps, theta = C // H, len(ids), cfg.get("rms_norm_eps", 1e-6), cfg["rope_theta"]
    x = w["model.embed_tokens.weight"][torch.tensor(ids)]
    mask = torch.full((T, T), float("-inf"), dtype=x.dtype).triu(1)
    for i in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{i}."
        h = rms_norm(x, w[p + "input_layernorm.weight"], eps)
        q = (h @ w[p + "self_attn.q_proj.weight"].T + w[p + "self_attn.q_proj.bias"]).view(T, H, D)
        k = (h @ w[p + "self_attn.k_proj.weight"].T + w[p + "self_attn.k_proj.bias"]).view(T, K, D)
        v = (h @ w[p + "self_attn.v_proj.weight"].T + w[p + "self_attn.v_proj.bias"]).view(T, K, D)
        q, k = rope(q, theta), rope(k, theta)
        k = k.repeat_interleave(H // K, dim=1)  # HF repeat_kv: head h reads kv head h // (H/K)
        v = v.repeat_interleave(H // K, dim=1)
        att = torch.einsum("thd,shd->hts", q, k) / math.sqrt(D) + mask
        o = torch.einsum("hts,shd->thd", att.softmax(-1), v).reshape(T, H * D)
        x = x + o @ w[p + "self_attn.o_proj.weight"].T
        h = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
        act = torch.nn.functional.silu(h @ w[p + "mlp.gate_proj.weight"].T) * (h @ w[p + "mlp.up_proj.weight"].T)
        x = x + act @ w[p + "mlp.down_proj.weight"].T
    x = rms_norm(x, w["model.norm.weight"], eps)
    head = w["model.embed_tokens.weight"] if tied else w["lm_head.weight"]
    return x @ head.T


def greedy(w, cfg, tied, prompt, n):
    """Greedy continuation by full recompute, with the smallest gap between
    the best and second-best logit on the way (ties would make it fragile)."""
    ids, gap = list(prompt), float("inf")
    for _ in range(n):
        top = forward(w, cfg, tied, ids)[-1].topk(2)
        gap = min(gap, float(top.values[0] - top.values[1]))
        ids.append(int(top.indices[0]))
    return ids[len(prompt):], gap


def make_variant(out, index, name, dtype, tied, shards, over):
    cfg = dict(over)
    gen = torch.Generator().manual_seed(1000 + index)
    weights = random_weights(cfg, tied, gen)
    folder = os.path.join(out, name)
    save_checkpoint(folder, cfg, dtype, tied, shards, weights)
    w = {n: t.to(dtype).to(torch.float64) for n, t in weights.items()}  # as stored
    V = cfg["vocab_size"]
    seqs = [torch.randint(V, (n,), generator=gen).tolist() for n in (1, 7, 23, 40)]
    logits = [forward(w, cfg, tied, s) for s in seqs]
    prompts = [torch.randint(V, (n,), generator=gen).tolist() for n in (3, 9)]
    runs = [greedy(w, cfg, tied, p, 16) for p in prompts]
    ref = {
        "computed_by": "scripts/make_reference.py: PyTorch %s, float64 on the stored weights" % torch.__version__,
        "sequences": seqs,
        "greedy": [{"prompt": p, "tokens": toks, "min_gap": gap} for p, (toks, gap) in zip(prompts, runs)],
    }
    with open(os.path.join(folder, "reference.json"), "w") as f:
        f.write("{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in ref.items()) + "\n}\n")
    write_safetensors(os.path.join(folder, "reference.safetensors"),
                      [(f"logits.{i}", l.to(torch.float32)) for i, l in enumerate(logits)])
    f32 = max(float((forward({n: t.to(torch.float32) for n, t in w.items()}, cfg, tied, s).double() - l).abs().max()
                    / l.abs().max()) for s, l in zip(seqs, logits))
    print(f"{name}: logits max |.| {max(float(l.abs().max()) for l in logits):.3g}, "
          f"PyTorch float32 vs float64 max relative error {f32:.2e}, "
          f"greedy min gap {min(g for _, g in runs):.3g}")


# Qwen2.5-0.5B's shape, for measuring load time and memory (no reference).
QWEN05B = dict(vocab_size=151936, hidden_size=896, intermediate_size=4864, num_hidden_layers=24,
               num_attention_heads=14, num_key_value_heads=2, rope_theta=1000000.0,
               max_position_embeddings=32768)


def write_qwen05b(folder):
    """A random bf16 Qwen2.5-0.5B-shaped checkpoint (tied), about 1 GB,
    generated and written one tensor at a time."""
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config_json(QWEN05B, torch.bfloat16, True), f, indent=2, sort_keys=True)
    gen = torch.Generator().manual_seed(5)
    specs = weight_specs(QWEN05B, True)
    header, off = {"__metadata__": {"format": "pt"}}, 0
    for name, shape, _ in specs:
        n = 2 * math.prod(shape)
        header[name] = {"dtype": "BF16", "shape": list(shape), "data_offsets": [off, off + n]}
        off += n
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - (8 + len(h)) % 8) % 8)
    with open(os.path.join(folder, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for name, shape, kind in specs:
            f.write(tensor_bytes(random_tensor(shape, kind, gen, torch.float32).to(torch.bfloat16)))
    print(f"{folder}: {off / 1e9:.3f} GB of weights")


def main():
    torch.set_num_threads(1)
    if len(sys.argv) == 3 and sys.argv[1] == "-qwen05b":
        write_qwen05b(sys.argv[2])
        return
    if len(sys.argv) != 2:
        sys.exit("usage: make_reference.py OUT_DIR | make_reference.py -qwen05b OUT_DIR")
    for i, v in enumerate(VARIANTS):
        make_variant(sys.argv[1], i, *v)


if __name__ == "__main__":
    main()
