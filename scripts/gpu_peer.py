#!/usr/bin/env python3
"""PyTorch's speed at the shapes `artist bench` times, for the GPU check.

A Qwen2 model with random weights, sized by a HuggingFace config.json
(configs/models/...), timed as `artist bench -model-config` times artist:

  train   one step: forward, token-mean cross-entropy, backward, AdamW
          (torch.optim.AdamW, lr 1e-5), B x T random tokens; the median of
          --steps steps after --warmup untimed ones;
  decode  greedy decoding with a key/value cache: a prompt of --prompt
          random tokens per sequence, then --new-tokens tokens, at each
          batch of --decode-batch; prefill is the prompt step alone.

Precisions (--dtypes): "f32" keeps weights and products in float32 with
TF32 off (artist's cuda backend computes so); "bf16" trains with
autocast(bfloat16) over float32 weights and AdamW state (mixed precision,
as FSDP and Megatron train) and decodes with the weights cast to bfloat16.

The model is transformers' Qwen2ForCausalLM (eager PyTorch; attention as
transformers picks it, recorded) and decoding is its generate(), when
transformers imports; otherwise, or with --own, a minimal Qwen2 decoder
written here. Prints one JSON object per precision, one a line, and writes
them as a list to --out.

  python3 scripts/gpu_peer.py --model-config configs/models/qwen2.5-0.5b.json \
      --device cuda --batch 8 --seq 1024 --decode-batch 1,16
  python3 scripts/gpu_peer.py --model-config ... --device cpu --layers 2 \
      --vocab 512 --batch 2 --seq 32 --prompt 8 --new-tokens 4   # a dry run
"""

import argparse
import json
import math
import statistics
import sys
import time

import torch
import torch.nn.functional as F


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model-config", required=True, help="HuggingFace config.json")
    p.add_argument("--device", default="cuda", help="cuda or cpu")
    p.add_argument("--dtypes", default="bf16,f32", help="comma-separated: bf16, f32")
    p.add_argument("--batch", type=int, default=8, help="training sequences per step")
    p.add_argument("--seq", type=int, default=1024, help="tokens per training sequence")
    p.add_argument("--decode-batch", default="1,16", help="comma-separated batch sizes to decode")
    p.add_argument("--prompt", type=int, default=128, help="prompt tokens per decoded sequence")
    p.add_argument("--new-tokens", type=int, default=64, help="tokens decoded per sequence")
    p.add_argument("--steps", type=int, default=3, help="timed repetitions (median reported)")
    p.add_argument("--warmup", type=int, default=1, help="untimed repetitions first")
    p.add_argument("--layers", type=int, default=0, help="override num_hidden_layers (0: the config's)")
    p.add_argument("--vocab", type=int, default=0, help="override vocab_size (0: the config's)")
    p.add_argument("--no-train", action="store_true", help="time decoding only")
    p.add_argument("--own", action="store_true", help="use the minimal decoder here, not transformers")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", default="", help="also write the results, a JSON list, here")
    return p.parse_args(argv)


def load_config(args):
    with open(args.model_config) as f:
        cfg = json.load(f)
    if args.layers:
        cfg["num_hidden_layers"] = args.layers
    if args.vocab:
        cfg["vocab_size"] = args.vocab
    cfg.setdefault("num_key_value_heads", cfg["num_attention_heads"])
    cfg.setdefault("rope_theta", 10000.0)
    cfg.setdefault("rms_norm_eps", 1e-6)
    cfg.setdefault("tie_word_embeddings", False)
    cfg["max_position_embeddings"] = max(cfg.get("max_position_embeddings", 0),
                                         args.seq, args.prompt + args.new_tokens)
    return cfg


class RMSNorm(torch.nn.Module):
    def __init__(self, C, eps):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(C))
        self.eps = eps

    def forward(self, x):  # x: B, T, C
        h = x.float()
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * h.to(x.dtype)


def rope(x, cos, sin):  # x: B, H, T, D; cos, sin: T, D/2 (half-split, as Qwen2)
    a, b = x.chunk(2, dim=-1)
    return torch.cat((a * cos - b * sin, b * cos + a * sin), dim=-1)


