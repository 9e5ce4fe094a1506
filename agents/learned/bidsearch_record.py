"""What `bidsearch:` reports (issue #65): a `Decision` for each call (its candidates and their IMPs, the worlds
kept and their effective sample size, the seconds of each stage) and `SearchStats` over many calls (the share
searched and changed, the fallbacks, the median seconds of a searched call)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from bridgerl.core.calls import call_name


@dataclass
class Decision:
    """One call of the search: the candidates (call, BASE's probability, mean IMPs against BASE's call; None when
    not searched), the call made, the effective sample size and worlds kept, and the seconds of each stage."""

    base_call: int
    call: int
    candidates: list = field(default_factory=list)
    searched: bool = False
    fallback: bool = False
    ess: float = 0.0
    worlds: int = 0
    drawn: int = 0
    seconds: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        out = asdict(self)
        out["call_name"], out["base_call_name"] = call_name(self.call), call_name(self.base_call)
        out["candidates"] = [{"call": c, "name": call_name(c), "probability": p, "imps": v}
                             for c, p, v in self.candidates]
        return out

    def explain(self) -> str:
        """One line for the page and the logs."""
        if not self.searched:
            return f"{call_name(self.call)}: one candidate, not searched"
        shown = ", ".join(f"{call_name(c)} p={p:.2f}" + ("" if v is None else f" {v:+.2f} IMPs")
                          for c, p, v in self.candidates)
        head = f"{call_name(self.call)}" + (" (fallback: BASE's call)" if self.fallback else
                                            " (BASE's call)" if self.call == self.base_call else " (searched)")
        return f"{head}; candidates {shown}; {self.worlds} worlds kept of {self.drawn} drawn, ESS {self.ess:.1f}"


@dataclass
class SearchStats:
    """Counters over many decisions (`BidSearch.stats`)."""

    calls: int = 0
    searched: int = 0
    changed: int = 0
    fallbacks: int = 0
    ess_sum: float = 0.0
    sampling_seconds: float = 0.0
    rollout_seconds: float = 0.0
    scoring_seconds: float = 0.0
    searched_seconds: list = field(default_factory=list)

    def add(self, decision: Decision) -> None:
        self.calls += 1
        if not decision.searched:
            return
        self.searched += 1
        self.changed += decision.call != decision.base_call
        self.fallbacks += decision.fallback
        self.ess_sum += decision.ess
        self.sampling_seconds += decision.seconds.get("sampling", 0.0)
        self.rollout_seconds += decision.seconds.get("rollouts", 0.0)
        self.scoring_seconds += decision.seconds.get("scoring", 0.0)
        self.searched_seconds.append(decision.seconds.get("total", 0.0))

    def summary(self) -> dict:
        n = max(self.searched, 1)
        times = np.asarray(self.searched_seconds or [0.0])
        return {"calls": self.calls, "searched": self.searched, "searched_share": self.searched / max(self.calls, 1),
                "changed": self.changed, "changed_share_of_searched": self.changed / n,
                "fallbacks": self.fallbacks, "mean_ess": self.ess_sum / n,
                "median_seconds_per_searched_call": float(np.median(times)),
                "mean_seconds": {"sampling": self.sampling_seconds / n, "rollouts": self.rollout_seconds / n,
                                 "scoring": self.scoring_seconds / n}}


__all__ = ["Decision", "SearchStats"]
