#!/usr/bin/python3
"""Golden numbers for trainer.PolicyLoss and trainer.OverlongPenalty.

Writes verl_golden.json beside this file. Each loss case runs verl's
formulas, re-typed here from verl/trainer/ppo/core_algos.py:

  compute_policy_loss (vanilla PPO clip, dual clip for A < 0 with
      clip_ratio_c, pg_clipfrac, pg_clipfrac_lower),
  kl_penalty("low_var_kl")  (k3 with the log-ratio clamped to +-20 and
      the result clamped to +-kl_clamp; verl fixes kl_clamp at 10),
  agg_loss  ("exclude": verl's seq_mask of sequences with a loss token;
      "count": TRL's convention, every sequence counts in N),

and the actor's total loss pg_loss + kl_coef * kl_loss. The gradient with
respect to log_prob comes from torch autograd in float64, independently of
the hand-derived gradient in grpo.go. The overlong cases run the DAPO
reward manager's min(-exceed / buffer * penalty_factor, 0).

Inputs are float32 values, as SeqInput holds them; the computation is in
float64, as PolicyLoss does it. Run with Debian's python3 and torch:

  /usr/bin/python3 trainer/testdata/verl_golden.py
"""

import json
import os

import numpy as np
import torch

torch.set_default_dtype(torch.float64)


def verl_policy_loss(old, logp, adv, mask, eps_low, eps_high, clip_ratio_c):
    """Per-token pg_losses, pg_clipfrac, pg_clipfrac_lower (verl vanilla)."""
    neg_kl = torch.clamp(logp - old, min=-20.0, max=20.0)
    ratio = torch.exp(neg_kl)
    pg1 = -adv * ratio
    pg2 = -adv * torch.clamp(ratio, 1 - eps_low, 1 + eps_high)
    clip1 = torch.maximum(pg1, pg2)
    clipfrac = masked_mean(torch.gt(pg2, pg1).double(), mask)
    if clip_ratio_c == 0:  # dual clip off
        return clip1, clipfrac, torch.tensor(0.0)
    pg3 = -adv * clip_ratio_c
    clip2 = torch.min(pg3, clip1)
    lower = masked_mean(torch.gt(clip1, pg3).double() * (adv < 0).double(), mask)
    return torch.where(adv < 0, clip2, clip1), clipfrac, lower


def low_var_kl(logp, ref, kl_clamp):
    kl = torch.clamp(ref - logp, min=-20, max=20)
    kld = torch.exp(kl) - kl - 1
    if kl_clamp == 0:
        return kld
    return torch.clamp(kld, min=-kl_clamp, max=kl_clamp)


def masked_mean(x, mask):
    return (x * mask).sum() / mask.sum()


def agg_loss(mat, mask, mode, max_tokens, empty):
    counts = mask.sum(dim=-1)
    nonempty = (counts > 0).double()
    n = nonempty.sum() if empty == "exclude" else torch.tensor(float(mask.shape[0]))
    if mode == "token-mean":
        return (mat * mask).sum() / mask.sum()
    if mode == "seq-mean-token-mean":
        seq = (mat * mask).sum(dim=-1) / (counts + 1e-8)
        return (seq * nonempty).sum() / n
    if mode == "seq-mean-token-sum-norm":
        seq = (mat * mask).sum(dim=-1)
        return (seq * nonempty).sum() / n / max_tokens
    raise ValueError(mode)


def run_case(case):
    cfg = case["config"]
    seqs = case["seqs"]
    T = max(len(s["mask"]) for s in seqs)

    def pad(key, fill=0.0):
        return torch.tensor([s[key] + [fill] * (T - len(s[key])) for s in seqs])

    logp = pad("logp").requires_grad_(True)
    old, mask = pad("old"), pad("mask")
    adv = torch.tensor([[s["adv"]] * T for s in seqs])
    pg, clipfrac, lower = verl_policy_loss(old, logp, adv, mask, cfg["eps_low"], cfg["eps_high"], cfg["clip_ratio_c"])
    policy = agg_loss(pg, mask, cfg["agg"], cfg["max_tokens"], cfg["empty_seqs"])
    total, kl = policy, torch.tensor(0.0)
    if "ref" in seqs[0]:
        kld = low_var_kl(logp, pad("ref"), cfg["kl_clamp"])
        total = policy + cfg["beta"] * agg_loss(kld, mask, cfg["agg"], cfg["max_tokens"], cfg["empty_seqs"])
        kl = masked_mean(kld, mask)
    total.backward()
    grad = logp.grad * mask  # positions past a sequence's end are padding
    case["want"] = {
        "loss": total.item(),
        "policy_loss": policy.item(),
        "kl": kl.item(),
        "clip_frac": clipfrac.item(),
        "clip_frac_lower": lower.item(),
        "coef": [grad[i, : len(s["mask"])].tolist() for i, s in enumerate(seqs)],
    }
    return case


def f32(xs):
    return [float(np.float32(x)) for x in xs]


