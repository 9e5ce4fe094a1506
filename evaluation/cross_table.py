"""A cross table of competitive bidders in duplicate (issue #22): every pair plays the same boards at two tables
(`evaluation.competitive.duplicate_match`), and each cell is the row agent's IMPs/board against the column agent
with its 95% CI."""

from __future__ import annotations

from bridgerl.evaluation.competitive import duplicate_match


def cross_table(agents: dict, data="test", deals: int | None = None, progress: bool = False) -> dict:
    """{"agents": names, "data", "matches": [duplicate_match results, one per pair, "a" the earlier name]}."""
    names = list(agents)
    if len(names) < 2:
        raise ValueError(f"a cross table needs at least two agents, got {len(names)}")
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    if progress:
        from tqdm import tqdm

        pairs = tqdm(pairs, desc="cross table", unit="match")
    matches = [duplicate_match(agents[a], agents[b], data, deals=deals, names=(a, b)) for a, b in pairs]
    return {"agents": names, "data": matches[0]["data"], "boards": matches[0]["boards"], "matches": matches}


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
            cells.append("" if value is None else f"{value[0]:+.2f} ± {value[1]:.2f}")
        lines.append(f"| {labels.get(row, row)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


__all__ = ["cell", "cross_table", "markdown"]
