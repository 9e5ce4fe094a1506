"""bridgerl: reinforcement-learning environments, agents and evaluation for contract bridge.

Subpackages: ``bridgerl.core`` (rules), ``bridgerl.envs``, ``bridgerl.agents``, ``bridgerl.training``,
``bridgerl.evaluation``. Importing ``bridgerl`` is cheap: heavy frameworks load with the subpackage that needs them.
"""

__version__ = "0.1.0"
