"""How well a card-location model knows where the cards are (`bridgerl evaluate inference`, issue #20).

Every (position, unseen card) pair of a positions file is scored from the chooser's view: the log-loss of the true
seat (natural log) and whether the most likely seat is the true one (a k-way tie counts 1/k), for the model and
for the uniform prior (the exact probability of each seat when every layout consistent with the cards seen, the
counts and the voids shown is equally likely; no auction ranges). Overall and by trick number.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

from bridgerl.agents.learned.card_location import LocationModel, encode, log_uniform_prior, positions_inputs
from bridgerl.core.positions import load_positions


def _scores(log_probs: np.ndarray, allowed: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(log-loss, accuracy) per unseen card (flattened over positions and cards), from log-probabilities."""
    unseen = target >= 0
    true = np.take_along_axis(log_probs, np.maximum(target, 0)[..., None], -1)[..., 0][unseen]
    masked = np.where(allowed, log_probs, -np.inf)[unseen]
    best = masked.max(-1, keepdims=True)
    ties = np.isclose(masked, best, rtol=0, atol=1e-9)
    hit = np.take_along_axis(ties, np.maximum(target, 0)[unseen][:, None], -1)[:, 0]
    return -true.astype(np.float64), hit / ties.sum(-1)


def evaluate_inference(model, positions_file) -> dict:
    """The model's and the uniform prior's per-card log-loss and accuracy on every position of ``positions_file``;
    ``model`` a `LocationModel` or its path."""
    if not isinstance(model, LocationModel):
        model = LocationModel.load(model)
    positions = load_positions(positions_file)
    if len(positions) == 0:
        raise ValueError(f"{positions_file}: no positions to score")
    inputs, target = positions_inputs(positions)
    x, allowed, counts = encode(**inputs)
    prior_log = log_uniform_prior(allowed, counts)
    model_log = np.where(allowed, model.log_probabilities(x, allowed, counts, prior_log), 0.0)
    model_loss, model_acc = _scores(model_log, allowed, target)
    prior_loss, prior_acc = _scores(prior_log, allowed, target)
    scored = {str(Path(path).resolve()) for path in model.metadata.get("data", []) if path}
    if str(Path(positions_file).resolve()) in scored:
        warnings.warn(f"{positions_file} is a file this model trained or was selected on: not a held-out score",
                      stacklevel=2)
    unseen = target >= 0
    trick = np.broadcast_to((positions.positions["step"].astype(np.int64) // 4 + 1)[:, None], target.shape)[unseen]
    by_trick = []
    for t in range(1, 14):
        sel = trick == t
        if sel.any():
            by_trick.append({"trick": t, "cards": int(sel.sum()), "model_log_loss": float(model_loss[sel].mean()),
                             "uniform_log_loss": float(prior_loss[sel].mean()),
                             "model_accuracy": float(model_acc[sel].mean()),
                             "uniform_accuracy": float(prior_acc[sel].mean())})
    return {"positions": len(positions), "cards": int(unseen.sum()), "source": positions.meta["source"],
            "players": [positions.meta["ns"], positions.meta["ew"]],
            "model": model.metadata.get("command"), "model_log_loss": float(model_loss.mean()),
            "uniform_log_loss": float(prior_loss.mean()), "model_accuracy": float(model_acc.mean()),
            "uniform_accuracy": float(prior_acc.mean()),
            "log_loss_gain_ci95": float(1.96 * np.std(prior_loss - model_loss) / np.sqrt(len(model_loss))),
            "by_trick": by_trick}


def inference_lines(result: dict) -> list[str]:
    lines = [f"{result['positions']} positions, {result['cards']} unseen cards ({result['source']}, "
             f"played by {result['players'][0]} / {result['players'][1]})",
             f"{'':10s} {'log-loss':>9s} {'accuracy':>9s}",
             f"{'model':10s} {result['model_log_loss']:9.4f} {result['model_accuracy']:9.1%}",
             f"{'uniform':10s} {result['uniform_log_loss']:9.4f} {result['uniform_accuracy']:9.1%}",
             f"log-loss gain over uniform: {result['uniform_log_loss'] - result['model_log_loss']:+.4f} "
             f"+/- {result['log_loss_gain_ci95']:.4f} nats per card (95% CI over cards, positions not independent)",
             "", f"{'trick':>5s} {'cards':>7s} {'model LL':>9s} {'unif LL':>9s} {'model acc':>10s} {'unif acc':>9s}"]
    for row in result["by_trick"]:
        lines.append(f"{row['trick']:5d} {row['cards']:7d} {row['model_log_loss']:9.4f} "
                     f"{row['uniform_log_loss']:9.4f} {row['model_accuracy']:10.1%} {row['uniform_accuracy']:9.1%}")
    return lines


__all__ = ["evaluate_inference", "inference_lines"]
