"""PettingZoo AEC env for competitive bidding (thesis 4.5.2), in the style of PettingZoo's classic games.

Agents ``north``, ``east``, ``south``, ``west``; observations ``{"observation": int8[231], "action_mask": int8[38]}``
(the mask is all zeros for agents not to act). Rewards at the end: each agent gets its side's return
(``par_imps`` or ``points``). An illegal call (``illegal="penalty"``, the default of every env,
`bridgerl.core.illegal`) ends the auction: the caller's side gets ``-penalty``, the other ``+penalty``, and the infos
say ``illegal_action``; ``illegal="raise"`` raises ``IllegalCallError`` naming it. ``infos`` at every step, as
`bridge_v0`'s: ``seat`` (to act), ``dealer``, ``vul``, ``index``, ``board``, ``illegal_action``; at the end the result
(``contract``, ``declarer``, ``tricks``, ``score_ns``, ``par_ns``, ``returns``).
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle

from bridgerl.core import Auction, load_dataset
from bridgerl.core.actions import action_index
from bridgerl.core.calls import NUM_CALLS
from bridgerl.core.illegal import check_illegal, check_penalty
from bridgerl.core.competitive import (OBSERVATION_SIZE, REWARDS, CompetitiveDealSource, encode, encoded_calls,
                                       render_text, result)
from bridgerl.envs.pettingzoo.common import AGENTS, SeatsEnv, known_reset_options, wrapped
from bridgerl.envs.rendering import RENDER_MODES, check_render_mode, render

def env(**kwargs):
    """The wrapped env (order enforcing, action bounds checked)."""
    return wrapped(raw_env(**kwargs))


class raw_env(SeatsEnv):  # noqa: N801  (PettingZoo's naming)
    metadata = {"render_modes": RENDER_MODES, "name": "competitive_bidding_v0", "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, dataset="train", reward: str = "par_imps", render_mode: str | None = None,
                 tricks: str | None = None, illegal: str = "penalty", illegal_penalty: float | None = None):
        super().__init__()
        EzPickle.__init__(self, dataset, reward, render_mode, tricks, illegal, illegal_penalty)
        self.illegal = check_illegal(illegal)
        self.illegal_penalty = check_penalty(illegal_penalty)  # None: the reward unit's default
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, got {reward!r}")
        check_render_mode(render_mode)
        self.source = CompetitiveDealSource(load_dataset(dataset, tricks=tricks))  # "dd" or "played" tables
        self.reward_mode = reward
        self.render_mode = render_mode
        self._set_spaces(spaces.Dict({
            "observation": spaces.MultiBinary(OBSERVATION_SIZE),  # int8, as in every framework
            "action_mask": spaces.Box(0, 1, (NUM_CALLS,), dtype=np.int8)}), NUM_CALLS)
        self.deal = None
        self.auction = None

    def reset(self, seed=None, options=None):
        self._start_episode(seed)
        options = known_reset_options(options, {"index", "deal", "dealer", "vul"})
        self.deal = self.source.deal_for_reset(self._np_random, options)
        self.auction = Auction(self.deal.dealer)
        self._hands = self.deal.hands()
        self._deal_info = self.deal.info()
        self._illegal = False
        self._result = None
        self._set_infos()
        self.agent_selection = AGENTS[self.auction.to_act]
        if self.render_mode == "human":  # shown at reset too, as at every step
            self.render()

    def observe(self, agent):
        seat = AGENTS.index(agent)
        calls = encoded_calls(self.auction)
        obs = encode(calls, self.deal.vulnerable(seat), self.deal.vulnerable(seat + 1), self._hands[seat])
        mask = np.zeros(NUM_CALLS, dtype=np.int8)
        if not self.auction.is_over and not self._illegal and seat == self.auction.to_act:
            mask[:] = self.auction.legal_mask()
        return {"observation": obs, "action_mask": mask}

    def step(self, action):
        if self.terminations[self.agent_selection] or self.truncations[self.agent_selection]:
            return self._was_dead_step(action)
        self._cumulative_rewards[self.agent_selection] = 0.0
        action = action_index(action, NUM_CALLS)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if self.illegal == "penalty" and not (0 <= action < NUM_CALLS and self.auction.legal_mask()[action]):
            return self._penalise(self.auction.to_act % 2)  # the episode ends; the chooser's side pays
        self.auction = self.auction.add(action)  # IllegalCallError names the call
        if self.auction.is_over:
            self._result = result(self.auction, self.deal.dd, self.deal.vul, self.deal.par_ns)
            self._finish(self._result.returns(self.reward_mode))
        self._set_infos()
        self._accumulate_rewards()
        self.agent_selection = AGENTS[self.auction.to_act]
        if self.render_mode == "human":
            self.render()

    def _set_infos(self) -> None:
        """The infos of every agent at every step, as `bridge_v0`'s: the seat to act, the deal's dealer, vul, index
        and board, ``illegal_action``; at the end the result (`CompetitiveResult.info`: contract, declarer, tricks,
        score_ns, par_ns, returns)."""
        info = {"seat": self.auction.to_act, **self._deal_info, "illegal_action": self._illegal}
        if self._illegal:
            info["returns"] = [self.rewards[agent] for agent in AGENTS]
        elif self._result is not None:
            info.update(self._result.info(self.reward_mode))
        self.infos = {a: dict(info) for a in self.agents}

    def render(self):
        """The table as text (``"ansi"``), as an RGB image (``"rgb_array"``) or printed (``"human"``)."""
        if self.render_mode is None or self.deal is None:  # nothing to show before reset()
            return None
        return render(self.render_mode, render_text(self.deal, self.auction, self._result))

