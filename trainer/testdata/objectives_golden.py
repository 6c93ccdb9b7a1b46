#!/usr/bin/python3
"""Golden numbers for the objectives beside GRPO + PPO clip.

Writes objectives_golden.json beside this file. Each case follows verl's
formulas, re-typed here in numpy (float64) from verl (2026):

  verl/trainer/ppo/core_algos.py
    compute_rloo_outcome_advantage, compute_reinforce_plus_plus_outcome_
    advantage (gamma = 1, outcome reward on the last token, no KL in the
    reward), compute_reinforce_plus_plus_baseline_outcome_advantage,
    compute_gdpo_outcome_advantage (with gdpo_reward_keys and weights),
    compute_policy_loss_gspo, compute_policy_loss_cispo, agg_loss,
    kl_penalty("low_var_kl");
  verl/utils/torch_functional.py  masked_mean, masked_var, masked_whiten;
  verl/trainer/ppo/rollout_corr_helper.py
    compute_rollout_correction_weights (token, sequence; TIS threshold),
    compute_rollout_rejection_mask (token_k1, seq_sum_k1, seq_mean_k1),
    compute_offpolicy_metrics (kl, k3_kl, log_ppl_diff), compute_is_metrics
    (rollout_is_eff_sample_size).

Outcome advantages are computed as verl does, on (batch, tokens) tensors
with the reward on each response's last token and the response mask, then
read back on the first token. The loss gradients emulate autograd with
detach(): every term verl detaches reads a frozen copy of log_prob, and the
gradient is a central difference in the live copy alone (h = 1e-6).

Inputs are float32 values, as SeqInput and MismatchInput hold them. Run:

  /usr/bin/python3 trainer/testdata/objectives_golden.py
"""

import json
import math
import os

import numpy as np

SAFETY = 20.0


def f32(xs):
    return [float(np.float32(x)) for x in xs]


# ---- verl_F helpers ----

def masked_mean(v, m, axis=None):
    return (v * m).sum(axis=axis) / (m.sum(axis=axis) + 1e-8)


def masked_whiten(v, m):
    mean = masked_mean(v, m)
    var = masked_mean((v - mean) ** 2, m)
    n = m.sum()
    var = var * n / (n - 1)
    return (v - mean) / np.sqrt(var + 1e-8)


def token_matrix(values, tokens):
    """(batch, T) with values[i] on every one of the tokens[i] response tokens."""
    T = max(tokens)
    mask = np.array([[1.0 if t < n else 0.0 for t in range(T)] for n in tokens])
    return np.array(values)[:, None] * mask, mask


# ---- advantages ----

