"""What the PettingZoo envs share."""

from __future__ import annotations

import warnings

from gymnasium import spaces
from gymnasium.utils import EzPickle, seeding
from pettingzoo import AECEnv


def known_reset_options(options: dict | None, known: set[str], env_name: str) -> dict:
    """The reset options ``env_name`` knows. PettingZoo's api_test passes arbitrary ones: they are dropped with a
    warning naming them, not refused."""
    options = dict(options or {})
    unknown = sorted(set(options) - set(known))
    if unknown:
        warnings.warn(f"{env_name} ignores unknown reset option(s) {unknown}", stacklevel=3)
        for key in unknown:
            options.pop(key)
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

    def close(self):
        pass
