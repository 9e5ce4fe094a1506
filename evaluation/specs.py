"""Agent specs on the command line: ``pass``, ``random``, ``rules``, ``dqn:PATH`` or ``module:attr``."""

from __future__ import annotations

import importlib

SPEC_HELP = "pass | random | rules | dqn:PATH | module:attr (an object, or a class to instantiate, with act())"


def load_agent(spec: str, env_id: str = "uncontested_bidding", seed: int = 0):
    """An agent with ``act(observation, action_mask)`` for ``env_id`` from a spec string."""
    from bridgerl.agents import DQNAgent, PassAgent, RandomBidder, RuleBidder

    if spec == "pass":
        return PassAgent()
    if spec == "random":
        return RandomBidder(seed=seed)
    if spec == "rules":
        return RuleBidder(competitive=env_id == "competitive_bidding")
    if spec.startswith("dqn:"):
        return DQNAgent.load(spec[4:], env_id=env_id)
    if ":" in spec:
        module_name, _, attr = spec.partition(":")
        try:
            target = getattr(importlib.import_module(module_name), attr)
        except (ImportError, AttributeError) as exc:
            raise ValueError(f"agent spec {spec!r}: cannot import {attr!r} from {module_name!r} ({exc})") from None
        agent = target() if isinstance(target, type) else target
        if not callable(getattr(agent, "act", None)):
            raise ValueError(f"agent spec {spec!r}: {attr!r} has no act(observation, action_mask) method")
        return agent
    raise ValueError(f"unknown agent spec {spec!r}; expected {SPEC_HELP}")
