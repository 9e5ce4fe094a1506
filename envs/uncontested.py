"""Gymnasium env ``bridgerl/UncontestedBidding-v0``: two partners bid, opponents silent (thesis 4.4).

One agent calls for whichever partner is to act. Observation: the 89 bits of thesis fig. 4.4 from the caller's
point of view; 36 actions (0 Pass, 1 + bid). Reward at the end only: IMPs of (score - constructive par).
Rules come from `bridgerl.core.uncontested`; this file only adapts them to Gymnasium.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from bridgerl.core import load_dataset
from bridgerl.core.actions import action_index
from bridgerl.core.calls import NUM_UNCONTESTED_ACTIONS
from bridgerl.core.illegal import check_illegal, check_penalty, illegal_penalty
from bridgerl.core.uncontested import (OBSERVATION_SIZE, REWARDS, UncontestedDeal, UncontestedDealSource,
                                       UncontestedResult, apply_action, contract_text, legal_actions_mask,
                                       observation, render_text, result)
from bridgerl.envs.spaces import LegalActionSpace, MaskedEnv, binary_space
from bridgerl.envs.rendering import RENDER_MODES, check_render_mode, render


class UncontestedBiddingEnv(MaskedEnv, gym.Env):
    """Uncontested bidding on deals from a dataset (default: the bundled training split).

    Options: ``side`` = "thesis" (EW unless EW can make nothing, then NS; deals where nobody can make anything are
    skipped when sampling), "NS" or "EW"; ``opening_rules`` (thesis 4.4.5); ``reward`` = "imps" or "points".
    ``reset(options=...)`` takes "index", "deal" (PBN), "vulnerable" and "side". ``tricks`` = "dd" (the
    deals' double-dummy tables) or "played" (their played-tricks tables, `bridgerl data played`; None, the default:
    the table the dataset has in use, DD for a path or split): the contract's tricks, the side rule and
    constructive par all come from the table in use.
    """

    metadata = {"render_modes": RENDER_MODES, "render_fps": 4}

    def __init__(self, dataset="train", side: str = "thesis", opening_rules: bool = True, reward: str = "imps",
                 render_mode: str | None = None, tricks: str | None = None, illegal: str = "penalty",
                 illegal_penalty: float | None = None):
        check_render_mode(render_mode)
        self.illegal = check_illegal(illegal)
        self.illegal_penalty = check_penalty(illegal_penalty)  # None: the reward unit's default
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, got {reward!r}")
        self.source = UncontestedDealSource(load_dataset(dataset, tricks=tricks), side, opening_rules)
        self.tricks = tricks
        self.reward_mode = reward
        self.render_mode = render_mode
        self.observation_space = binary_space(OBSERVATION_SIZE)
        self.action_space = LegalActionSpace(NUM_UNCONTESTED_ACTIONS, self)
        self.deal: UncontestedDeal | None = None
        self.outcome: UncontestedResult | None = None  # the result once the auction has ended
        self.auction = None

    # -- Gymnasium API -------------------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self.deal = self.source.deal_for_reset(self.np_random, options or {})
        self.auction = self.deal.new_auction()
        self._hands = {seat: self.deal.hand_bits(seat) for seat in (self.deal.side, self.deal.side + 2)}
        self._openings = {}  # each partner's opening mask (thesis 4.4.5), made when first needed
        self.outcome = None
        self._illegal_end = False
        return self._observe(), self._info()

    def step(self, action):
        if self.auction is None:
            raise RuntimeError("call reset() before step()")
        self._check_stepping()
        action = action_index(action, NUM_UNCONTESTED_ACTIONS)
        mask = self._mask()
        if self.illegal == "penalty" and not self.auction.is_over and not (
                0 <= action < NUM_UNCONTESTED_ACTIONS and mask[action]):
            return self._penalised(self._observe(), self._info(), -illegal_penalty(self.reward_mode, self.illegal_penalty))
        self.auction = apply_action(self.deal, self.auction, action, mask)
        reward = 0.0
        if self.auction.is_over:
            self.outcome = result(self.deal, self.auction)
            reward = self.outcome.reward(self.reward_mode)
        return self._observe(), reward, self.auction.is_over, False, self._info()

    def render(self):
        """The table as text (``"ansi"``), as an RGB image (``"rgb_array"``) or printed (``"human"``)."""
        if self.render_mode is None or self.auction is None:
            return None
        return render(self.render_mode, render_text(self.deal, self.auction, self.outcome))

    def legal_action_mask(self) -> np.ndarray | None:
        """bool[36] of the current state (None before the first reset; none legal after an illegal action)."""
        if self.auction is None:
            return None
        return np.zeros(NUM_UNCONTESTED_ACTIONS, bool) if self._illegal_end else self._mask()

    # -- helpers -------------------------------------------------------------------------------------------------
    def _seat(self) -> int:
        """Seat of the partner to act (after the end: the one who would act next)."""
        seat = self.auction.to_act
        return seat if seat in self._hands else (seat + 1) % 4

    def _mask(self) -> np.ndarray:
        seat = self._seat()
        if self.auction.last_bid >= 0:
            return legal_actions_mask(self.deal, self.auction)
        if seat not in self._openings:
            self._openings[seat] = self.deal.opening_mask(seat)
        return legal_actions_mask(self.deal, self.auction, self._openings[seat])

    def _observe(self) -> np.ndarray:
        seat = self._seat()
        return observation(self.deal, self.auction, seat, self._hands[seat])

    def _info(self) -> dict:
        # every key keeps one type for the whole episode: a row or seat that does not exist is -1
        info = {"action_mask": self._mask().astype(np.int8), "seat": self._seat(), "side": self.deal.side,
                "vulnerable": bool(self.deal.vulnerable), "index": -1 if self.deal.index is None else self.deal.index,
                "board": self.deal.board, "illegal_action": False}
        if self.outcome is not None:
            r = self.outcome
            info.update(contract=contract_text(r.contract), declarer=-1 if r.contract is None else r.contract.declarer,
                        tricks=r.tricks, score=r.score, par=r.par, imps=r.reward_imps, points=r.reward_points)
        return info

