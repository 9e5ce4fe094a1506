"""Markdown report with PNG plots for an uncontested evaluation (`bridgerl evaluate uncontested --report DIR`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from bridgerl.core.files import atomic_write_text, atomic_write_with
from bridgerl.evaluation.bidding.uncontested import CATEGORIES

_CATEGORY_TEXT = {"at_par": "at constructive par (0 IMPs)", "overbid": "overbid: the contract fails",
                  "underbid_bonus": "underbid across a bonus boundary",
                  "wrong_strain_or_level": "wrong strain or level (other results below par)"}


def write_report(summary: dict, outcomes, directory: str | Path) -> Path:
    """Write report.md, imp_histogram.png and level_matrix.png into ``directory``; returns the Markdown path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    imps = np.array([o.imps for o in outcomes])

    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.hist(-imps, bins=np.arange(0, 26) - 0.5, color="#3a6ea5")
    ax.set_xlabel("IMPs lost against constructive par")
    ax.set_ylabel("deals")
    ax.set_title(f"{summary['agent']}: {summary['imps_per_deal']:.2f} IMPs/deal")
    fig.tight_layout()
    atomic_write_with(directory / "imp_histogram.png", lambda handle: fig.savefig(handle, format="png", dpi=120))
    plt.close(fig)

    matrix = np.array(summary["level_matrix"]["counts"])
    fig, ax = plt.subplots(figsize=(5, 4.5))
    image = ax.imshow(matrix, cmap="Blues")
    ax.set_xlabel("constructive-par level (0 = pass)")
    ax.set_ylabel("level reached (0 = passed out)")
    ax.set_xticks(range(8))
    ax.set_yticks(range(8))
    for (r, c), count in np.ndenumerate(matrix):
        if count:
            ax.text(c, r, str(count), ha="center", va="center", fontsize=7,
                    color="white" if count > matrix.max() / 2 else "black")
    fig.colorbar(image, ax=ax, shrink=0.8)
    fig.tight_layout()
    atomic_write_with(directory / "level_matrix.png", lambda handle: fig.savefig(handle, format="png", dpi=120))
    plt.close(fig)

    lines = [f"# Uncontested bidding: {summary['agent']}", "",
             f"Data: `{summary['data']}`, side rule `{summary['side']}`, opening rules "
             f"{'on' if summary['opening_rules'] else 'off'}; {summary['deals']} deals evaluated, "
             f"{summary['skipped_nothing_makeable']} skipped (nobody can make anything).", "",
             f"**{summary['imps_per_deal']:.2f} IMPs/deal** against constructive par "
             f"(95% CI ± {summary['ci95']:.2f}); mean points against par {summary['mean_points_vs_par']:.0f}.", "",
             "| result | share |", "| --- | --- |"]
    lines += [f"| {_CATEGORY_TEXT[c]} | {summary['categories'][c]:.1%} |" for c in CATEGORIES]
    lines += ["", "![IMP loss histogram](imp_histogram.png)", "", "![level reached vs par](level_matrix.png)", "",
              "## Deals lost most", "", "| IMPs | hands | auction | contract | tricks | par |",
              "| --- | --- | --- | --- | --- | --- |"]
    for deal in summary["worst_deals"]:
        hands = "<br>".join(f"{seat}: {text}" for seat, text in deal["hands"].items())
        contract = deal["contract"] + (f" {deal['declarer']}" if deal["declarer"] else "")
        lines.append(f"| {deal['imps']} | {hands} | {deal['auction']} | {contract} | {deal['tricks']} | "
                     f"{deal['par_contract']} ({deal['par']}) |")
    behaviour = summary.get("behaviour")
    if behaviour:
        lines += ["", "## Passing where a bridge player bids (thesis tables 4.5 and 4.6)", "",
                  "| position | deals | agent passes | RuleBidder passes |", "| --- | --- | --- | --- |"]
        for key, text in (("openings_12_13_hcp", "first bidder, 12-13 HCP, may open"),
                          ("responses_6_plus_hcp", "partner opened a one-level suit, 6+ HCP")):
            row = behaviour[key]
            lines.append(f"| {text} | {row['positions']} | {row['agent_pass_rate']:.1%} | "
                         f"{row['rules_pass_rate']:.1%} |")
        for key, title in (("openings_12_13_hcp", "Openings passed"), ("responses_6_plus_hcp", "Responses passed")):
            examples = behaviour[key]["examples"]
            if examples:
                lines += ["", f"{title}:", "", "| hand | auction so far | RuleBidder | agent | IMPs |",
                          "| --- | --- | --- | --- | --- |"]
                lines += [f"| {e['hand']} | {e['auction_so_far']} | {e['rules']} | {e['agent']} | {e['imps']} |"
                          for e in examples]
    path = directory / "report.md"
    atomic_write_text(path, "\n".join(lines) + "\n")
    return path