def group_ids(n, g):
    return [i // g for i in range(n)]


def rloo(rewards, g):
    idx = group_ids(len(rewards), g)
    out = []
    for i, r in enumerate(rewards):
        grp = [rewards[j] for j in range(len(rewards)) if idx[j] == idx[i]]
        k = len(grp)
        if k == 1:
            out.append(r)
        else:
            mean = np.mean(grp)
            out.append(r * k / (k - 1) - mean * k / (k - 1))
    return out


def grpo_scores(scores, g, eps):
    idx = group_ids(len(scores), g)
    out = []
    for i, r in enumerate(scores):
        grp = np.array([scores[j] for j in range(len(scores)) if idx[j] == idx[i]])
        mean, std = (0.0, 1.0) if len(grp) == 1 else (grp.mean(), grp.std(ddof=1))
        out.append((r - mean) / (std + eps))
    return np.array(out)


def whiten_outcome(values, tokens):
    mat, mask = token_matrix(values, tokens)
    return (masked_whiten(mat, mask) * mask)[:, 0]


def reinforce_pp(rewards, g, tokens, baseline):
    x = np.array(rewards, dtype=np.float64)
    if baseline:
        idx = group_ids(len(x), g)
        means = {}
        for gid in set(idx):
            grp = [x[j] for j in range(len(x)) if idx[j] == gid]
            means[gid] = 0.0 if len(grp) == 1 else np.mean(grp)
        x = np.array([x[i] - means[idx[i]] for i in range(len(x))])
    return whiten_outcome(x, tokens)


def gdpo(components, weights, g, eps, tokens):
    s = np.zeros(len(components[0]))
    for c, w in zip(components, weights):
        s = s + w * grpo_scores(c, g, eps)
    return whiten_outcome(s, tokens)


def advantage_cases():
    rng = np.random.default_rng(20260501)
    G = 4
    out = []
    # Three groups of four: spread, zero spread, a 0/1 group.
    rewards = [0.5, 2.0, 1.25, 3.0, 1.5, 1.5, 1.5, 1.5, 0.0, 1.0, 1.0, 0.0]
    tokens = [int(n) for n in rng.integers(1, 12, len(rewards))]
    ones = [1] * len(rewards)
    out.append({"name": "rloo", "estimator": "rloo", "group_size": G, "rewards": rewards,
                "want": rloo(rewards, G)})
    out.append({"name": "rloo group of one", "estimator": "rloo", "group_size": 1, "rewards": [2.0, -1.0],
                "want": rloo([2.0, -1.0], 1)})
    for base, name in ((False, "reinforce_pp"), (True, "reinforce_pp_baseline")):
        out.append({"name": name + " tokens", "estimator": name, "group_size": G, "rewards": rewards,
                    "tokens": tokens, "want": list(reinforce_pp(rewards, G, tokens, base))})
        out.append({"name": name + " per rollout", "estimator": name, "group_size": G, "rewards": rewards,
                    "want": list(reinforce_pp(rewards, G, ones, base))})
    # GDPO: answer (0/2), format (0..0.5 in eighths), tool success (0..1).
    comps = [[2.0 * (rng.random() < 0.5) for _ in range(12)],
             [0.125 * int(rng.integers(0, 5)) for _ in range(12)],
             [float(np.float32(rng.random())) for _ in range(12)]]
    comps[0][4:8] = [2.0, 2.0, 2.0, 2.0]  # a component with no spread in group 1
    weights = [1.0, 0.5, 1.0]
    total = [sum(w * c[i] for c, w in zip(comps, weights)) for i in range(12)]
    out.append({"name": "gdpo tokens", "estimator": "gdpo", "group_size": G, "rewards": total, "eps": 1e-6,
                "tokens": tokens, "components": comps, "weights": weights,
                "want": list(gdpo(comps, weights, G, 1e-6, tokens))})
    out.append({"name": "gdpo per rollout", "estimator": "gdpo", "group_size": G, "rewards": total, "eps": 1e-6,
                "components": comps, "weights": weights, "want": list(gdpo(comps, weights, G, 1e-6, ones))})
    return out


# ---- losses ----

def agg_loss(mat, mask, mode, max_tokens):
    counts = mask.sum(axis=-1)
    n = float(mask.shape[0])  # every sequence here has a loss token
    if mode == "token-mean":
        return (mat * mask).sum() / mask.sum()
    if mode == "seq-mean-token-mean":
        return ((mat * mask).sum(axis=-1) / (counts + 1e-8)).sum() / n
    if mode == "seq-mean-token-sum-norm":
        return (mat * mask).sum(axis=-1).sum() / n / max_tokens
    raise ValueError(mode)


def gspo_pg(logp, det, old, adv, mask, lo, hi):
    """verl's pg_losses of GSPO: detached terms read det."""
    seq_len = np.maximum(mask.sum(axis=-1), 1)
    seq_lr = ((det - old) * mask).sum(axis=-1) / seq_len
    log_s = np.minimum(logp - det + seq_lr[:, None], 10.0)
    s = np.exp(log_s)
    pg1, pg2 = -adv * s, -adv * np.clip(s, 1 - lo, 1 + hi)
    return np.maximum(pg1, pg2), masked_mean((pg2 > pg1).astype(float), mask)


def cispo_pg(logp, det, old, adv, mask, lo, hi):
    ratio = np.exp(np.clip(det - old, -SAFETY, SAFETY))
    clipped = np.clip(ratio, 1 - lo, 1 + hi)
    return -clipped * adv * logp, masked_mean((ratio != clipped).astype(float), mask)


def low_var_kl(logp, ref, kl_clamp):
    kl = np.clip(ref - logp, -SAFETY, SAFETY)
    k = np.exp(kl) - kl - 1
    return np.clip(k, -kl_clamp, kl_clamp) if kl_clamp else k


def loss_value(cfg, logp, det, old, ref, adv, mask, isw):
    pgfn = gspo_pg if cfg["loss"] == "gspo" else cispo_pg
    # verl's CISPO example sets clip_ratio_low = 10: no lower bound.
    lo = cfg["eps_low"] if cfg["loss"] == "gspo" else 10.0
    pg, clipfrac = pgfn(logp, det, old, adv, mask, lo, cfg["eps_high"])
    if isw is not None:
        pg = pg * isw
    # verl's GSPO always aggregates by seq-mean-token-mean; the other
    # modes aggregate its token losses as agg_loss would.
    agg = cfg["agg"]
    policy = agg_loss(pg, mask, agg, cfg["max_tokens"])
    total, kl = policy, 0.0
    if ref is not None:
        kld = low_var_kl(logp, ref, cfg["kl_clamp"])
        total = policy + cfg["beta"] * agg_loss(kld, mask, agg, cfg["max_tokens"])
        kl = masked_mean(kld, mask)
    return total, policy, kl, clipfrac


def run_loss(case):
    cfg, seqs = case["config"], case["seqs"]
    T = max(len(s["mask"]) for s in seqs)

    def pad(key):
        return np.array([s[key] + [0.0] * (T - len(s[key])) for s in seqs], dtype=np.float64)

    logp, old, mask = pad("logp"), pad("old"), pad("mask")
    ref = pad("ref") if "ref" in seqs[0] else None
    isw = pad("isw") if "isw" in seqs[0] else None
    adv = np.array([[s["adv"]] * T for s in seqs])
    total, policy, kl, clipfrac = loss_value(cfg, logp, logp, old, ref, adv, mask, isw)
    h = 1e-6
    grad = np.zeros_like(logp)
    for i in range(logp.shape[0]):
        for t in range(len(seqs[i]["mask"])):
            if not seqs[i]["mask"][t]:
                continue
            up, dn = logp.copy(), logp.copy()
            up[i, t] += h
            dn[i, t] -= h
            lp = loss_value(cfg, up, logp, old, ref, adv, mask, isw)[0]
            lm = loss_value(cfg, dn, logp, old, ref, adv, mask, isw)[0]
            grad[i, t] = (lp - lm) / (2 * h)
    case["want"] = {"loss": float(total), "policy_loss": float(policy), "kl": float(kl),
                    "clip_frac": float(clipfrac),
                    "coef": [list(grad[i, : len(s["mask"])]) for i, s in enumerate(seqs)]}
    return case


def random_seqs(rng, n, with_ref, spread, with_isw=False):
    seqs = []
    for _ in range(n):
        T = int(rng.integers(3, 8))
        lp = -3 * rng.random(T)
        mask = [int(m) for m in (rng.random(T) < 0.8)]
        mask[0] = 1
        s = {"logp": f32(lp), "old": f32(lp - spread * (2 * rng.random(T) - 1)), "mask": mask,
             "adv": float(4 * rng.random() - 2)}
        if with_ref:
            s["ref"] = f32(lp + 2 * rng.random(T) - 1)
        if with_isw:
            s["isw"] = f32(0.5 + 1.5 * rng.random(T))
        seqs.append(s)
    return seqs


def loss_config(**kw):
    c = {"loss": "gspo", "eps_low": 3e-4, "eps_high": 4e-4, "beta": 0.0, "kl_clamp": 0.0,
         "agg": "seq-mean-token-mean", "max_tokens": 8}
    c.update(kw)
    return c


def loss_cases():
    rng = np.random.default_rng(20260502)
    out = []
    # GSPO: a tiny per-token spread keeps some s_i inside GSPO's band and
    # pushes others out; a wide range leaves every sequence unclipped.
    tight = random_seqs(rng, 6, True, 0.004)
    out.append({"name": "gspo paper clip", "config": loss_config(), "seqs": tight})
    out.append({"name": "gspo paper clip k3", "config": loss_config(beta=0.2, kl_clamp=10), "seqs": tight})
    wide = random_seqs(rng, 5, True, 0.6)
    for agg in ("seq-mean-token-mean", "token-mean", "seq-mean-token-sum-norm"):
        out.append({"name": "gspo wide clip " + agg, "config": loss_config(eps_low=0.2, eps_high=0.28, agg=agg),
                    "seqs": wide})
    out.append({"name": "gspo wide clip k3", "config": loss_config(eps_low=0.2, eps_high=0.28, beta=0.3), "seqs": wide})
    big = [{"logp": [-1.0, -0.5, -2.0], "old": [-15.0, -14.0, -13.0], "mask": [1, 1, 1], "adv": -0.7}]
    out.append({"name": "gspo log-ratio above 10", "config": loss_config(eps_low=0.2, eps_high=1e9), "seqs": big})
    out.append({"name": "gspo importance weights", "config": loss_config(eps_low=0.2, eps_high=0.28),
                "seqs": random_seqs(rng, 4, False, 0.6, with_isw=True)})
    # CISPO: ratios on both sides of 1 + eps_high.
    cs = random_seqs(rng, 5, True, 0.8)
    for agg in ("token-mean", "seq-mean-token-mean", "seq-mean-token-sum-norm"):
        out.append({"name": "cispo " + agg, "config": loss_config(loss="cispo", eps_low=0.2, eps_high=0.28, agg=agg),
                    "seqs": cs})
    out.append({"name": "cispo k3", "config": loss_config(loss="cispo", eps_high=0.2, beta=0.3, kl_clamp=10,
                                                          agg="token-mean"), "seqs": cs})
    out.append({"name": "cispo importance weights", "config": loss_config(loss="cispo", eps_high=0.28, agg="token-mean"),
                "seqs": random_seqs(rng, 4, False, 0.8, with_isw=True)})
    return [run_loss(json.loads(json.dumps(c))) for c in out]


# ---- rollout correction ----

def mismatch_case(name, train, sampler, mask, is_cap, rs_lo, rs_hi):
    T = max(len(m) for m in mask)

    def pad(rows):
        return np.array([r + [0.0] * (T - len(r)) for r in rows], dtype=np.float64)

    old, roll, m = pad(train), pad(sampler), pad(mask)
    lr = old - roll
    lrs = np.clip(lr, -SAFETY, SAFETY)
    tok_w = np.minimum(np.exp(lrs) * m, is_cap)
    seq_sum = (lr * m).sum(axis=-1, keepdims=True)
    seq_w = np.minimum(np.exp(np.clip(seq_sum, -SAFETY, SAFETY)) * m, is_cap) * m
    # verl's k1 bounds are on pi_rollout/pi_train: ours [lo, hi] is its "1/hi_1/lo".
    v_lo, v_hi = math.log(1 / rs_hi), math.log(1 / rs_lo)
    k1 = -lrs
    keep_tok = (k1 >= v_lo) & (k1 <= v_hi)
    ssum = (k1 * m).sum(axis=-1)
    smean = ssum / (m.sum(axis=-1) + 1e-8)
    keep_seq = ((ssum >= v_lo) & (ssum <= v_hi))[:, None] & np.ones_like(m, dtype=bool)
    keep_geo = ((smean >= v_lo) & (smean <= v_hi))[:, None] & np.ones_like(m, dtype=bool)

    def ess(w):
        wc = np.clip(w, 0, is_cap)
        norm = wc / (masked_mean(wc, m) + 1e-8)
        return 1.0 / masked_mean(norm ** 2, m)

    def masked(keep):
        kept = keep.astype(float) * m
        return float(masked_mean(1 - keep.astype(float), m)), float(((m - kept).sum(axis=-1) > 0).mean())

    mlr_roll, mlr_train = masked_mean(roll, m, axis=-1), masked_mean(old, m, axis=-1)
    d = mlr_roll - mlr_train
    return {
        "name": name, "train": train, "sampler": sampler, "mask": mask,
        "is_cap": is_cap, "rs_lo": rs_lo, "rs_hi": rs_hi,
        "want": {
            "token_weights": [list(tok_w[i, : len(r)]) for i, r in enumerate(mask)],
            "seq_weights": [list(seq_w[i, : len(r)]) for i, r in enumerate(mask)],
            "keep_token": [[int(x) for x in (keep_tok[i] * m[i])[: len(r)]] for i, r in enumerate(mask)],
            "keep_sequence": [[int(x) for x in (keep_seq[i] * m[i])[: len(r)]] for i, r in enumerate(mask)],
            "keep_geometric": [[int(x) for x in (keep_geo[i] * m[i])[: len(r)]] for i, r in enumerate(mask)],
            "kl_k1": float(masked_mean(roll - old, m)),
            "kl_k3": float(masked_mean(np.exp(lr) - lr - 1, m)),
            "log_ppl_diff": float(d.mean()),
            "log_ppl_abs_diff": float(np.abs(d).mean()),
            "ess_token": float(ess(tok_w)),
            "ess_sequence": float(ess(seq_w)),
            "masked_token": masked(keep_tok),
            "masked_geometric": masked(keep_geo),
            "max_ratio": float(np.exp(lrs)[m > 0].max()),
        },
    }


def mismatch_cases():
    rng = np.random.default_rng(20260503)
    out = []
    for name, spread, lo, hi, cap in (("small mismatch", 0.05, 1 / 1.04, 1.04, 2.0),
                                      ("large mismatch", 1.2, 0.5, 2.0, 2.0),
                                      ("asymmetric band", 0.3, 0.8, 1.5, 1.5)):
        train, sampler, mask = [], [], []
        for _ in range(6):
            T = int(rng.integers(3, 9))
            lp = -4 * rng.random(T)
            train.append(f32(lp))
            sampler.append(f32(lp + spread * (2 * rng.random(T) - 1)))
            mk = [int(x) for x in (rng.random(T) < 0.8)]
            mk[0] = 1
            mask.append(mk)
        out.append(mismatch_case(name, train, sampler, mask, cap, lo, hi))
    return out


def main():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "objectives_golden.json")
    doc = {"source": "verl core_algos.py (rloo, reinforce_plus_plus[_baseline], gdpo, gspo, cispo), "
                     "torch_functional.py masked_whiten, rollout_corr_helper.py",
           "advantages": advantage_cases(), "loss": loss_cases(), "mismatch": mismatch_cases()}
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


if __name__ == "__main__":
    main()
