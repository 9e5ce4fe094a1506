"""A cross table of competitive bidders in duplicate (issue #22): every pair plays the same boards at two tables
(`evaluation.bidding.competitive.duplicate_match`), and each cell is the row agent's IMPs/board against the column agent
with its 95% CI.

With ``play`` (issue #38), the boards are whole deals (`arena.game.game_match`): each auction is played out by
that card player at every seat (tables in lockstep where the player acts on many views at once, as the learned
card player does), so a bidder is judged by what its contracts take at the table, not by double dummy."""

from __future__ import annotations

from bridgerl.evaluation.bidding.competitive import duplicate_match


def cross_table(agents: dict, data="test", deals: int | None = None, progress: bool = False, play=None,
                play_name: str | None = None, seed: int = 0, out=None, identities: dict | None = None,
                play_identity: dict | None = None) -> dict:
    """{"agents": names, "data", "matches": [match results, one per pair, "a" the earlier name]}. With ``play`` (a
    card player) every match is a whole-deal `game_match` with it at all four seats, summarised by
    `summarize_game`; ``out`` (a directory) keeps each match's boards as JSON lines (``MATCH_i_j.jsonl``, each
    recording its match: `bridgerl.arena.game.match_job`) and a rerun resumes them; a file of another match is
    refused before any board is played. ``identities`` ({name: `specs.load_identified`'s identity}) and
    ``play_identity`` are what the files record of the bidders and the player (their classes when not given)."""
    names = list(agents)
    if len(names) < 2:
        raise ValueError(f"a cross table needs at least two agents, got {len(names)}")
    pairs = [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))]
    if play is None:
        if progress:
            from tqdm import tqdm

            pairs = tqdm(pairs, desc="cross table", unit="match")
        matches = [duplicate_match(agents[names[i]], agents[names[j]], data, deals=deals, names=(names[i], names[j]))
                   for i, j in pairs]
        return {"agents": names, "data": matches[0]["data"], "boards": matches[0]["boards"], "matches": matches}
    from pathlib import Path

    from bridgerl.core import load_dataset
    from bridgerl.arena.game import Pair, data_name, game_match, match_job, play_of, summarize_game
    from bridgerl.arena.jsonlines import check_results_file

    dataset = load_dataset(data)
    count = len(dataset) if deals is None else min(deals, len(dataset))
    name = data_name(data, dataset)

    def pair(place: int, agent_name: str) -> Pair:
        if identities is None or play_identity is None:
            return Pair(agent_name, agents[agent_name], play)
        bidder = identities[agent_name]
        return Pair(agent_name, agents[agent_name], play, {
            "bidder": bidder["resolved"], "bidder_checkpoints": bidder["checkpoints"],
            "player": play_identity["resolved"], "player_checkpoints": play_identity["checkpoints"],
            "seed": seed + place})  # `evaluate cross` seeds the agents seed, seed + 1, ... in their order

    seatings = [(i, j, pair(i, names[i]), pair(j, names[j])) for i, j in pairs]
    if out is not None:  # every match file checked before any board is played
        for i, j, a, b in seatings:
            check_results_file(Path(out) / f"MATCH_{i}_{j}.jsonl",
                               match_job("evaluate cross", a, b, dataset, data, 0, seed), "--boards-dir")
        Path(out).mkdir(parents=True, exist_ok=True)
    if progress:
        from tqdm import tqdm

        seatings = tqdm(seatings, desc="cross table", unit="match")
    matches = []
    for i, j, a, b in seatings:
        boards = game_match(a, b, data, deals=count, seed=seed,
                            out=None if out is None else Path(out) / f"MATCH_{i}_{j}.jsonl",
                            command="evaluate cross", flag="--boards-dir")
        matches.append({**summarize_game(boards, names[i], names[j]), "play": play_of(a, b), "data": name})
    resolved = play_identity["resolved"] if play_identity is not None else matches[0]["play"]["a"]
    return {"agents": names, "data": name, "boards": count, "play": play_name or repr(play),
            "play_resolved": resolved, "matches": matches}


def cell(table: dict, row: str, column: str) -> tuple[float, float] | None:
    """(IMPs/board for ``row`` against ``column``, 95% CI), None on the diagonal."""
    for match in table["matches"]:
        if (match["a"], match["b"]) == (row, column):
            return match["imps_per_board"], match["ci95"]
        if (match["a"], match["b"]) == (column, row):
            return -match["imps_per_board"], match["ci95"]
    return None


def markdown(table: dict, labels: dict | None = None) -> str:
    """The table in Markdown: rows score against columns."""
    labels = labels or {}
    names = table["agents"]
    head = "| IMPs/board for the row | " + " | ".join(labels.get(n, n) for n in names) + " |"
    lines = [head, "|" + "---|" * (len(names) + 1)]
    for row in names:
        cells = []
        for column in names:
            value = cell(table, row, column)
            cells.append("" if value is None else f"{value[0]:+.2f} ± {value[1]:.2f}" if value[1] == value[1]
                         else f"{value[0]:+.2f} (one board: no CI)")
        lines.append(f"| {labels.get(row, row)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


__all__ = ["cell", "cross_table", "markdown"]
