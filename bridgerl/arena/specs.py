"""Agent specs on the command line: ``pass``, ``random``, ``rules``, ``dqn:PATH`` or ``module:attr``; play agent
specs ``random``, ``dd``, ``pimc:KEY=VALUE,...``, ``alphamu:KEY=VALUE,...`` or ``module:attr``.

``module:attr`` imports ``module`` as Python does, with the current directory searched first (as ``python -c``
does; a console script such as ``bridgerl`` would not look there otherwise)."""

from __future__ import annotations

import contextlib
import importlib
import inspect
import os
import sys
from dataclasses import dataclass
from typing import Any

SPEC_HELP = ("pass | random | rules | sayc (competitive: a SAYC-like natural system) | dqn:PATH | ppo:PATH "
             "(competitive: a PPO actor-critic's greedy policy) | punisher:SPEC (competitive: SPEC doubling every "
             "failing undoubled contract it could pass out, read from the deal's tricks table: the exploitability "
             "opponent) | brl:PATH (competitive: brl's bidding network, a parameter pickle of its DeepMind MLP, read "
             "without running code from it) | ben:DIR[,system=N] (competitive: BEN's bidding network alone, DIR "
             "holding BEN's bidder.onnx, which you fetch: docs/ben.md; needs onnxruntime) | rules+dqn:PATH "
             "(competitive: the rule baseline with an uncontested DQN as its constructive system) | "
             "search:PATH[,samples=N,min_kept=K] (uncontested: decision-time search with the critic saved beside "
             "the DQN, defaults 1024 and 8) | bidsearch:[candidates=K,][min_prob=P,][worlds=N,][score=estimator|"
             "played|dd,][margin=M,][belief=weighted|greedy,][keep=heaviest|resample,][draws=D,]"
             "[opponents=base|known,][min_ess=E,][estimator=PATH,][player=PATH,][punished=true,]base=SPEC "
             "(competitive: search at the table over SPEC's calls of probability >= P, at most K, in N worlds "
             "weighted by the calls seen and bid "
             "out by the models, scored with the cards played by the trick estimator, by models/card-player itself, "
             "or double dummy; SPEC's call unless another gains M IMPs or fewer than E effective worlds were kept; "
             "defaults 3, 0.05, 32, estimator, 0.5, weighted, heaviest, 2048, base, 8, models/trick-estimator, "
             "models/card-player; punished=true scores our undoubled contracts doubled where they fail, as the "
             "exploitability's punisher would; base= last, taking the rest; docs/bidsearch.md) | module:attr (an "
             "object, or a class to instantiate, with act(); the module may be a .py file in the current directory)")


@contextlib.contextmanager
def _current_directory_importable():
    """The current directory first on ``sys.path`` during the import (removed again afterwards)."""
    cwd = os.getcwd()
    added = cwd not in sys.path
    if added:
        sys.path.insert(0, cwd)
    try:
        yield
    finally:
        if added and cwd in sys.path:
            sys.path.remove(cwd)


def _q(spec: str) -> str:
    """A spec as a message quotes it: shortened to 40 characters (a message on a spec stays within 200)."""
    from bridgerl.core.identity import shorten

    return repr(shorten(spec, 40))


def _import_object(module_name: str, attr: str, spec: str, kind: str):
    """``attr`` of ``module_name`` (imported with the current directory searched first)."""
    try:
        with _current_directory_importable():
            return getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"{kind} spec {_q(spec)}: cannot import {attr!r} from {module_name!r} ({exc})") from None


