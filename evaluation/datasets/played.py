"""Played-tricks tables (`bridgerl data played`, issue #38): for each deal, the tricks each declarer takes in each
strain (the ``dd`` layout, declarer N E S W x strain C D H S NT) when a learned card player plays all four seats.

Each of the 20 games of a deal starts at the opening lead of the canonical auction
(`bridgerl.core.bridge.opening_lead_calls`: passes to declarer, declarer bids the contract, three passes;
undoubled) and is played to the end by the card player, greedy (the legal card with the highest output, the lowest
card on a tie), in the JAX whole deal (`jaxenv.make("bridge")`), all games of a chunk of deals in one jitted
``lax.scan``. The contract's level is part of what the player sees (it plays to make or to beat it): ``level="dd"``
(the default) bids each strain at the level the DD table makes (DD tricks - 6, at least 1: the contract a side
bidding that strain to its limit would play; the level of every contract a bidder reaches that makes double
dummy), a number 1..7 bids every strain at that level.

The dataset is written whole with the ``played`` array and the player that made it: ``played_player`` (the
model's path as given), ``played_hash`` (SHA-256 of its checkpoint file), ``played_level`` ("dd" or the level).
Chunks of deals are written atomically to ``OUT.partial/`` and a rerun of the same command resumes from them.
"""

from __future__ import annotations

import functools
import shutil
from pathlib import Path

import numpy as np

from bridgerl.core import load_dataset
from bridgerl.core.dataset import PLAYED_META, atomic_savez, dataset_hash, file_hash, read_npz
from bridgerl.core.files import claim_job_folder

CHUNK = 256
"""Deals per chunk (the unit of resuming; every chunk is played as one batch of 20 x CHUNK games)."""


def load_table_player(spec: str):
    """(player, model path) of a PLAY_SPEC naming a learned card player (a bare path or ``cardnet:model=PATH``);
    other players are refused in one line (the tables are batched in JAX)."""
    from bridgerl.arena.specs import load_play_agent

    player = load_play_agent(spec)
    if not callable(getattr(player, "jax_cards", None)):
        raise ValueError(f"--player {spec!r}: played tables are batched in JAX and need a learned card player "
                         "(models/card-player, or cardnet:model=PATH)")
    return player, player.model


def contract_levels(dd: np.ndarray, level) -> np.ndarray:
    """int[N, 4, 5]: the level each game is bid at (`level` "dd": DD tricks - 6, at least 1; or a fixed 1..7)."""
    if level == "dd":
        return np.clip(dd.astype(np.int64) - 6, 1, 7)
    return np.full(dd.shape, int(level), np.int64)


@functools.lru_cache(maxsize=8)
def make_player_games(player, chunk: int):
    """A jitted function (owner [C, 52], dd [C, 4, 5], dealer [C], vul [C], bids [C, 4, 5]) -> declarer's tricks
    int32[C, 4, 5], the 20 games of each of ``chunk`` deals played out by ``player`` (greedy); one per (player,
    chunk), so a second table of the same size does not compile again."""
    import jax
    import jax.numpy as jnp

    from bridgerl.core.bridge import CARD_OFFSET
    from bridgerl.envs.jaxenv.bridge import Bridge

    games = chunk * 20

    @jax.jit
    def play(owner, dd, dealer, vul, bids):
        env = Bridge(owner=jnp.repeat(owner, 20, 0), dd=jnp.repeat(dd, 20, 0), dealer=jnp.repeat(dealer, 20),
                     vul=jnp.repeat(vul, 20), par=jnp.zeros(games, jnp.int32))
        index = jnp.arange(games)
        declarer = jnp.tile(jnp.repeat(jnp.arange(4), 5), chunk)
        states = jax.vmap(env.opening_lead)(index, bids.reshape(-1), jnp.zeros(games, jnp.int32), declarer)

        def body(states, _):
            return jax.vmap(env.step)(states, CARD_OFFSET + player.jax_cards(states)), None

        states, _ = jax.lax.scan(body, states, None, length=52)
        return states.tricks.reshape(chunk, 4, 5)

    return play


def played_tables(player, dataset, rows=None, level="dd", chunk: int = CHUNK) -> np.ndarray:
    """uint8[len(rows), 4, 5]: the played-tricks table of each row of ``dataset`` (all rows by default)."""
    dataset = load_dataset(dataset)
    level = check_level(level)
    rows = np.arange(len(dataset)) if rows is None else np.asarray(rows, np.int64)
    size = min(chunk, max(len(rows), 1))
    play = make_player_games(player, size)
    return np.concatenate([_play_rows(play, dataset, rows[s:s + size], level, size)
                           for s in range(0, len(rows), size)] or [np.zeros((0, 4, 5), np.uint8)])


def check_level(level) -> str | int:
    if level == "dd":
        return "dd"
    try:
        value = int(level)
    except (TypeError, ValueError):
        value = 0
    if not 1 <= value <= 7:
        raise ValueError(f"--level must be 'dd' or a level 1..7, got {level!r}")
    return value


def played_job(data, dataset, model, digest: str, level, chunk: int) -> dict:
    """The identity of a played-tables job (`bridgerl.core.identity`), stamped in ``OUT.partial/job.json``."""
    return {"command": "data played", "data": str(data), "data_sha256": dataset_hash(dataset), "rows": len(dataset),
            "player": str(model), "player_checkpoint": digest, "level": level, "chunk": int(chunk)}