class Block(torch.nn.Module):
    """One Qwen2 decoder layer: pre-norm GQA attention (q, k, v with
    bias), pre-norm SwiGLU MLP."""

    def __init__(self, cfg):
        super().__init__()
        C, I = cfg["hidden_size"], cfg["intermediate_size"]
        self.H, self.K = cfg["num_attention_heads"], cfg["num_key_value_heads"]
        self.D = C // self.H
        L = torch.nn.Linear
        self.q, self.k, self.v = L(C, self.H * self.D), L(C, self.K * self.D), L(C, self.K * self.D)
        self.o = L(self.H * self.D, C, bias=False)
        self.gate, self.up, self.down = L(C, I, bias=False), L(C, I, bias=False), L(I, C, bias=False)
        self.n1, self.n2 = RMSNorm(C, cfg["rms_norm_eps"]), RMSNorm(C, cfg["rms_norm_eps"])

    def forward(self, x, cos, sin, cache=None, pos=0):  # x: B, T, C
        B, T, _ = x.shape
        h = self.n1(x)
        q = self.q(h).view(B, T, self.H, self.D).transpose(1, 2)
        k = self.k(h).view(B, T, self.K, self.D).transpose(1, 2)
        v = self.v(h).view(B, T, self.K, self.D).transpose(1, 2)
        q, k = rope(q, cos[pos:pos + T], sin[pos:pos + T]), rope(k, cos[pos:pos + T], sin[pos:pos + T])
        if cache is not None:  # cache: (keys, values), each B, K, maxT, D
            cache[0][:, :, pos:pos + T], cache[1][:, :, pos:pos + T] = k, v
            k, v = cache[0][:, :, :pos + T], cache[1][:, :, :pos + T]
        rep = self.H // self.K
        k, v = k.repeat_interleave(rep, dim=1), v.repeat_interleave(rep, dim=1)
        a = attend(q, k, v, pos)
        x = x + self.o(a.transpose(1, 2).reshape(B, T, self.H * self.D))
        h = self.n2(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


def attend(q, k, v, pos):  # q: B, H, T, D; k, v: B, H, pos+T, D; causal
    T, S = q.shape[2], k.shape[2]
    if hasattr(F, "scaled_dot_product_attention"):
        if T == 1:
            return F.scaled_dot_product_attention(q, k, v)
        mask = torch.ones(T, S, dtype=torch.bool, device=q.device).tril(S - T)
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    s = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    mask = torch.ones(T, S, dtype=torch.bool, device=q.device).tril(S - T)
    s = s.masked_fill(~mask, float("-inf"))
    return torch.softmax(s.float(), dim=-1).to(q.dtype) @ v


class OwnQwen2(torch.nn.Module):
    """A minimal Qwen2 causal LM with a static key/value cache."""

    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        C, V = cfg["hidden_size"], cfg["vocab_size"]
        self.embed = torch.nn.Embedding(V, C)
        self.layers = torch.nn.ModuleList(Block(cfg) for _ in range(cfg["num_hidden_layers"]))
        self.norm = RMSNorm(C, cfg["rms_norm_eps"])
        self.head = None if cfg["tie_word_embeddings"] else torch.nn.Linear(C, V, bias=False)
        D = C // cfg["num_attention_heads"]
        inv = 1.0 / cfg["rope_theta"] ** (torch.arange(0, D, 2).double() / D)
        ang = torch.outer(torch.arange(cfg["max_position_embeddings"]).double(), inv)
        self.register_buffer("cos", ang.cos().float(), persistent=False)
        self.register_buffer("sin", ang.sin().float(), persistent=False)

    def forward(self, ids, caches=None, pos=0):  # ids: B, T -> logits B, T, V
        x = self.embed(ids)
        cos, sin = self.cos.to(x.dtype), self.sin.to(x.dtype)
        for i, layer in enumerate(self.layers):
            x = layer(x, cos, sin, None if caches is None else caches[i], pos)
        x = self.norm(x)
        w = self.embed.weight if self.head is None else self.head.weight
        return x @ w.t()


def build(cfg, device, own):
    """The model on device in float32, and a name for the JSON."""
    if not own:
        try:
            import transformers
            conf = transformers.Qwen2Config(**{k: v for k, v in cfg.items() if not k.startswith("_")})
            try:
                conf._attn_implementation = "sdpa"
            except Exception:  # older transformers: its default
                pass
            if hasattr(torch.device, "__enter__"):  # PyTorch 2: weights made on the device
                with torch.device(device):
                    m = transformers.Qwen2ForCausalLM(conf)
            else:
                m = transformers.Qwen2ForCausalLM(conf).to(device)
            impl = getattr(m.config, "_attn_implementation", "default")
            return m.float(), f"transformers {transformers.__version__} Qwen2ForCausalLM, attention {impl}", None
        except Exception as e:  # fall through to the minimal decoder, saying why
            err = f"{type(e).__name__}: {e}"[:300]
    else:
        err = None
    m = OwnQwen2(cfg).to(device)
    for p in m.parameters():
        if p.dim() > 1:
            torch.nn.init.normal_(p, std=0.02)
    return m, "minimal Qwen2 decoder in PyTorch (scripts/gpu_peer.py)", err


def logits_of(model, ids):
    out = model(ids)
    return out.logits if hasattr(out, "logits") else out


def sync(device):
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def peak_reset(device):
    if device.startswith("cuda"):
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()


def peak_mib(device):
    if device.startswith("cuda"):
        return round(torch.cuda.max_memory_allocated() / 2**20, 1)
    return None


def time_train(model, args, dtype, V):
    """Median seconds of a training step, and the peak device memory."""
    device = args.device
    g = torch.Generator().manual_seed(args.seed)
    ids = torch.randint(V, (args.batch, args.seq), generator=g).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
    peak_reset(device)
    times = []
    for i in range(args.warmup + args.steps):
        sync(device)
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        if dtype == "bf16":
            with torch.autocast(device_type=device.split(":")[0], dtype=torch.bfloat16):
                lg = logits_of(model, ids)
        else:
            lg = logits_of(model, ids)
        loss = F.cross_entropy(lg[:, :-1].reshape(-1, V).float(), ids[:, 1:].reshape(-1))
        loss.backward()
        opt.step()
        sync(device)
        if i >= args.warmup:
            times.append(time.perf_counter() - t0)
        del lg, loss
    del opt
    model.zero_grad(set_to_none=True)
    return statistics.median(times), peak_mib(device)


@torch.no_grad()
def own_generate(model, ids, n):
    """Greedy decoding of n tokens after ids on a static cache; returns
    the seconds of the prompt step and of the n decoding steps."""
    cfg = model.cfg
    B, P = ids.shape
    K, D = cfg["num_key_value_heads"], cfg["hidden_size"] // cfg["num_attention_heads"]
    dt = model.embed.weight.dtype
    caches = [(torch.zeros(B, K, P + n, D, dtype=dt, device=ids.device),
               torch.zeros(B, K, P + n, D, dtype=dt, device=ids.device)) for _ in model.layers]
    dev = str(ids.device)
    sync(dev)
    t0 = time.perf_counter()
    lg = model(ids, caches, 0)
    nxt = lg[:, -1].argmax(-1, keepdim=True)
    sync(dev)
    t1 = time.perf_counter()
    for i in range(n):
        lg = model(nxt, caches, P + i)
        nxt = lg[:, -1].argmax(-1, keepdim=True)
    sync(dev)
    return t1 - t0, time.perf_counter() - t1


@torch.no_grad()
def hf_generate(model, ids, n):
    """The same with transformers' generate(): the prompt step is a
    generate() of one token, the decoding the rest of one of n + 1."""
    dev = str(ids.device)
    kw = dict(do_sample=False, use_cache=True, pad_token_id=0, attention_mask=torch.ones_like(ids))

    def run(k):
        sync(dev)
        t0 = time.perf_counter()
        out = model.generate(ids, max_new_tokens=k, min_new_tokens=k, **kw)
        sync(dev)
        assert out.shape[1] == ids.shape[1] + k, out.shape
        return time.perf_counter() - t0

    pre = run(1)
    return pre, max(run(n + 1) - pre, 1e-9)


def time_decode(model, args, batch, V, hf):
    g = torch.Generator().manual_seed(args.seed + batch)
    ids = torch.randint(V, (batch, args.prompt), generator=g).to(args.device)
    gen = hf_generate if hf else own_generate
    peak_reset(args.device)
    pre, dec = [], []
    for i in range(args.warmup + args.steps):
        p, d = gen(model, ids, args.new_tokens)
        if i >= args.warmup:
            pre.append(p)
            dec.append(d)
    p, d = statistics.median(pre), statistics.median(dec)
    return {"decode_batch": batch, "prefill_tokens_per_s": round(batch * args.prompt / p, 1),
            "decode_tokens_per_s": round(batch * args.new_tokens / d, 1),
            "decode_step_ms": round(1000 * d / args.new_tokens, 3), "peak_mib": peak_mib(args.device)}


def run_dtype(cfg, args, dtype):
    torch.manual_seed(args.seed)
    model, impl, fallback = build(cfg, args.device, args.own)
    hf = not impl.startswith("minimal")
    V = cfg["vocab_size"]
    rep = {"dtype": dtype, "device": args.device, "implementation": impl,
           "params": sum(p.numel() for p in model.parameters()),
           "batch": args.batch, "seq": args.seq, "prompt": args.prompt,
           "new_tokens": args.new_tokens, "steps": args.steps}
    if fallback:
        rep["transformers_error"] = fallback
    try:
        if not args.no_train:
            s, mib = time_train(model, args, dtype, V)
            rep.update(train_step_s=round(s, 4), train_tokens_per_s=round(args.batch * args.seq / s, 1),
                       train_peak_mib=mib)
        if dtype == "bf16":
            model = model.to(torch.bfloat16)
        model.eval()
        rep["decode"] = [time_decode(model, args, int(b), V, hf) for b in args.decode_batch.split(",")]
    except Exception as e:  # out of memory, a transformers API change: recorded, not fatal
        rep["error"] = f"{type(e).__name__}: {e}"[:500]
    del model
    if args.device.startswith("cuda"):
        torch.cuda.empty_cache()
    return rep


def main(argv):
    args = parse_args(argv)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    cfg = load_config(args)
    env = {"torch": torch.__version__, "model_config": args.model_config,
           "layers": cfg["num_hidden_layers"], "vocab": cfg["vocab_size"]}
    if args.device.startswith("cuda"):
        env["gpu"] = torch.cuda.get_device_name(0)
    results = []
    for dtype in args.dtypes.split(","):
        rep = dict(env, **run_dtype(cfg, args, dtype))
        print(json.dumps(rep), flush=True)
        results.append(rep)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