def load_agent(spec: str, env_id: str = "uncontested_bidding", seed: int = 0):
    """An agent with ``act(observation, action_mask)`` for ``env_id`` from a spec string. A model file is checked
    before the imports its agent needs (JAX), so that a wrong path is refused at once."""
    from bridgerl.agents import PassAgent, RandomBidder, RuleBidder
    from bridgerl.agents.learned.checkpoint import FORMAT, PPO_FORMAT, check_checkpoint

    if spec.startswith("punisher:"):  # before module:attr (its SPEC may hold a colon)
        if env_id != "competitive_bidding":
            raise ValueError(f"agent spec {_q(spec)}: punisher is a competitive bidder (it doubles the other side)")
        from bridgerl.agents.bidding.punisher import Punisher

        base_spec = spec[len("punisher:"):]
        if not base_spec:
            raise ValueError("agent spec 'punisher:' names no bidder: punisher:SPEC, e.g. punisher:rules")
        return Punisher(load_agent(base_spec, env_id, seed=seed), base_spec)
    if spec.startswith("bidsearch:"):  # before module:attr: search at the table over a competitive bidder (#65)
        if env_id != "competitive_bidding":
            raise ValueError(f"agent spec {_q(spec)}: bidsearch searches competitive auctions (use search:PATH for "
                             "uncontested bidding)")
        from bridgerl.agents.learned.bidsearch import BidSearch, parse_spec

        options, base_spec = parse_spec(spec[len("bidsearch:"):])
        if not base_spec:
            raise ValueError("agent spec 'bidsearch:...,base=' names no bidder: base=SPEC, e.g. "
                             "base=models/competitive-student")
        kwargs = _keyword_values(options, spec, BidSearch)
        base = load_agent(base_spec, env_id, seed=seed)
        try:
            return BidSearch(base, seed=seed, name=base_spec, **kwargs)
        except (ValueError, FileNotFoundError) as exc:
            raise ValueError(f"agent spec {_q(spec)}: {exc}") from None
    if spec.startswith("brl:"):  # before module:attr: brl's bidding network by file (issue #53)
        if env_id != "competitive_bidding":
            raise ValueError(f"agent spec {_q(spec)}: brl's networks bid the whole auction (competitive bidding)")
        from bridgerl.agents.learned.brl import BrlBidder

        if not spec[4:]:
            raise ValueError("agent spec 'brl:' names no file: brl:PATH, a parameter pickle of brl's DeepMind MLP")
        return BrlBidder.load(spec[4:])
    if spec.startswith("ben:"):  # before module:attr: BEN's bidding network by file (issue #64)
        if env_id != "competitive_bidding":
            raise ValueError(f"agent spec {_q(spec)}: BEN's network bids the whole auction (competitive bidding)")
        from bridgerl.agents.learned.ben import BenBidder

        path, _, options = spec[4:].partition(",")
        if not path:
            raise ValueError("agent spec 'ben:' names no folder: ben:DIR, a folder holding BEN's bidder.onnx")
        return BenBidder.load(path, **_keyword_values(options, spec, BenBidder.load))
    if spec == "pass":
        return PassAgent()
    if spec == "random":
        return RandomBidder(seed=seed)
    if spec == "rules":
        return RuleBidder(competitive=env_id == "competitive_bidding")
    if spec == "sayc":
        if env_id != "competitive_bidding":
            raise ValueError("agent spec 'sayc' is a competitive bidder (38 calls): use it in evaluate competitive "
                             "or evaluate game")
        from bridgerl.agents.bidding.sayc import SAYCBidder

        return SAYCBidder()
    if spec.startswith("rules+dqn:"):
        if env_id != "competitive_bidding":
            raise ValueError(f"agent spec {_q(spec)} is for competitive bidding")
        from bridgerl.agents import CompetitiveRuleBidder

        check_checkpoint(spec[10:], FORMAT, "DQN")
        from bridgerl.agents import DQNAgent

        return CompetitiveRuleBidder(constructive=DQNAgent.load(spec[10:], env_id="uncontested_bidding"))
    if spec.startswith("dqn:"):
        check_checkpoint(spec[4:], FORMAT, "DQN")
        from bridgerl.agents import DQNAgent

        return DQNAgent.load(spec[4:], env_id=env_id)
    if spec.startswith("ppo:"):
        check_checkpoint(spec[4:], PPO_FORMAT, "PPO")
        from bridgerl.agents import PPOAgent

        return PPOAgent.load(spec[4:], env_id=env_id)
    if spec.startswith("search:"):
        if env_id != "uncontested_bidding":
            raise ValueError(f"agent spec {_q(spec)}: decision-time search is for uncontested bidding")
        path, _, options = spec[7:].partition(",")
        check_checkpoint(path, FORMAT, "DQN")
        from bridgerl.agents.learned.search import CriticSearchBidder

        return CriticSearchBidder.load(path, seed=seed, **_keyword_values(options, spec, CriticSearchBidder.load))
    if _is_model_path(spec):  # a bare model path loads as its explicit spec would, by the kind it holds
        return load_agent(explicit_spec(spec, "bidder"), env_id, seed=seed)
    _refuse_other_kind(spec, "agent spec", "bidder")
    if ":" in spec:
        module_name, _, attr = spec.partition(":")
        target = _import_object(module_name, attr, spec, "agent")
        agent = target() if isinstance(target, type) else target
        if not callable(getattr(agent, "act", None)):
            raise ValueError(f"agent spec {_q(spec)}: {attr!r} has no act(observation, action_mask) method")
        return agent
    _refuse_missing_path(spec, "agent spec")
    raise ValueError(f"unknown agent spec {_q(spec)}; a bidder is expected: {BIDDERS} (--help)")


