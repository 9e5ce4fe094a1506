"""Competitive bidding results (thesis 2.1.3-2.1.4, 4.5.2): the final contract scored with DD tricks, and par.

Rewards: ``par_imps`` gives NS the IMPs of (NS score - NS par) and EW the negative; ``points`` gives NS its raw
score and EW the negative.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .auction import Auction
from .board import is_vulnerable, parse_vul
from .contract import Contract
from .imps import imps
from .par import par_score
from .scoring import SCORE_TABLE

REWARDS = ("par_imps", "points")


@dataclass(frozen=True)
class CompetitiveResult:
    contract: Contract | None   # None for a pass-out
    tricks: int                 # declarer's DD tricks (0 for a pass-out)
    score_ns: int
    par_ns: int

    def ns_reward(self, mode: str = "par_imps") -> float:
        if mode == "par_imps":
            return float(imps(self.score_ns - self.par_ns))
        return float(self.score_ns)

    def returns(self, mode: str = "par_imps") -> list[float]:
        """One value per seat N, E, S, W."""
        ns = self.ns_reward(mode)
        return [ns, -ns, ns, -ns]


def score_ns(contract: Contract | None, dd: np.ndarray, vul: str) -> tuple[int, int]:
    """(declarer's DD tricks, NS score) of a final contract; a pass-out scores 0."""
    if contract is None:
        return 0, 0
    tricks = int(dd[contract.declarer, contract.strain])
    vulnerable = is_vulnerable(parse_vul(vul), contract.declarer)
    points = int(SCORE_TABLE[contract.bid, contract.penalty, int(vulnerable), tricks])
    return tricks, points if contract.declarer % 2 == 0 else -points


def result(auction: Auction, dd: np.ndarray, vul: str, par_ns: int | None = None) -> CompetitiveResult:
    """Result of a finished auction; ``par_ns`` is computed with DDS's par when not given."""
    contract = auction.contract()
    tricks, points = score_ns(contract, dd, vul)
    if par_ns is None:
        par_ns = par_score(dd, vul, auction.dealer)
    return CompetitiveResult(contract, tricks, points, int(par_ns))