def write_match_report(summary: dict, boards: list[dict], directory: str | Path, title: str) -> Path:
    """Report of a duplicate match (`evaluate competitive` or `evaluate game` with ``--report DIR``): report.md,
    imps.png (IMPs per board) and, when the cards were played, differential.png (DD tricks - declarer's tricks)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    a, b = summary["a"], summary["b"]
    board_imps = np.array([item["imps"] for item in boards])
    fig, ax = plt.subplots(figsize=(6, 3.5))
    edge = max(int(np.abs(board_imps).max(initial=0)), 1)
    ax.hist(board_imps, bins=np.arange(-edge, edge + 2) - 0.5, color="#3a6ea5")
    ax.set_xlabel(f"IMPs per board for {a}")
    ax.set_ylabel("boards")
    ax.set_title(f"{a} vs {b}: {summary['imps_per_board']:+.2f} IMPs/board")
    fig.tight_layout()
    atomic_write_with(directory / "imps.png", lambda handle: fig.savefig(handle, format="png", dpi=120))
    plt.close(fig)
    lines = [f"# {title}: {a} vs {b}", "",
             f"Data: `{summary.get('data', '')}`; {summary['boards']} boards, each played at two tables with the pairs "
             f"swapped ({a} North-South at table 1).", "",
             f"**{summary['imps_per_board']:+.2f} IMPs/board for {a}** (95% CI ± {summary['ci95']:.2f}); boards won: "
             f"{a} {summary['a_won']}, {b} {summary['b_won']}.", "", "![IMPs per board](imps.png)", ""]
    played = "a_declaring" in summary
    if played:
        fig, ax = plt.subplots(figsize=(6, 3.5))
        every = [rec["differential"] for item in boards for rec in item["tables"] if rec["declaring_pair"]]
        low, high = min(every, default=0), max(every, default=0)
        for key, pair, color in (("a_declaring", "a", "#3a6ea5"), ("b_declaring", "b", "#c0504d")):
            diffs = [rec["differential"] for item in boards for rec in item["tables"] if rec["declaring_pair"] == pair]
            ax.hist(diffs, bins=np.arange(low, high + 2) - 0.5, alpha=0.6, color=color,
                    label=f"{summary[key]['pair']} declaring")
        ax.set_xlabel("differential: DD tricks - declarer's tricks")
        ax.set_ylabel("contracts")
        ax.legend()
        fig.tight_layout()
        atomic_write_with(directory / "differential.png", lambda handle: fig.savefig(handle, format="png", dpi=120))
        plt.close(fig)
        lines += ["## Declarer play against double dummy (thesis tables 3.3-3.4)", "",
                  "| declaring pair | contracts | mean tricks | differential (DD - declarer) |", "| --- | --- | --- | --- |"]
        for key in ("a_declaring", "b_declaring"):
            row = summary[key]
            lines.append(f"| {row['pair']} | {row['contracts']} | {row['tricks']:.2f} | {row['differential']:+.2f} "
                         f"± {row['differential_ci95']:.2f} |")
        lines += ["", "![differential](differential.png)", ""]
    counts = summary.get("contracts")
    if counts:
        lines += ["## Contracts reached (both tables)", "", "| " + " | ".join(counts) + " |",
                  "|" + " --- |" * len(counts), "| " + " | ".join(str(v) for v in counts.values()) + " |", ""]
    lines += ["## Biggest swings", "", f"| board | table 1 ({a} NS) | table 2 ({b} NS) | NS scores | IMPs for {a} |",
              "| --- | --- | --- | --- | --- |"]
    for item in sorted(boards, key=lambda item: -abs(item["imps"]))[:10]:
        cells = []
        for rec in item["tables"]:
            text = rec["contract"] + (f" {rec['declarer']}" if rec["declarer"] else "")
            if rec.get("tricks") is not None and rec["declarer"]:
                text += f", {rec['tricks']} tricks"
            cells.append(text + "<br>" + " ".join(rec.get("auction", [])))
        scores = f"{item['tables'][0]['score_ns']} / {item['tables'][1]['score_ns']}"
        lines.append(f"| {item['board']} | {cells[0]} | {cells[1]} | {scores} | {item['imps']:+d} |")
    path = directory / "report.md"
    atomic_write_text(path, "\n".join(lines) + "\n")
    return path
