"""Third-party-style agents for the tests (loaded as ``helper_agents:Name`` specs)."""

import numpy as np


class ThreeNT:
    """Opens 3NT when it may, then passes."""

    def act(self, observation, action_mask):
        return 15 if action_mask[15] and not np.asarray(observation)[2:37].any() else 0


class SevenNT:
    """Always 7NT, legal or not: evaluation must name the deal and the call."""

    def act(self, observation, action_mask):
        return 35


seven_nt_instance = SevenNT()
