"""Agent specs on the command line: ``pass``, ``random``, ``rules``, ``dqn:PATH`` or ``module:attr``."""

from __future__ import annotations

import importlib

SPEC_HELP = ("pass | random | rules | dqn:PATH | rules+dqn:PATH (competitive: the rule baseline with an uncontested "
             "DQN as its constructive system) | module:attr (an object, or a class to instantiate, with act())")


def load_agent(spec: str, env_id: str = "uncontested_bidding", seed: int = 0):
    """An agent with ``act(observation, action_mask)`` for ``env_id`` from a spec string."""
    from bridgerl.agents import DQNAgent, PassAgent, RandomBidder, RuleBidder

    if spec == "pass":
        return PassAgent()
    if spec == "random":
        return RandomBidder(seed=seed)
    if spec == "rules":
        return RuleBidder(competitive=env_id == "competitive_bidding")
    if spec.startswith("rules+dqn:"):
        if env_id != "competitive_bidding":
            raise ValueError(f"agent spec {spec!r} is for competitive bidding")
        from bridgerl.agents import CompetitiveRuleBidder

        return CompetitiveRuleBidder(constructive=DQNAgent.load(spec[10:], env_id="uncontested_bidding"))
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


PLAY_SPEC_HELP = ("random | dd | pimc[:worlds=N,objective=tricks|make] | "
                  "alphamu[:max_moves=M,worlds=N,transposition=true|false,early_cut=...,root_cut=...] | "
                  "module:attr (an object, or a class to instantiate, with act(view))")
_PLAY_CLASSES = {"random": "RandomAgent", "dd": "DoubleDummyAgent", "pimc": "PIMCAgent", "alphamu": "AlphaMuAgent"}


def _keyword_values(text: str, spec: str) -> dict:
    kwargs = {}
    for item in filter(None, text.split(",")):
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"play agent spec {spec!r}: expected key=value, got {item!r}")
        value = value.strip()
        if value.lstrip("-").isdigit():
            kwargs[key.strip()] = int(value)
        elif value.lower() in ("true", "false"):
            kwargs[key.strip()] = value.lower() == "true"
        else:
            kwargs[key.strip()] = value
    return kwargs


def load_play_agent(spec: str, seed: int = 0):
    """A play agent with ``act(view)`` from a spec string such as ``pimc:worlds=20,objective=make``."""
    import bridgerl.agents as agents

    name, _, rest = spec.partition(":")
    if name in _PLAY_CLASSES:
        cls = getattr(agents, _PLAY_CLASSES[name])
        try:
            return cls(seed=seed, **_keyword_values(rest, spec))
        except TypeError as exc:
            raise ValueError(f"play agent spec {spec!r}: {exc}") from None
    if rest:
        try:
            target = getattr(importlib.import_module(name), rest)
        except (ImportError, AttributeError) as exc:
            raise ValueError(f"play agent spec {spec!r}: cannot import {rest!r} from {name!r} ({exc})") from None
        agent = target() if isinstance(target, type) else target
        if callable(getattr(agent, "act", None)):
            return agent
        raise ValueError(f"play agent spec {spec!r}: {rest!r} has no act(view) method")
    raise ValueError(f"unknown play agent spec {spec!r}; expected {PLAY_SPEC_HELP}")
