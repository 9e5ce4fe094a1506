"""What the PettingZoo envs share."""

from __future__ import annotations

from gymnasium import spaces
from gymnasium.utils import EzPickle, seeding
from pettingzoo import AECEnv


def known_reset_options(options: dict | None, known: set[str]) -> dict:
    """The reset options the env knows (``index``, ``deal``, ...). Keys it does not know are ignored, as PettingZoo's
    own classic games ignore ``options`` (its ``api_test`` passes ``{"options": 1}``); a known key with a bad value
    is still a one-line error."""
    return {key: value for key, value in (options or {}).items() if key in known}


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

    def close(self):
        pass
