"""Widen a trained namer without changing what it computes (Net2WiderNet, Chen et al. 2016).

Each widened convolution gets extra output channels that copy randomly chosen existing ones
(weights and batch-norm statistics alike); the next layer divides the weights it gives a copied
channel by the number of copies, so the widened network's output is the narrow one's. Training
then goes on from there with more capacity instead of starting from scratch: the narrow namer
took hours of CPU to learn what it knows.
"""

from __future__ import annotations

import numpy as np

# build_model's layout: four stages of two 3x3 convolutions, each followed by batch norm;
# then a 1x1 convolution (fixed 32 outputs) into the fully connected head.
_STAGE_PREFIXES = ("0", "2", "4", "6")
_SQUEEZE = "7"


def _conv_chain(n_stages: int) -> list[tuple[str, str, int]]:
    """(conv key, its batch-norm key, stage index) in data order."""
    chain = []
    for s, prefix in enumerate(_STAGE_PREFIXES[:n_stages]):
        chain.append((f"{prefix}.0", f"{prefix}.1", s))
        chain.append((f"{prefix}.3", f"{prefix}.4", s))
    return chain


def widen_state(
    state: dict, old: tuple[int, ...], new: tuple[int, ...], rng: np.random.Generator,
    noise: float = 0.0,
) -> dict:
    """A state dict for `build_model(new)` computing the same function as `state` for
    `build_model(old)` (exactly when `noise` is 0; otherwise the copies' incoming weights get
    Gaussian noise of `noise` times their layer's weight spread, to let the copies diverge).
    """
    if len(old) != len(new) or any(n < o for o, n in zip(old, new, strict=True)):
        raise ValueError(f"cannot widen {old} to {new}: same number of stages, none narrower")
    out = {k: v.clone() for k, v in state.items()}
    mapping: np.ndarray | None = None  # new input channel -> old channel of the layer before
    for conv, bn, stage in _conv_chain(len(old)):
        w = out[f"{conv}.weight"]
        if mapping is not None:  # inputs: split each copied channel's weight among its copies
            w = _split_inputs(w, mapping, noise)
        grown = new[stage] - old[stage]
        mapping = np.concatenate([np.arange(old[stage]), rng.integers(0, old[stage], grown)])
        out[f"{conv}.weight"] = w[mapping].contiguous()
        for name in ("weight", "bias", "running_mean", "running_var"):
            out[f"{bn}.{name}"] = out[f"{bn}.{name}"][mapping].contiguous()
    out[f"{_SQUEEZE}.weight"] = _split_inputs(out[f"{_SQUEEZE}.weight"], mapping, noise)
    return out


def _split_inputs(w, mapping: np.ndarray, noise: float):  # torch.Tensor -> torch.Tensor
    """Weights over the widened inputs: each copied channel's weight shared among its copies,
    plus noise on the shared ones only."""
    import torch

    counts = torch.from_numpy(np.bincount(mapping, minlength=w.shape[1])[mapping]).to(w.dtype)
    w = w[:, mapping] / counts[None, :, None, None]
    if noise:
        shared = (counts > 1).to(w.dtype)[None, :, None, None]
        w = w + shared * noise * float(w.std()) * torch.randn_like(w)
    return w.contiguous()
