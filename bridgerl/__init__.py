"""bridgerl: reinforcement-learning environments, agents and evaluation for contract bridge.

Subpackages: ``bridgerl.core`` (rules), ``bridgerl.envs``, ``bridgerl.agents``, ``bridgerl.arena`` (the table
engine), ``bridgerl.training``, ``bridgerl.evaluation``, ``bridgerl.cli`` and ``bridgerl.web`` (`docs/architecture.md`).
Importing ``bridgerl`` is cheap: it registers the Gymnasium envs
(``bridgerl/UncontestedBidding-v0``, ``bridgerl/CompetitiveBidding-v0``, ``bridgerl/CardPlay-v0``) with string entry
points and loads no OpenSpiel, JAX, PettingZoo or env module. ``import bridgerl.envs.openspiel`` registers the
OpenSpiel games.
"""

__version__ = "0.1.0"

from bridgerl.registration import register_gymnasium as _register_gymnasium
from bridgerl.registration import register_loaders as _register_loaders

_register_gymnasium()
_register_loaders()
