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
contract with the DD tricks. Reset options: ``index``, ``deal`` (PBN), ``dealer``, ``vul``. An illegal action
(``illegal="penalty"``, the default of every env, `bridgerl.core.illegal`) ends the deal: the chooser's side gets
``-penalty``, the other ``+penalty``, the infos say ``illegal_action`` (and ``returns``); ``illegal="raise"`` raises
``ValueError`` naming it.

``infos`` (the same for every agent, as the ``info`` of the Gymnasium env ``bridgerl/Bridge-v0`` without its
``action_mask`` and ``view``): at every step ``seat`` (the seat whose call or card is due: dummy's for dummy's
cards), ``player`` (the seat choosing), ``phase`` (``"auction"``, ``"play"`` or ``"over"``), ``dealer``, ``vul``,
``index`` (the dataset row, -1 for a PBN deal) and ``board``; at the end also ``contract`` (its text without
declarer, e.g. ``"4SX"``, or ``"Pass"``), ``declarer`` (seat 0-3, -1 for a pass-out), ``tricks`` (declarer's,
played or DD), ``score_ns``, ``par_ns`` and ``returns`` (N, E, S, W).
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle

from bridgerl.core import load_dataset
from bridgerl.core.actions import action_index
from bridgerl.core.illegal import check_illegal, check_penalty
from bridgerl.core.bridge import NUM_ACTIONS, OBSERVATION_SIZE, BridgeState, check_modes, render_text
from bridgerl.core.competitive import RESET_OPTIONS, CompetitiveDealSource
from bridgerl.envs.pettingzoo.common import AGENTS, SeatsEnv, known_reset_options, wrapped
from bridgerl.envs.rendering import RENDER_MODES, check_render_mode, render

def env(**kwargs):
    """The wrapped env (order enforcing, action bounds checked)."""
    return wrapped(raw_env(**kwargs))


class raw_env(SeatsEnv):  # noqa: N801  (PettingZoo's naming)
    metadata = {"render_modes": RENDER_MODES, "name": "bridge_v0", "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, dataset="train", play: str = "agents", reward: str = "score", render_mode: str | None = None,
                 illegal: str = "penalty", illegal_penalty: float | None = None):
        super().__init__()
        EzPickle.__init__(self, dataset, play, reward, render_mode, illegal, illegal_penalty)
        play, mode = check_modes(play, reward)
        check_render_mode(render_mode)
        self.illegal = check_illegal(illegal)
        self.illegal_penalty = check_penalty(illegal_penalty)  # None: the reward unit's default
        self.source = CompetitiveDealSource(load_dataset(dataset))
        self.play_mode, self.reward_mode = play, mode
        self.render_mode = render_mode
        self._set_spaces(spaces.Dict({
            # one flat int8 MultiBinary(802), as in every framework (Gymnasium's MultiBinary samples int8; the
            # Gymnasium env's `binary_space` is not imported here: no framework file imports another framework's)
            "observation": spaces.MultiBinary(OBSERVATION_SIZE),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8)}), NUM_ACTIONS)
        self.state: BridgeState | None = None
        self.outcome = None

    def reset(self, seed=None, options=None):
        self._start_episode(seed)
        options = known_reset_options(options, RESET_OPTIONS)
        self.state = BridgeState.start(self.source.deal_for_reset(self._np_random, options), self.play_mode)
        self.outcome = None
        self._illegal = False
        deal = self.state.deal
        self._deal_info = deal.info()
        self._set_infos()
        self.agent_selection = AGENTS[self.state.player]
        if self.render_mode == "human":  # shown at reset too, as at every step
            self.render()

    def observe(self, agent):
        seat = AGENTS.index(agent)
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if not self.state.is_over and not self._illegal and seat == self.state.player:
            mask[:] = self.state.legal_mask()
        return {"observation": self.state.observation(seat), "action_mask": mask}

    def step(self, action):
        if self.terminations[self.agent_selection] or self.truncations[self.agent_selection]:
            return self._was_dead_step(action)
        self._cumulative_rewards[self.agent_selection] = 0.0
        action = action_index(action, NUM_ACTIONS)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if self.illegal == "penalty" and not (0 <= action < NUM_ACTIONS and self.state.legal_mask()[action]):
            return self._penalise(self.state.player % 2)  # the episode ends; the chooser's side pays
        self.state = self.state.apply(action)  # illegal: ValueError naming the action
        if self.state.is_over:
            self.outcome = self.state.result()
            self._finish(self.outcome.returns(self.reward_mode))
        self._set_infos()
        self._accumulate_rewards()
        self.agent_selection = AGENTS[self.state.player]
        if self.render_mode == "human":
            self.render()

    def _set_infos(self) -> None:
        """The infos of every agent, keyed as the Gymnasium env's ``info`` (see the module docstring)."""
        state = self.state
        info = {"seat": state.seat, "player": state.player, "phase": state.phase, **self._deal_info,
                "illegal_action": self._illegal}
        if self._illegal:
            info["returns"] = [self.rewards[agent] for agent in AGENTS]
        elif state.is_over:
            info.update(self.outcome.info(self.reward_mode))
        self.infos = {a: dict(info) for a in self.agents}

    def render(self):
        """The table as text (``"ansi"``), as an RGB image (``"rgb_array"``) or printed (``"human"``)."""
        if self.render_mode is None or getattr(self, "state", None) is None:  # nothing to show before reset()
            return None
        return render(self.render_mode, render_text(self.state, self.outcome))
