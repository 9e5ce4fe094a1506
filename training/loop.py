"""The one training loop (issue #52): every trainer (the DQN and PPO bidders, the supervised networks, the card
player's self-play) is a recipe this loop drives, and the loop alone keeps the run: the progress bar, one log line a
chunk, the evaluations when due, the checkpoints (the state through `bridgerl.training.state`, the recipe's model
beside it), the state saved on Ctrl-C where the recipe asks for it.

A recipe is any object with these methods (``carry`` is its state pytree, the thing saved and resumed):

- ``done(carry) -> int``: units done (env-step iterations, epochs, updates);
- ``step(carry, n) -> (carry, record)``: ``n`` more units and the log record of them (it raises on a non-finite loss,
  naming the unit and what was kept);
- ``evaluate(carry, record) -> (carry, fields)``: the evaluation merged into the record (it may keep a best model
  and update the carry);
- ``checkpoint(carry, evaluation)``: what it writes beside the saved state (its model), or nothing;
- ``postfix(record, evaluation) -> dict``: the progress bar's figures.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from bridgerl.training.state import save_state


class Recipe(Protocol):
    def done(self, carry) -> int: ...

    def step(self, carry, n: int) -> tuple[Any, dict]: ...

    def evaluate(self, carry, record: dict) -> tuple[Any, dict]: ...

    def checkpoint(self, carry, evaluation: dict | None) -> None: ...

    def postfix(self, record: dict, evaluation: dict | None) -> dict: ...


@dataclass(frozen=True)
class Loop:
    """How the loop keeps one run."""

    out: Path                               # the run directory (log.jsonl, the state file)
    state_file: Path                        # where the state is saved
    meta: dict                              # the run's settings, saved with the state and compared on resume
    total: int                              # units in the run
    unit: str = "step"                      # the progress bar's unit
    desc: str = ""                          # the progress bar's title
    chunk: int = 1                          # units a step (one log line)
    scale: int = 1                          # progress-bar units a loop unit (env steps an iteration)
    eval_every: int | None = 1              # units between evaluations (always one at the last unit)
    checkpoint_seconds: float | None = 0.0  # seconds between checkpoints (0: every step; None: with each evaluation)
    evaluate_first: bool = False            # evaluate (and log) before the first step
    first_record: dict | None = None        # the first evaluation's log record (its unit counters at 0)
    save_on_interrupt: bool = False         # Ctrl-C during the steps saves the last finished step's state
    progress: bool = True
    log_file: str = "log.jsonl"


def _log(path: Path, record: dict) -> None:
    with open(path, "a") as handle:  # a line past the saved state is dropped by a resume (`state.trim_log`)
        handle.write(json.dumps(record) + "\n")


def run_loop(recipe: Recipe, carry, loop: Loop) -> tuple[Any, dict, dict | None]:
    """Drive ``recipe`` from ``carry`` to ``loop.total`` units; returns the last carry, log record and evaluation."""
    log_path = Path(loop.out) / loop.log_file
    bar = None
    if loop.progress:
        from tqdm import tqdm

        bar = tqdm(total=loop.total * loop.scale, initial=recipe.done(carry) * loop.scale, unit=loop.unit,
                   desc=loop.desc, smoothing=0.1)
    record: dict = {}
    evaluation = None
    last_save = time.monotonic()

    def checkpoint(carry) -> None:
        nonlocal last_save
        save_state(loop.state_file, carry, loop.meta)
        recipe.checkpoint(carry, evaluation)
        last_save = time.monotonic()

    stepping = False  # Ctrl-C saves only once the steps began (not during the first evaluation)
    try:
        if loop.evaluate_first:
            carry, evaluation = recipe.evaluate(carry, dict(loop.first_record or {}))
            record = {**(loop.first_record or {}), **evaluation}
            _log(log_path, record)
            if loop.checkpoint_seconds is None:
                checkpoint(carry)
        stepping = True
        while (done := recipe.done(carry)) < loop.total:
            n = min(loop.chunk, loop.total - done)
            carry, record = recipe.step(carry, n)
            done += n
            evaluated = bool(loop.eval_every) and done % loop.eval_every < n or done >= loop.total
            if evaluated:
                carry, evaluation = recipe.evaluate(carry, record)
                record = {**record, **evaluation}
            _log(log_path, record)
            if bar is not None:
                bar.update(n * loop.scale)
                bar.set_postfix(recipe.postfix(record, evaluation))
            due = (evaluated if loop.checkpoint_seconds is None
                   else time.monotonic() - last_save >= loop.checkpoint_seconds or done >= loop.total)
            if due:
                checkpoint(carry)
    except KeyboardInterrupt:
        if loop.save_on_interrupt and stepping:
            save_state(loop.state_file, carry, loop.meta)
        raise
    finally:
        if bar is not None:
            bar.close()
    return carry, record, evaluation
