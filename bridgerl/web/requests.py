"""What a web request may ask for: the agent specs it may load and the JSON bodies of the API.

- `check_request_spec` (raising `SpecError`, the 400's one-line detail): a spec a request may load: the built-in
  bidders (`BIDDERS`, `MODEL_BIDDERS` with a model path, and ``ben:DIR`` for BEN's network in a folder under
  ``models/``) and card players (`PLAYERS`) with search sizes bounded by
  `REQUEST_LIMITS`, and existing model paths under ``models/`` only (never ``module:attr``);
- `default_player`: the card player of a bidder given alone (`RELEASED_PLAYER` when it is there);
- the pydantic bodies of the POST requests: `DealRequest` (``POST /api/boards``), `TableRequest`
  (``POST /api/tables``), `CallRequest`, `CardRequest` and `ClaimRequest` (a seated table's moves).
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from bridgerl.arena.specs import GAME_PLAYER_DEFAULT, split_game_spec

BIDDERS = ("pass", "random", "rules", "sayc")
MODEL_BIDDERS = ("dqn:", "ppo:", "rules+dqn:")
PLAYERS = ("random", "dd", "pimc", "alphamu", "issn", "cardnet", "cardsearch")
_PATH_OPTIONS = ("model", "issn", "ssn")


class SpecError(ValueError):
    """A spec a request may not load (the message is the 400's detail)."""


REQUEST_LIMITS = {"worlds": 500, "max_moves": 5, "max_tries": 1_000_000, "max_candidates": 10_000,
                  "info_budget": 1_000_000, "T": 10}
"""The largest search sizes a request may ask of a card player (a board is computed under the server's board lock)."""


def check_request_spec(spec: str, models: Path) -> str:
    """``spec`` if a request may load it: built-in bidders and players with bounded search sizes
    (`REQUEST_LIMITS`), and existing model paths under ``models``; else `SpecError` in one line."""
    spec = spec.strip()
    bid, play = split_game_spec(spec)

    def model_path(path: str) -> None:
        from ..core.models import released_roots, resolve_model_path

        resolved = resolve_model_path(path).resolve()  # models/NAME: the working directory's, else the released one
        roots = [models.resolve(), *(root.resolve() for root in released_roots())]
        if ":" in path or not (path.startswith("models/") and any(resolved.is_relative_to(r) for r in roots)):
            raise SpecError(f"spec {spec!r}: the web view loads models under models/ only, not {path!r}")
        if not resolved.exists():
            raise SpecError(f"spec {spec!r}: no model at {path!r}")

    head = next((prefix for prefix in MODEL_BIDDERS if bid.startswith(prefix)), None)
    if bid.startswith("ben:"):  # BEN's network, its folder under models/ (docs/ben.md), system=N its one option
        path, _, options = bid[4:].partition(",")
        model_path(path)
        if options and not (options.startswith("system=") and options[7:].isdigit()):
            raise SpecError(f"spec {spec!r}: ben:DIR takes only system=N")
    elif head is not None:
        model_path(bid[len(head):])
    elif bid not in BIDDERS:
        if bid.startswith("models/"):
            model_path(bid)
        else:
            raise SpecError(f"spec {spec!r}: bidder {bid!r} is not a built-in agent ({', '.join(BIDDERS)}) or a "
                            f"model under models/")
    if play.startswith("models/"):  # a released card player by its path (models/card-player)
        model_path(play)
        return spec
    name, _, options = play.partition(":")
    if name not in PLAYERS:
        raise SpecError(f"spec {spec!r}: player {name!r} is not a built-in card player ({', '.join(PLAYERS)})")
    for option in filter(None, options.split(",")):
        key, _, value = (part.strip() for part in option.partition("="))
        if key in _PATH_OPTIONS:
            model_path(value)
        elif key in REQUEST_LIMITS and value.lstrip("-").isdigit() and int(value) > REQUEST_LIMITS[key]:
            raise SpecError(f"spec {spec!r}: {key}={value} is more than the web view computes "
                            f"({key} <= {REQUEST_LIMITS[key]}); run `bridgerl show` or `evaluate game` for it")
    return spec


class CallRequest(BaseModel):
    call: str


class CardRequest(BaseModel):
    card: str


class DealRequest(BaseModel):
    deal: str
    board: int | None = None          # its dealer and vulnerability, unless given (or set by PBN tags)
    dealer: str | None = None
    vulnerability: str | None = None


class TableRequest(BaseModel):
    index: int
    seats: str = "S"
    ns: str | None = None
    ew: str | None = None


class ClaimRequest(BaseModel):
    tricks: int | None = None       # of the tricks still to play, those the person's side claims (None: all)


RELEASED_PLAYER = "models/card-player"


def default_player(models: str | Path = "models") -> str:
    """The card player of a bidder given alone: the released learned card player when it is there (a card in well
    under a millisecond), else PIMC with 20 worlds."""
    from ..core.models import resolve_model_path

    released = resolve_model_path(Path(models) / "card-player" / "model.msgpack")
    return RELEASED_PLAYER if released.exists() else GAME_PLAYER_DEFAULT
