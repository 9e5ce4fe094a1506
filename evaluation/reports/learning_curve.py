"""Learning curves of training runs (`bridgerl evaluate curve RUN ... --out PNG`) from each run's ``log.jsonl``,
against env steps: for competitive runs the duplicate result against the competitive rule baseline at every
evaluation, for uncontested runs the held-out IMPs/deal against constructive par. ``--against SPEC``
(`heldout_curve`): a competitive run's snapshots replayed against another system after training, e.g. a held-out
one that took no part in training or model selection (issue #22); the results are cached in the run directory."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from bridgerl.core.files import atomic_write_with

KEY = "vs_rules_imps_per_board"
UNCONTESTED_KEY = "imps_per_deal"
HELDOUT_KEY = "vs_heldout_imps_per_board"
LABELS = {KEY: ("IMPs/board vs rule baseline (duplicate)", "Competitive bidders against the rule baseline"),
          HELDOUT_KEY: ("IMPs/board vs the held-out system (duplicate)", "Competitive bidders against a held-out "
                                                                       "system"),
          UNCONTESTED_KEY: ("held-out IMPs/deal vs constructive par", "Uncontested bidding, held-out evaluations")}


def read_curve(run: str | Path) -> dict:
    """{"env_steps", "imps", "ci95", "wall_s"} arrays and "key" (which figure) from a run directory (or its
    log.jsonl) of `bridgerl train competitive` or `bridgerl train uncontested`."""
    path = Path(run)
    path = path / "log.jsonl" if path.is_dir() else path
    if not path.exists():
        raise FileNotFoundError(f"{path}: no training log (a run directory of `bridgerl train competitive` or "
                                f"`bridgerl train uncontested`)")
    points, key = [], None
    for number, line in enumerate(path.read_text().splitlines(), 1):
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise ValueError(f"{path}:{number}: not a JSON record ({error})") from None
        evaluation = record.get("eval")
        found = [name for name in (KEY, UNCONTESTED_KEY) if evaluation and name in evaluation]
        if found:
            key = key or found[0]
            points.append((record["env_steps"], evaluation[key], evaluation["ci95"], record.get("wall_s", 0.0)))
    if not points:
        raise ValueError(f"{path}: no held-out evaluation in this log")
    steps, imps, ci, wall = (np.array(column, dtype=np.float64) for column in zip(*points))
    return {"env_steps": steps, "imps": imps, "ci95": ci, "wall_s": wall, "key": key}


def heldout_curve(run: str | Path, against, name: str, data="valid", deals: int = 1000,
                  progress: bool = False) -> dict:
    """`read_curve`'s dict for a competitive run's snapshots (``snapshots/model-STEPS.msgpack``, one per
    evaluation) each played in duplicate against ``against`` (an agent; ``name`` its spec) on the first ``deals``
    boards of ``data``. Finished matches are kept in ``RUN/heldout-NAME-DATA-DEALS.json`` and not replayed."""
    import re

    from bridgerl.core import load_dataset
    from bridgerl.core.files import atomic_write_text
    from bridgerl.evaluation.bidding.competitive import duplicate_match
    from bridgerl.arena.specs import load_agent

    run = Path(run)
    snapshots = sorted((run / "snapshots").glob("model-*.msgpack"))
    if not snapshots:
        raise ValueError(f"{run}: no snapshots (snapshots/model-STEPS.msgpack of `bridgerl train competitive`)")
    dataset = load_dataset(data)
    slug = re.sub(r"[^A-Za-z0-9]+", "_", f"{name}-{Path(str(dataset.source)).stem}-{deals}").strip("_")
    cache_path = run / f"heldout-{slug}.json"
    cache = json.loads(cache_path.read_text()) if cache_path.exists() else {}
    if progress:
        from tqdm import tqdm

        snapshots = tqdm(snapshots, desc=f"{run.name} vs {name}", unit="snapshot")
    for snapshot in snapshots:
        steps = str(int(snapshot.stem.split("-")[1]))
        if steps not in cache:
            match = duplicate_match(load_agent(str(snapshot), "competitive_bidding"), against, dataset, deals=deals)
            cache[steps] = [match["imps_per_board"], match["ci95"]]
            atomic_write_text(cache_path, json.dumps(cache, indent=1))
    steps = sorted(cache, key=int)
    return {"env_steps": np.array([int(s) for s in steps], np.float64),
            "imps": np.array([cache[s][0] for s in steps]), "ci95": np.array([cache[s][1] for s in steps]),
            "wall_s": np.zeros(len(steps)), "key": HELDOUT_KEY}


def plot_curves(runs: dict[str, str | Path], out: str | Path, title: str | None = None,
                curves: dict[str, dict] | None = None) -> Path:
    """One line per run (label -> run directory, or ``curves``: label -> a `read_curve` dict) with its 95% CI band;
    writes the PNG ``out``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    curves = curves if curves is not None else {label: read_curve(run) for label, run in runs.items()}
    keys = {curve["key"] for curve in curves.values()}
    if len(keys) > 1:
        raise ValueError("plot competitive and uncontested runs separately: their figures differ")
    ylabel, default_title = LABELS[keys.pop()]
    fig, ax = plt.subplots(figsize=(7, 4))
    for label, curve in curves.items():
        steps = curve["env_steps"] / 1e6
        line, = ax.plot(steps, curve["imps"], marker="o", markersize=3, label=label)
        ax.fill_between(steps, curve["imps"] - curve["ci95"], curve["imps"] + curve["ci95"],
                        color=line.get_color(), alpha=0.2)
    if ylabel.startswith("IMPs/board"):
        ax.axhline(0.0, color="black", linewidth=0.8)
    ax.set_xlabel("env steps (calls), millions")
    ax.set_ylabel(ylabel)
    ax.set_title(title or default_title)
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    out = Path(out)
    atomic_write_with(out, lambda handle: fig.savefig(handle, format="png", dpi=120))
    plt.close(fig)
    return out
