"""Gymnasium env ``bridgerl/CompetitiveBidding-v0``: a full four-player auction (thesis 2.1.3, 4.5.2).

38 calls (0 Pass, 1 X, 2 XX, 3 + bid); observation = the 231 bits of thesis 4.5.2 for the player to act.
The final contract is scored with its declarer's DD tricks; reward ``par_imps`` (NS: IMPs of NS score - NS par,
EW the negative) or ``points``. ``agent_seats="all"``: the agent calls at every turn and a step's reward belongs to
the side that just called; ``"NS"``/``"EW"``: the agent calls for that side, ``opponent`` for the other.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from bridgerl.core import SEATS, Auction, call_name, load_dataset
from bridgerl.core.actions import action_index
from bridgerl.core.illegal import check_illegal, check_penalty, penalty_returns
from bridgerl.core.calls import NUM_CALLS, PASS
from bridgerl.core.competitive import (OBSERVATION_SIZE, REWARDS, AuctionEncoder, AuctionView, CompetitiveDeal,
                                       CompetitiveDealSource, CompetitiveResult, render_text, result)
from bridgerl.envs.spaces import LegalActionSpace, MaskedEnv, binary_space
from bridgerl.envs.rendering import RENDER_MODES, check_render_mode, render

AGENT_SEATS = ("all", "NS", "EW")


class _PassAlways:
    """The default opponent: passes at every turn (pass is always legal)."""

    def act(self, observation, action_mask) -> int:
        return PASS


class CompetitiveBiddingEnv(MaskedEnv, gym.Env):
    """Competitive bidding on deals from a dataset (default: the bundled training split). ``tricks`` = "dd" (the
    deals' double-dummy tables) or "played" (their played-tricks tables, `bridgerl data played`): the contract's
    tricks and standard par both come from the table in use (None, the default: the table the dataset has in use,
    DD for a path or split)."""

    metadata = {"render_modes": RENDER_MODES, "render_fps": 4}

    def __init__(self, dataset="train", agent_seats: str = "all", opponent=None, reward: str = "par_imps",
                 render_mode: str | None = None, tricks: str | None = None, illegal: str = "penalty",
                 illegal_penalty: float | None = None):
        if agent_seats not in AGENT_SEATS:
            raise ValueError(f"agent_seats must be one of {AGENT_SEATS}, got {agent_seats!r}")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, got {reward!r}")
        check_render_mode(render_mode)
        self.illegal = check_illegal(illegal)
        self.illegal_penalty = check_penalty(illegal_penalty)  # None: the reward unit's default
        if opponent is not None and not callable(getattr(opponent, "act", None)):
            raise TypeError("opponent must have a method act(observation, action_mask) -> call")
        if opponent is not None and agent_seats == "all":
            raise ValueError("an opponent needs agent_seats='NS' or 'EW'")
        self.source = CompetitiveDealSource(load_dataset(dataset, tricks=tricks))
        self.tricks = tricks
        self.agent_seats = agent_seats
        self.opponent = opponent or _PassAlways()
        self.reward_mode = reward
        self.render_mode = render_mode
        self.observation_space = binary_space(OBSERVATION_SIZE)
        self.action_space = LegalActionSpace(NUM_CALLS, self)
        self.deal: CompetitiveDeal | None = None
        self.auction: Auction | None = None
        self.outcome: CompetitiveResult | None = None  # the result once the auction has ended

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self.deal = self.source.deal_for_reset(self.np_random, options or {})
        self.auction = Auction(self.deal.dealer)
        self._encoder = AuctionEncoder()  # the observation's auction bits, updated call by call
        self._hands = self.deal.hands()
        self._deal_info = self.deal.info()
        self.outcome = None
        self._returns = None
        self._illegal_end = False
        self._play_opponents()
        return self._step_result()

    def step(self, action):
        if self.auction is None:
            raise RuntimeError("call reset() before step()")
        self._check_stepping()
        caller = self.auction.to_act
        action = action_index(action, NUM_CALLS)
        if self.illegal == "penalty" and not self.auction.is_over and not (
                0 <= action < NUM_CALLS and self.auction.legal_mask()[action]):
            self._returns = penalty_returns(caller % 2, self.reward_mode, penalty=self.illegal_penalty)
            obs, info = self._step_result()
            return self._penalised(obs, {**info, "returns": self._returns}, self._returns[caller])
        self._add(action)  # IllegalCallError names the call
        self._play_opponents()
        reward = 0.0
        if self.auction.is_over:
            self.outcome = result(self.auction, self.deal.dd, self.deal.vul, self.deal.par_ns)
            self._returns = self.outcome.returns(self.reward_mode)
            reward = self._returns[caller] if self.agent_seats == "all" else self._returns[self._agent_side()]
        obs, info = self._step_result()
        return obs, reward, self.auction.is_over, False, info

    def legal_action_mask(self) -> np.ndarray | None:
        if self.auction is None:
            return None
        return np.zeros(NUM_CALLS, bool) if self._illegal_end else self.auction.legal_mask()

    def render(self):
        """The table as text (``"ansi"``), as an RGB image (``"rgb_array"``) or printed (``"human"``)."""
        if self.render_mode is None or self.auction is None:
            return None
        return render(self.render_mode, render_text(self.deal, self.auction, self.outcome))

    def _agent_side(self) -> int:
        return 0 if self.agent_seats == "NS" else 1

    def _add(self, call: int) -> None:
        self.auction = self.auction.add(call)
        if not self.auction.is_over:  # the terminal observation is the encoding before the final pass
            self._encoder.add(call)

    def _play_opponents(self) -> None:
        if self.agent_seats == "all":
            return
        while not self.auction.is_over and self.auction.to_act % 2 != self._agent_side():
            seat, obs = self.auction.to_act, self._observe()
            mask = self.auction.legal_mask()
            call = int(self.opponent.act(obs, mask.astype(np.int8)))
            if not (0 <= call < NUM_CALLS and mask[call]):
                legal = ", ".join(call_name(c) for c in np.flatnonzero(mask))
                raise ValueError(f"the opponent at {SEATS[seat]} chose an illegal call #{call} after "
                                 f"'{self.auction}'; legal: {legal}")
            self._add(call)

    def _observe(self) -> np.ndarray:
        seat = self.auction.to_act
        return self._encoder.observation(self.deal.vulnerable(seat), self.deal.vulnerable(seat + 1), self._hands[seat])

    def _step_result(self) -> tuple[np.ndarray, dict]:
        """(observation, info) of the current state: the seat to act (after the end, the seat that would act)."""
        auction, deal = self.auction, self.deal
        seat = auction.to_act
        we, they = deal.vulnerable(seat), deal.vulnerable(seat + 1)
        obs = self._encoder.observation(we, they, self._hands[seat])
        mask = auction.legal_mask()
        over = auction.is_over
        info = {"action_mask": mask.astype(np.int8), "seat": seat,
                "view": None if over else AuctionView.of(auction, self._hands[seat], we, they, mask),
                **self._deal_info, "illegal_action": False}
        if self.outcome is not None:
            info.update(self.outcome.info(self.reward_mode))
        return obs, info
