"""PettingZoo AEC env for the whole deal (thesis 2.1), in the style of PettingZoo's classic games, over the rules
module `bridgerl.core.bridge` (`BridgeState`).

Agents ``north``, ``east``, ``south``, ``west``. The agent selected is the seat choosing: the seat to call, or to
play a card, except dummy's cards, which declarer chooses (dummy's agent never acts). Observation space, the same
for every agent: ``Dict({"observation": MultiBinary(802) int8, "action_mask": Box(0, 1, (90,), int8)})``: the 802
values of `BridgeState.observation` for that seat (bits 0-230 the competitive auction encoding, 231-801 the play
encoding, zero during the auction), as in every framework; the mask is all zeros for agents not to act. Actions:
``Discrete(90)``, 0..37 the calls (0 Pass, 1 X, 2 XX, 3 + bid), 38 + card the cards (card = suit * 13 + rank).
Rewards at the end: each agent gets its side's return (``reward="score"``: NS's duplicate score; ``"par_imps"``,
alias ``"imps_vs_par"``: IMPs against par). ``play="double_dummy"`` ends the deal with the auction and scores the
contract with the DD tricks. Reset options: ``index``, ``deal`` (PBN), ``dealer``, ``vul``. An illegal action raises
``ValueError`` naming it.

``infos`` (the same for every agent, as the ``info`` of the Gymnasium env ``bridgerl/Bridge-v0`` without its
``action_mask`` and ``view``): at every step ``seat`` (the seat whose call or card is due: dummy's for dummy's
cards), ``player`` (the seat choosing), ``phase`` (``"auction"``, ``"play"`` or ``"over"``), ``dealer``, ``vul``,
``index`` (the dataset row, or None) and ``board``; at the end also ``contract`` (its text without declarer, e.g.
``"4SX"``, or ``"Pass"``), ``declarer`` (seat 0-3, or None for a pass-out), ``tricks`` (declarer's, played or DD),
``score_ns``, ``par_ns`` and ``returns`` (N, E, S, W).
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle, seeding
from pettingzoo import AECEnv

from bridgerl.core import load_dataset
from bridgerl.core.actions import action_index
from bridgerl.core.bridge import NUM_ACTIONS, OBSERVATION_SIZE, BridgeState, check_modes, render_text
from bridgerl.core.competitive import RESET_OPTIONS, CompetitiveDealSource, contract_text
from bridgerl.envs.pettingzoo.common import AGENTS, known_reset_options, wrapped

def env(**kwargs):
    """The wrapped env (order enforcing, action bounds checked)."""
    return wrapped(raw_env(**kwargs))


class raw_env(AECEnv, EzPickle):  # noqa: N801  (PettingZoo's naming)
    metadata = {"render_modes": ["ansi", "human"], "name": "bridge_v0", "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, dataset="train", play: str = "agents", reward: str = "score", render_mode: str | None = None):
        super().__init__()
        EzPickle.__init__(self, dataset, play, reward, render_mode)
        play, mode = check_modes(play, reward)
        if render_mode not in (None, "ansi", "human"):
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', got {render_mode!r}")
        self.source = CompetitiveDealSource(load_dataset(dataset))
        self.play_mode, self.reward_mode = play, mode
        self.render_mode = render_mode
        self.possible_agents = AGENTS[:]
        self.agents = AGENTS[:]
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in AGENTS}
        self.observation_spaces = {a: spaces.Dict({
            # one flat int8 MultiBinary(802), as in every framework (Gymnasium's MultiBinary samples int8; the
            # Gymnasium env's `binary_space` is not imported here: no framework file imports another framework's)
            "observation": spaces.MultiBinary(OBSERVATION_SIZE),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8)}) for a in AGENTS}
        self._np_random, _ = seeding.np_random(None)
        self.state: BridgeState | None = None
        self.outcome = None

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed=None, options=None):
        if seed is not None:
            self._np_random, _ = seeding.np_random(seed)
        options = known_reset_options(options, RESET_OPTIONS, "bridge_v0")
        self.state = BridgeState.start(self.source.deal_for_reset(self._np_random, options), self.play_mode)
        self.outcome = None
        self.agents = AGENTS[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        deal = self.state.deal
        self._deal_info = {"dealer": deal.dealer, "vul": deal.vul, "index": deal.index, "board": deal.board}
        self._set_infos()
        self.agent_selection = AGENTS[self.state.player]

    def observe(self, agent):
        seat = AGENTS.index(agent)
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if not self.state.is_over and seat == self.state.player:
            mask[:] = self.state.legal_mask()
        return {"observation": self.state.observation(seat), "action_mask": mask}

    def step(self, action):
        if self.terminations[self.agent_selection] or self.truncations[self.agent_selection]:
            return self._was_dead_step(action)
        self._cumulative_rewards[self.agent_selection] = 0.0
        self.state = self.state.apply(action_index(action, NUM_ACTIONS))  # illegal: ValueError naming the action
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if self.state.is_over:
            self.outcome = outcome = self.state.result()
            for agent, value in zip(AGENTS, outcome.returns(self.reward_mode)):
                self.rewards[agent] = value
            self.terminations = dict.fromkeys(self.agents, True)
        self._set_infos()
        self._accumulate_rewards()
        self.agent_selection = AGENTS[self.state.player]
        if self.render_mode == "human":
            self.render()

    def _set_infos(self) -> None:
        """The infos of every agent, keyed as the Gymnasium env's ``info`` (see the module docstring)."""
        state = self.state
        info = {"seat": state.seat, "player": state.player, "phase": state.phase, **self._deal_info}
        if state.is_over:
            outcome = self.outcome
            info.update(contract=contract_text(outcome.contract),
                        declarer=None if outcome.contract is None else outcome.contract.declarer,
                        tricks=outcome.tricks, score_ns=outcome.score_ns, par_ns=outcome.par_ns,
                        returns=outcome.returns(self.reward_mode))
        self.infos = {a: dict(info) for a in self.agents}

    def render(self):
        if self.render_mode is None:
            return None
        text = render_text(self.state, self.outcome)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self):
        pass