PLAY_SPEC_HELP = ("random | dd[:objective=tricks|make] | pimc[:worlds=N,objective=tricks|make,max_tries=M,auction=none|rules|sayc|policy,"
                  "prior=none|rules,max_candidates=C,goal=tricks|sigma,tiebreak=random|info,info_budget=B,"
                  "sampler=uniform|auction|network,model=PATH,reweigh=none|issn,T=N,issn=PATH,solver=dds|ssn,"
                  "ssn=PATH] (defaults "
                  "worlds=100, objective=tricks, max_tries=200000 world draws, goal=tricks, tiebreak=random, "
                  "info_budget=0, sampler=uniform, reweigh=none, T=3, issn=models/issn, solver=dds, ssn=models/ssn; "
                  "goal=sigma: the safest move among those reaching the tricks needed, thesis 3.4.4; "
                  "tiebreak=info: ties within 0.01 broken by the combined-defender information score, thesis 3.4.3; "
                  "auction=none: worlds ignore the auction; rules: constrained by the rule system's "
                  "agreements; sayc: by the sayc system's table; policy: kept only when the seats' bidders would have "
                  "made the calls seen; "
                  "sampler=auction: uniform within the rule agreements (auction=rules); network: worlds drawn from "
                  "the card-location model at model=PATH; reweigh=issn: worlds weighted by the ISSN's likelihood of "
                  "the other players' last T cards; solver=ssn: worlds valued by the SSN, no DDS) | "
                  "alphamu[:max_moves=M,worlds=N,transposition=true|false,early_cut=true|false,root_cut=true|false,"
                  "max_tries=M,sampler=uniform|auction|network,model=PATH] (defaults max_moves=3, worlds=20, all "
                  "true) | issn[:model=PATH] (the ISSN's most likely card, default models/issn) | cardnet[:model=PATH] "
                  "(the learned card player, default models/card-player; a bare model path loads it too) | "
                  "cardsearch[:model=PATH,values=dds|playout,worlds=W,first=F,prior=P,gate=G,depth=D,"
                  "engine=jax|numpy,after=dds|playout,top=T,keep=any|sole,auction=none|rules|sayc|policy,"
                  "sampler=uniform|network,"
                  "location=PATH] "
                  "(a search on top of the card player, defaults models/card-player, dds, 6 worlds, first 3 (or W if "
                  "fewer), prior 0.3, gate 0, keep any, auction rules: the player alone where its entropy over "
                  "groups of equal cards is below G nats, else its card kept when DDS finds it among the best in "
                  "each of the first F worlds, "
                  "else the best of mean DD tricks over W worlds + P x the player's log-probability; values=playout: "
                  "no DDS, each "
                  "candidate valued by the player's own play from every seat's view, D tricks (13: to the end; fewer "
                  "with the card values of a player trained with --target both), batched in JAX to the end "
                  "(engine=jax, the default there) or in numpy; after=playout: a failed DDS check settled by "
                  "play-outs; top=T: the T likeliest groups played out; sampler=network: worlds from the "
                  "card-location model at location=PATH, default models/card-location) | "
                  "module:attr (an "
                  "object, or a class to instantiate, with act(view); the module may be a .py file in the current "
                  "directory)")
_PLAY_CLASSES = {"random": "RandomAgent", "dd": "DoubleDummyAgent", "pimc": "PIMCAgent", "alphamu": "AlphaMuAgent",
                 "issn": "PolicyAgent", "cardnet": "CardPlayerAgent", "cardsearch": "CardSearch"}


