"""What the PettingZoo envs share."""

from __future__ import annotations

from gymnasium import spaces
from gymnasium.utils import EzPickle, seeding
from pettingzoo import AECEnv


API_TEST_OPTION = "options"  # pettingzoo.test.api_test checks the signature with reset(options={"options": 1})


def known_reset_options(options: dict | None, known: set[str]) -> dict:
    """The reset options the env knows (``index``, ``deal``, ...). The key ``"options"`` that PettingZoo's
    ``api_test`` passes is ignored quietly; any other unknown key (a typo such as ``"indx"``) is a one-line
    ValueError naming it, never a random deal instead of the one asked for."""
    options = {key: value for key, value in (options or {}).items() if key != API_TEST_OPTION}
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise ValueError(f"unknown reset option(s) {unknown}; known: {sorted(known)}")
    return options


AGENTS = ["north", "east", "south", "west"]


def wrapped(raw):
    """A raw AEC env with PettingZoo's usual wrappers (actions within bounds, order of calls enforced)."""
    from pettingzoo.utils import wrappers

    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(raw))


class SeatsEnv(AECEnv, EzPickle):
    """The base of the bridgerl AEC envs: four agents north..west with the same spaces; episodes seeded, started
    and scored alike."""

    def _set_spaces(self, observation_space, num_actions: int) -> None:
        self.possible_agents = AGENTS[:]
        self.agents = AGENTS[:]
        self.action_spaces = {a: spaces.Discrete(num_actions) for a in AGENTS}
        self.observation_spaces = {a: observation_space for a in AGENTS}
        self._np_random, _ = seeding.np_random(None)

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def _start_episode(self, seed) -> None:
        """Reseed (when ``seed`` is given) and clear the per-agent tables of a new episode."""
        if seed is not None:
            self._np_random, _ = seeding.np_random(seed)
        self.agents = AGENTS[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)

    def _finish(self, returns) -> None:
        """The end of the episode: each seat's return as its reward, every agent terminated."""
        for agent, value in zip(AGENTS, returns):
            self.rewards[agent] = value
        self.terminations = dict.fromkeys(self.agents, True)

    def _penalise(self, side: int) -> None:
        """The end of the episode on an illegal action of ``side`` (0 NS, 1 EW): the penalty of
        `bridgerl.core.illegal` for its seats, the opposite for the others, the infos saying so."""
        from bridgerl.core.illegal import penalty_returns

        self._illegal = True
        self._finish(penalty_returns(side, self.reward_mode, penalty=getattr(self, "illegal_penalty", None)))
        self._set_infos()
        self._accumulate_rewards()

    def __getstate__(self) -> dict:
        """The whole env, mid-episode included (EzPickle alone would rebuild a fresh, never-reset env from the
        constructor's arguments)."""
        return self.__dict__.copy()

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    def close(self):
        pass
