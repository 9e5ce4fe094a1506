"""The trick estimator judged against a played table (issue #65's goal: MAE at most 0.3 tricks against
`models/card-player`'s played table on test): ``bridgerl evaluate trick-estimator``."""

from __future__ import annotations

import numpy as np

from bridgerl.core.dataset import BUNDLED_SPLITS, load_dataset


def estimator_mae(model, data="test") -> dict:
    """{"mae", "exact", "mae_by_strain", "dd_mae", ...}: the estimator's medians against a dataset's played table
    (every declarer and strain), and the DD table's distance from the played one as a reference (``dd_mae``)."""
    from bridgerl.agents.learned.trick_estimator import TrickEstimator

    estimator = model if isinstance(model, TrickEstimator) else TrickEstimator.load(model)
    dataset = load_dataset(data).with_tricks("played")  # one line where there is no played table
    owner, played = np.asarray(dataset.owner, np.uint8), np.asarray(dataset.dd, np.int64)
    table = estimator.table(owner)
    player = (dataset.played_by or {}).get("player")
    error = np.abs(table - played)
    return {"data": str(data), "deals": len(owner), "mae": float(error.mean()), "exact": float((error == 0).mean()),
            "mae_by_strain": [float(v) for v in error.mean(axis=(0, 1))],
            "dd_mae": float(np.abs(np.asarray(dataset.tables["dd"], np.int64) - played).mean()),
            "bundled": str(data) in BUNDLED_SPLITS, "model": estimator.model,
            "player": str(player) if player is not None else "its player"}


def estimator_lines(result: dict) -> list[str]:
    strains = ", ".join(f"{s} {v:.2f}" for s, v in zip(("C", "D", "H", "S", "NT"), result["mae_by_strain"]))
    return [f"{result['model']} on {result['data']} ({result['deals']} deals x 20 declarer-strain games, the played "
            f"table of {result['player']}): MAE {result['mae']:.3f} tricks (median of its distribution), exact "
            f"{100 * result['exact']:.1f}%; by strain {strains}",
            f"reference: the DD table is {result['dd_mae']:.3f} tricks from the played table"]


__all__ = ["estimator_lines", "estimator_mae"]