def write_played(data, out, player_spec: str = "models/card-player", level="dd", chunk: int = CHUNK,
                 progress: bool = True) -> Path:
    """Write ``data`` whole with its played table (`played_tables`) to ``out``; resumable from ``OUT.partial/``.
    The caller refuses to replace an existing ``out`` (`bridgerl data played --force`)."""
    level = check_level(level)
    if chunk < 1:
        raise ValueError(f"chunk must be at least 1, got {chunk}")
    player, model = load_table_player(player_spec)
    digest = file_hash(model)
    dataset = load_dataset(data)
    arrays = read_npz(Path(dataset.file or dataset.source), "dataset", ValueError)  # extra arrays (seed, ...) kept
    out = Path(out)
    parts = Path(str(out) + ".partial")
    job = played_job(data, dataset, model, digest, level, chunk)
    claim_job_folder(parts, job)
    starts = list(range(0, len(dataset), chunk))
    todo = [s for s in starts if not (parts / f"rows_{s:07d}.npy").exists()]
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(dataset), initial=len(dataset) - sum(min(chunk, len(dataset) - s) for s in todo),
                   unit="deal", desc=f"played -> {out.name}")
    try:
        play = None
        for s in todo:
            rows = np.arange(s, min(s + chunk, len(dataset)))
            if play is None:
                play = make_player_games(player, chunk)
            table = _play_rows(play, dataset, rows, level, chunk)
            path = parts / f"rows_{s:07d}.npy"
            tmp = path.with_suffix(".tmp.npy")
            np.save(tmp, table)
            tmp.replace(path)
            if bar is not None:
                bar.update(len(rows))
    finally:
        if bar is not None:
            bar.close()
    played = np.concatenate([np.load(parts / f"rows_{s:07d}.npy") for s in starts]) if starts else \
        np.zeros((0, 4, 5), np.uint8)
    arrays = {k: v for k, v in arrays.items() if k != "played" and k not in PLAYED_META}
    arrays.update({"owner": dataset.owner, "dd": dataset.dd, "played": played.astype(np.int8),
                   "played_player": np.asarray(str(model)), "played_hash": np.asarray(digest),
                   "played_level": np.asarray(str(level))})
    if dataset.board is not None:
        arrays["board"] = dataset.board
    atomic_savez(out, **arrays)
    shutil.rmtree(parts)
    return out


def _play_rows(play, dataset, rows, level, chunk) -> np.ndarray:
    from bridgerl.core.board import dealers_for_boards, vul_codes_for_boards

    pad = np.concatenate([rows, np.full(chunk - len(rows), rows[0])])
    dd = dataset.dd[pad]
    bids = (contract_levels(dd, level) - 1) * 5 + np.arange(5)
    boards = dataset.boards[pad]
    tricks = play(dataset.owner[pad].astype(np.int8), dd.astype(np.int8),
                  dealers_for_boards(boards).astype(np.int32), vul_codes_for_boards(boards).astype(np.int32),
                  bids.astype(np.int32))
    return np.asarray(tricks)[:len(rows)].astype(np.uint8)


def table_gap(dataset) -> dict:
    """How a played table differs from the DD table of the same deals: the mean of DD - played tricks (and the
    shares of entries below, equal to and above DD) over all 20 entries of every deal (with the 95% CI of the mean
    over deals), by strain, by the level the DD table makes (DD tricks - 6; 0 or less: nothing makes) and by the
    bonus class of that contract."""
    from bridgerl.core.scoring import BONUS_NAMES, bonus_level

    dataset = load_dataset(dataset)
    if dataset.tables is None:
        raise ValueError(f"{dataset.source}: no played-tricks table (make one with `bridgerl data played`)")
    dd = dataset.tables["dd"].astype(np.int64)
    gap = dd - dataset.tables["played"].astype(np.int64)

    def stats(mask) -> dict:
        g = gap[mask]
        return {"entries": int(g.size), "dd_minus_played": float(g.mean()) if g.size else float("nan"),
                "played_below_dd": float((g > 0).mean()) if g.size else float("nan"),
                "played_equal_dd": float((g == 0).mean()) if g.size else float("nan"),
                "played_above_dd": float((g < 0).mean()) if g.size else float("nan")}

    strain = np.broadcast_to(np.arange(5), dd.shape)
    level = dd - 6
    kind = np.vectorize(lambda lv, st: bonus_level(int(lv), int(st)) if lv >= 1 else -1)(level, strain)
    from bridgerl.core.stats import mean_ci

    overall = stats(np.ones(dd.shape, bool))
    overall["ci95"] = float(mean_ci(gap.reshape(len(gap), -1).mean(1))[1]) if len(gap) > 1 else float("nan")
    return {"deals": len(dataset), "played_by": dataset.played_by, "all": overall,
            "by_strain": {"CDHS"[k] if k < 4 else "NT": stats(strain == k) for k in range(5)},
            "by_dd_level": {("none" if lv <= 0 else str(lv)): stats(np.minimum(np.maximum(level, 0), 7) == lv)
                            for lv in range(0, 8)},
            "by_contract": {("nothing makes" if k == -1 else BONUS_NAMES[k]): stats(kind == k)
                            for k in (-1, 0, 1, 2, 3)}}


__all__ = ["CHUNK", "table_gap", "contract_levels", "load_table_player", "played_tables", "write_played"]
