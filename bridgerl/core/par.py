"""Par and constructive par from a DD table (thesis ch. 4 intro and Appendix "Par Result").

* Standard par (both sides bid, sacrifices are doubled) comes from DDS through endplay (``DealerParBin``).
* Constructive par is the best score the bidding side alone can reach, ignoring the opponents: the maximum
  undoubled score over its making contracts and either declarer, or 0 for passing.
"""

from __future__ import annotations

import numpy as np

from .board import is_vulnerable, parse_vul
from .calls import NUM_BIDS
from .contract import Contract
from .dd import dd_table_results, dd_to_endplay, vul_to_endplay
from .scoring import SCORE_TABLE

_BID_STRAIN = np.arange(NUM_BIDS) % 5


def par_score(dd: np.ndarray, vul: str, dealer: int) -> int:
    """Standard par score from NS's point of view: DDS's ``DealerParBin`` through endplay's bindings, called
    directly (endplay's ``par`` wraps the same call in objects that only the contracts need; `par_contracts`)."""
    import endplay._dds as _dds

    if not 0 <= int(dealer) <= 3:
        raise ValueError(f"dealer {dealer} is outside 0..3 (N, E, S, W)")
    result = _dds.parResultsMaster()
    _dds.DealerParBin(dd_table_results(dd), result, int(dealer), vul_to_endplay(vul))
    return int(result.score)


def par_contracts(dd: np.ndarray, vul: str, dealer: int) -> list[str]:
    """The par contracts as endplay formats them (e.g. ``'4SN+1'``)."""
    from endplay.dds import par

    return [str(c) for c in par(dd_to_endplay(dd), vul_to_endplay(vul), dealer)]


def constructive_scores(dd: np.ndarray, side, vulnerable) -> np.ndarray:
    """int32[..., 35]: undoubled score of each bid for ``side`` (0 NS, 1 EW) with its better declarer's DD tricks.

    Works on one table [4, 5] or a batch [N, 4, 5] with per-deal ``side`` and ``vulnerable``."""
    dd = np.asarray(dd)
    side = np.asarray(side, dtype=np.int64)
    vulnerable = np.asarray(vulnerable, dtype=np.int64)
    first = np.take_along_axis(dd, side[..., None, None] * np.ones((1, 5), np.int64), axis=-2)[..., 0, :]
    second = np.take_along_axis(dd, (side + 2)[..., None, None] * np.ones((1, 5), np.int64), axis=-2)[..., 0, :]
    tricks = np.maximum(first, second).astype(np.int64)  # [..., 5]
    return SCORE_TABLE[np.arange(NUM_BIDS), 0, vulnerable[..., None], tricks[..., _BID_STRAIN]]


def constructive_par(dd: np.ndarray, side, vulnerable) -> np.ndarray | int:
    """Constructive par score of ``side`` (>= 0; 0 when it can make nothing). Vectorized like `constructive_scores`."""
    best = np.maximum(constructive_scores(dd, side, vulnerable).max(-1), 0)
    return int(best) if np.ndim(best) == 0 else best.astype(np.int32)


def constructive_par_contract(dd: np.ndarray, side: int, vulnerable: bool) -> Contract | None:
    """A contract achieving constructive par (lowest such bid, better declarer), or None when passing is par."""
    dd = np.asarray(dd)
    scores = constructive_scores(dd, side, vulnerable)
    best = int(scores.max())
    if best <= 0:
        return None
    bid = int(np.flatnonzero(scores == best)[0])
    strain = bid % 5
    declarer = side if dd[side, strain] >= dd[side + 2, strain] else side + 2
    return Contract(bid // 5 + 1, strain, 0, declarer)


def side_vulnerable(vul: str, side: int) -> bool:
    """Whether ``side`` (0 NS, 1 EW) is vulnerable under ``vul``."""
    return is_vulnerable(parse_vul(vul), side)