def spec_keywords(cls) -> dict:
    """{key: default} of the settings a play spec may give ``cls``: its constructor's keyword arguments whose
    default is a bool, int, float or str (not ``seed``, which the caller gives, nor ``constraints``)."""
    return {name: parameter.default for name, parameter in inspect.signature(cls).parameters.items()
            if name != "seed" and isinstance(parameter.default, (bool, int, float, str))}


def _keyword_values(text: str, spec: str, cls) -> dict:
    """The one parser of play spec settings ``key=value,...``: each value is read as the type of its key's
    default in ``cls``'s constructor (``true``/``false`` for flags)."""
    allowed = spec_keywords(cls)
    kwargs = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not sep:
            raise ValueError(f"play agent spec {_q(spec)}: expected key=value, got {item!r}")
        if key not in allowed:
            keys = ", ".join(allowed) or "none"
            message = f"play agent spec {_q(spec)}: unknown key {_q(key)} (keys: {keys})"
            raise ValueError(message if len(message) <= 200 else message[:message.index("(keys:")] + "(keys: --help)")
        default = allowed[key]
        if isinstance(default, bool):
            if value.lower() not in ("true", "false"):
                raise ValueError(f"play agent spec {_q(spec)}: {key} needs true or false, got {value!r}")
            kwargs[key] = value.lower() == "true"
        elif isinstance(default, int):
            try:
                kwargs[key] = int(value)
            except ValueError:
                raise ValueError(f"play agent spec {_q(spec)}: {key} needs an integer, got {value!r}") from None
        elif isinstance(default, float):
            try:
                kwargs[key] = float(value)
            except ValueError:
                raise ValueError(f"play agent spec {_q(spec)}: {key} needs a number, got {value!r}") from None
        else:
            kwargs[key] = value
    return kwargs


def load_play_agent(spec: str, seed: int = 0):
    """A play agent with ``act(view)`` from a spec string such as ``pimc:worlds=20,objective=make``."""
    import bridgerl.agents as agents

    if _is_model_path(spec):  # a bare model path loads as its explicit spec would
        return load_play_agent(explicit_spec(spec, "player"), seed=seed)
    name, _, rest = spec.partition(":")
    if name not in _PLAY_CLASSES:
        _refuse_other_kind(spec, "play agent spec", "card player")
    if name in ("cardnet", "cardsearch"):  # the card player's file checked before its module loads JAX
        from bridgerl.agents.learned.checkpoint import FORMATS, check_checkpoint

        given = {key.strip(): value.strip() for key, _, value in (item.partition("=") for item in rest.split(","))}
        if given.get("model"):
            try:
                check_checkpoint(given["model"], FORMATS["card-player"], "card-player")
            except (ValueError, FileNotFoundError) as exc:
                raise ValueError(f"play agent spec {_q(spec)}: {exc}") from None
    if name in _PLAY_CLASSES:
        cls = getattr(agents, _PLAY_CLASSES[name])
        kwargs = _keyword_values(rest, spec, cls)
        try:
            return cls(seed=seed, **kwargs)
        except (TypeError, ValueError, FileNotFoundError) as exc:
            raise ValueError(f"play agent spec {_q(spec)}: {exc}") from None
    if rest:
        target = _import_object(name, rest, spec, "play agent")
        agent = target() if isinstance(target, type) else target
        if callable(getattr(agent, "act", None)):
            return agent
        raise ValueError(f"play agent spec {_q(spec)}: {rest!r} has no act(view) method")
    _refuse_missing_path(spec, "play agent spec")
    raise ValueError(f"unknown play agent spec {_q(spec)}; a card player is expected: {PLAYERS} (--help)")


BIDDERS = ("pass, random, rules, sayc, dqn:PATH, ppo:PATH, search:PATH, bidsearch:..., punisher:SPEC, brl:PATH, "
           "ben:DIR, a model path, module:attr")  # rules+dqn:PATH and the options: --help (a message stays short)
PLAYERS = "random, dd, pimc:..., alphamu:..., issn:..., cardnet:..., cardsearch:..., a model path, module:attr"
# `random` is both a bidder and a player
_BIDDER_NAMES = ("pass", "rules", "sayc", "dqn", "ppo", "rules+dqn", "search", "bidsearch", "punisher", "brl", "ben")
_PLAYER_NAMES = tuple(name for name in _PLAY_CLASSES if name != "random")