def random_seqs(rng, n, with_ref, spread=0.6):
    seqs = []
    for _ in range(n):
        T = int(rng.integers(3, 8))
        lp = -3 * rng.random(T)
        s = {
            "logp": f32(lp),
            "old": f32(lp - spread * (2 * rng.random(T) - 1)),
            "mask": [int(m) for m in (rng.random(T) < 0.8)],
            "adv": float(np.float64(4 * rng.random() - 2)),
        }
        if with_ref:
            s["ref"] = f32(lp + 2 * rng.random(T) - 1)
        seqs.append(s)
    return seqs


def config(**kw):
    c = {"eps_low": 0.2, "eps_high": 0.28, "clip_ratio_c": 0, "beta": 0, "kl_clamp": 0,
         "agg": "seq-mean-token-mean", "max_tokens": 8, "empty_seqs": "count"}
    c.update(kw)
    return c


def cases():
    rng = np.random.default_rng(20250501)
    out = []
    for agg in ("seq-mean-token-mean", "token-mean", "seq-mean-token-sum-norm"):
        out.append({"name": "clip only " + agg, "config": config(agg=agg), "seqs": random_seqs(rng, 4, False)})
        out.append({"name": "clip and k3 " + agg, "config": config(agg=agg, beta=0.3), "seqs": random_seqs(rng, 4, True)})
    # Dual clip: A < 0 and ratios far above 1 (log-ratio up to 2.5, r up
    # to 12), so r > c = 3 on some tokens; positive advantages untouched.
    dual = random_seqs(rng, 4, True, spread=2.5)
    dual[0]["adv"], dual[1]["adv"], dual[2]["adv"], dual[3]["adv"] = -1.5, -0.4, 0.9, -2.0
    out.append({"name": "dual clip c=3", "config": config(clip_ratio_c=3.0, beta=0.1), "seqs": dual})
    out.append({"name": "dual clip c=3 token-mean", "config": config(clip_ratio_c=3.0, agg="token-mean"), "seqs": dual})
    out.append({"name": "dual clip c=1.3", "config": config(clip_ratio_c=1.3), "seqs": dual})
    # KL clamp: ref - logp up to 3.5, so k3 = e^d - d - 1 reaches 28 > 10.
    far = random_seqs(rng, 3, True)
    for s in far:
        s["ref"] = f32(np.array(s["logp"]) + 3.5 * rng.random(len(s["logp"])))
    out.append({"name": "kl clamp 10", "config": config(beta=0.5, kl_clamp=10), "seqs": far})
    out.append({"name": "kl clamp 2", "config": config(beta=0.5, kl_clamp=2, agg="token-mean"), "seqs": far})
    out.append({"name": "kl unclamped", "config": config(beta=0.5), "seqs": far})
    # Log-ratio clamp at +-20 on both ratio and k3.
    huge = [{"logp": [-1.0, -30.0, -2.0], "old": [-30.0, -1.0, -2.5], "ref": [-1.0, -1.0, -26.0],
             "mask": [1, 1, 1], "adv": -1.0}]
    out.append({"name": "log-ratio clamps", "config": config(beta=0.2, kl_clamp=10, clip_ratio_c=3.0, agg="token-mean"), "seqs": huge})
    # Empty sequences under both conventions and every aggregation.
    empty = random_seqs(rng, 4, True)
    empty[1]["mask"] = [0] * len(empty[1]["mask"])
    empty[3]["mask"] = [0] * len(empty[3]["mask"])
    for agg in ("seq-mean-token-mean", "token-mean", "seq-mean-token-sum-norm"):
        for conv in ("count", "exclude"):
            out.append({"name": "empty %s %s" % (conv, agg),
                        "config": config(agg=agg, empty_seqs=conv, beta=0.2), "seqs": empty})
    out.append({"name": "all options", "config": config(clip_ratio_c=3.0, kl_clamp=10, beta=0.3, empty_seqs="exclude"),
                "seqs": dual + empty})
    return [run_case(json.loads(json.dumps(c))) for c in out]


def overlong(length, max_len, buffer, factor):
    expected = max_len - buffer
    exceed = length - expected
    return min(-exceed / buffer * factor, 0)


def overlong_cases():
    out = []
    for max_len, buffer, factor in ((96, 16, 1.0), (40, 40, 0.5), (512, 128, 1.0), (10, 1, 2.0)):
        for length in sorted({0, 1, max_len - buffer - 1, max_len - buffer, max_len - buffer + 1,
                              max_len - buffer // 2, max_len - 1, max_len}):
            if length >= 0:
                out.append({"length": length, "max_len": max_len, "buffer": buffer, "penalty": factor,
                            "want": overlong(length, max_len, buffer, factor)})
    return out


def main():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "verl_golden.json")
    doc = {"source": "verl core_algos.py compute_policy_loss, kl_penalty(low_var_kl), agg_loss; DAPO overlong reward",
           "loss": cases(), "overlong": overlong_cases()}
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


if __name__ == "__main__":
    main()
