"""bridgerl: reinforcement-learning environments, agents and evaluation for contract bridge.

Subpackages: ``bridgerl.core`` (rules), ``bridgerl.envs``, ``bridgerl.agents``, ``bridgerl.training``,
``bridgerl.evaluation``. Importing ``bridgerl`` registers the Gymnasium envs (``bridgerl/UncontestedBidding-v0``)
and the OpenSpiel games (``bridgerl_uncontested_bidding``); JAX loads only with the modules that need it.
"""

__version__ = "0.1.0"

from bridgerl.envs.registration import register_all as _register_all

_register_all()