def _refuse_other_kind(spec: str, what: str, expected: str) -> None:
    """A spec of another kind than ``expected`` ("bidder" or "card player"), refused in one short line naming the
    kind found and the kinds accepted (the whole option list stays in --help)."""
    name = spec.partition(":")[0]
    if spec.startswith(("bid=", "play=")) or ",play=" in spec:
        found = "a game spec"
    elif expected == "bidder" and name in _PLAYER_NAMES:
        found = "a card player"
    elif expected == "card player" and name in _BIDDER_NAMES:
        found = "a bidder"
    else:
        return
    accepted = BIDDERS if expected == "bidder" else PLAYERS
    raise ValueError(f"{what} {_q(spec)} is {found}; {expected}s: {accepted} (--help)")


def _play_model_hint(path: str, kind: str) -> str:
    """What a model of card play (not a bidder, not a player by itself) is for, as a play spec."""
    if kind == "card-player":
        return f"the card-player model plays cards, it does not bid (use play={path} in a game spec)"
    if kind == "trick-estimator":
        return f"the trick-estimator model scores a bidding search; use it as bidsearch:estimator={path},base=SPEC"
    use = {"ISSN": f"issn:model={path}", "card-location": f"pimc:sampler=network,model={path}",
           "SSN": f"pimc:solver=ssn,ssn={path}"}[kind]
    return f"the {kind} model serves card play; use it as {use}"


def _refuse_missing_path(spec: str, what: str) -> None:
    """A spec that reads as a path (a '/' or a .msgpack name) but names nothing: say so, not the list of specs."""
    from bridgerl.core.models import resolve_model_path

    path = resolve_model_path(spec)  # models/NAME: the released model when there is no such path here
    if "/" in spec or "\\" in spec or path.suffix == ".msgpack":
        if not path.exists():
            raise ValueError(f"{what} {_q(spec)}: no such model file or directory (a bare path must name a saved "
                             "model: a directory holding model.msgpack, or a .msgpack file)")
        from bridgerl.core.files import describe_file

        found = "a directory without model.msgpack" if path.is_dir() else (describe_file(path) or "a file")
        raise ValueError(f"{what} {_q(spec)}: {found}, not a model (a bare path names a saved model: a directory "
                         "holding model.msgpack, or a .msgpack file)")


def _is_model_path(spec: str) -> bool:
    """A directory holding a model.msgpack, or a .msgpack file (``models/NAME``: `resolve_model_path`)."""
    from bridgerl.core.models import resolve_model_path

    path = resolve_model_path(spec)
    return (path.is_dir() and (path / "model.msgpack").exists()) or (path.suffix == ".msgpack" and path.is_file())


@dataclass
class Pair:
    """One partnership: its name (the spec), its bidder and its card player. ``identity`` (made by
    `bridgerl.arena.specs.load_pair`): {"bidder", "player": the specs as resolved, "bidder_checkpoints",
    "player_checkpoints": the SHA-256 of every model each loaded, "seed"}; a pair made in code without it is
    recorded by its classes."""

    name: str
    bidder: Any
    player: Any
    identity: dict | None = None

    def described(self) -> dict:
        """The identity, or one made of the agents' classes."""
        if self.identity is not None:
            return self.identity
        named = lambda agent: f"{type(agent).__module__}.{type(agent).__qualname__}"  # noqa: E731
        return {"bidder": named(self.bidder), "bidder_checkpoints": [], "player": named(self.player),
                "player_checkpoints": [], "seed": None}


GAME_PLAYER_DEFAULT = "pimc:worlds=20"
GAME_SPEC_HELP = (f"bid=BIDDER,play=PLAYER, e.g. bid=rules,play=pimc:worlds=20 or bid=dqn:models/competitive-dqn,"
                  f"play=dd (split at ',play=', so PLAYER may hold commas); a bare BIDDER is played by "
                  f"{GAME_PLAYER_DEFAULT}. BIDDER: {SPEC_HELP}. PLAYER: {PLAY_SPEC_HELP}")


def split_game_spec(spec: str) -> tuple[str, str]:
    """(bidder spec, player spec) of a game spec ``bid=BIDDER,play=PLAYER`` (split at ``,play=``); a spec without
    ``bid=``/``play=`` is a bidder, played by ``pimc:worlds=20``; ``play=PLAYER`` alone bids with ``rules``."""
    spec = spec.strip()
    if spec.startswith("play="):
        return "rules", spec[5:]
    bid, sep, play = spec.partition(",play=")
    if bid.startswith("bid="):
        bid = bid[4:]
    if not bid or (sep and not play):
        raise ValueError(f"game spec {_q(spec)}: empty {'bidder' if not bid else 'player'}; expected "
                         f"bid=BIDDER,play=PLAYER")
    return bid, play if sep else GAME_PLAYER_DEFAULT


def explicit_spec(path: str, kind: str) -> str:
    """The explicit spec a bare model path stands for, by the kind of model it holds: as a bidder (``kind``
    "bidder") ``dqn:PATH`` or ``ppo:PATH``; as a card player ("player") ``issn:model=PATH`` or
    ``cardnet:model=PATH``; a model of another use is refused in one line saying where it goes."""
    from bridgerl.agents.learned.checkpoint import checkpoint_kind

    found = checkpoint_kind(path)
    explicit = ({"DQN": f"dqn:{path}", "PPO": f"ppo:{path}"} if kind == "bidder" else
                {"ISSN": f"issn:model={path}", "card-player": f"cardnet:model={path}"}).get(found)
    if explicit is not None:
        return explicit
    if kind == "player" and found in ("DQN", "PPO"):
        raise ValueError(f"play agent spec {_q(path)}: a {found} model bids, it does not play cards (use "
                         f"bid={path} in a game spec)")
    raise ValueError(f"{'agent' if kind == 'bidder' else 'play agent'} spec {_q(path)}: "
                     f"{_play_model_hint(path, found)}")


def resolved_agent_spec(spec: str) -> str:
    """A bidder spec as it was loaded: a bare model path becomes its explicit spec (``dqn:PATH``, ``ppo:PATH``)."""
    return explicit_spec(spec, "bidder") if _is_model_path(spec) else spec


def resolved_play_spec(spec: str) -> str:
    """A play spec as it was loaded: a bare model path becomes its explicit spec, and a built-in player lists every
    setting with its value (defaults included), so a changed default never passes for the same player."""
    if _is_model_path(spec):
        spec = explicit_spec(spec, "player")
    name, _, rest = spec.partition(":")
    if name not in _PLAY_CLASSES:
        return spec
    import bridgerl.agents as agents

    cls = getattr(agents, _PLAY_CLASSES[name])
    settings = {**spec_keywords(cls), **_keyword_values(rest, spec, cls)}
    if hasattr(cls, "resolved_settings"):  # a default that stands for another value is recorded as that value
        settings = cls.resolved_settings(settings)
    text = ",".join(f"{key}={str(value).lower() if isinstance(value, bool) else value}"
                    for key, value in settings.items())
    return f"{name}:{text}" if text else name


def load_identified(spec: str, kind: str, seed: int = 0, env_id: str = "competitive_bidding") -> tuple[object, dict]:
    """(agent, identity) of a bidder (``kind`` "bidder") or card player ("player") spec: the identity is what a
    results file records of it, {"spec": as given, "resolved": `resolved_agent_spec` / `resolved_play_spec`,
    "checkpoints": the SHA-256 of every checkpoint file it loaded, sorted}."""
    from bridgerl.agents.learned.checkpoint import recording_checkpoints

    with recording_checkpoints() as seen:
        if kind == "bidder":
            agent, resolved = load_agent(spec, env_id, seed=seed), resolved_agent_spec(spec)
        else:
            agent, resolved = load_play_agent(spec, seed=seed), resolved_play_spec(spec)
    return agent, {"spec": spec, "resolved": resolved, "checkpoints": sorted(set(seen.values()))}


def load_pair(spec: str, seed: int = 0):
    """A `bridgerl.arena.game.Pair` (bidder for competitive bidding, card player) from a game spec, with its
    identity (`Pair.identity`: the specs as given and resolved, the checkpoints loaded, the seed)."""
    bid, play = split_game_spec(spec)
    bidder, bid_identity = load_identified(bid, "bidder", seed)
    player, play_identity = load_identified(play, "player", seed)
    identity = {"bidder": bid_identity["resolved"], "bidder_checkpoints": bid_identity["checkpoints"],
                "player": play_identity["resolved"], "player_checkpoints": play_identity["checkpoints"], "seed": seed}
    return Pair(spec, bidder, player, identity)
