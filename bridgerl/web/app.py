"""The local web view (`bridgerl serve`): a FastAPI app over the whole-deal game, its agents and their explanations.

The page (``static/``: plain HTML, JavaScript and CSS shipped in the package, nothing fetched from the network) reads
everything from the JSON API below; scripts can use the API too (docs/web.md):

- ``GET /api/config``: the dataset, its number of boards, the default pairs;
- ``GET /api/boards/{index}``: one board (0-based dataset row): dealer, vulnerability, the deal in PBN, the DD
  table and par; ``POST /api/boards`` (``{"deal": PBN, "dealer", "vulnerability"}``; ``deal`` may be a PBN deal,
  a PBN board with its tags, or a BBO LIN board) adds a board of one's own, solved with DDS, numbered after the
  dataset's rows;
- ``GET /api/boards/{index}/auction?ns=SPEC&ew=SPEC``: the agents' auction, each call with its explanation;
- ``GET /api/boards/{index}/play?ns=SPEC&ew=SPEC``: the whole table: auction, every card with the play agent's
  worlds summary, the winner of each trick, the result against double dummy and par. Both take ``client`` and ``seq``: a request whose
  ``seq`` is older than the last one that ``client`` sent is answered 409 without computing anything (a quick
  flip through boards computes only the board it stops on);
- ``GET /api/status``: what the server has computed (``computed``: one entry per board and pair of agents, in
  order) and the tables it holds;
- ``POST /api/tables`` (``{"index", "seats", "ns", "ew"}``), ``GET /api/tables/{id}``,
  ``POST /api/tables/{id}/call`` (``{"call": "1S"}``), ``POST /api/tables/{id}/card`` (``{"card": "SA"}``): a
  person at one seat or a pair against the agents; a finished board is compared in duplicate with the agents
  playing it at the other table. ``GET /api/tables/{id}/calls/{k}``: what the agents' k-th call shows (measured
  on held-out deals, without the agent's own values, which would tell its hand);

Specs in requests accept built-in agents and model paths under ``models/`` only (never ``module:attr``); a bidder
given alone is played by the server's card player (the released learned one, ``models/card-player``, when it is
there: boards then load in seconds; else ``pimc:worlds=20``). Bad input gets a 4xx with a one-line ``detail``;
agents and explanations are computed under one lock (a local, single-user server) and cached. A seated table's
responses show only what its seats may see until the board is over (the deal, the DD table and par come with the
end).
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel

from bridgerl.core import imps, load_dataset
from bridgerl.core.board import dealer_for_board, parse_vul, vul_for_board
from bridgerl.core.bridge import CARD_OFFSET, BridgeState
from bridgerl.core.calls import call_name, parse_call
from bridgerl.core.cards import SEATS, card_name, hand_to_pbn, owner_to_pbn, parse_card, parse_seat
from bridgerl.core.competitive import CompetitiveDealSource, contract_text, score_ns_for_tricks
from bridgerl.core.dd import declarer_total
from bridgerl.core.par import par_contracts
from bridgerl.evaluation.explain import AuctionExplainer, card_explanation
from bridgerl.evaluation.game import GameError, bid_auctions, play_out, see_table, table_record
from bridgerl.evaluation.play import agent_seed
from bridgerl.evaluation.specs import GAME_PLAYER_DEFAULT, load_pair, split_game_spec

STATIC = Path(__file__).with_name("static")
BIDDERS = ("pass", "random", "rules", "sayc")
MODEL_BIDDERS = ("dqn:", "ppo:", "rules+dqn:")
PLAYERS = ("random", "dd", "pimc", "alphamu", "issn", "cardnet", "cardsearch")
_PATH_OPTIONS = ("model", "issn", "ssn")


class SpecError(ValueError):
    """A spec a request may not load (the message is the 400's detail)."""


REQUEST_LIMITS = {"worlds": 500, "max_moves": 5, "max_tries": 1_000_000, "max_candidates": 10_000,
                  "info_budget": 1_000_000, "T": 10}
"""The largest search sizes a request may ask of a card player (the server computes under one lock)."""


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
    if head is not None:
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


@dataclass
class HumanTable:
    """A person at ``seats`` against the agents at the others."""

    id: int
    index: int
    seats: frozenset
    ns_spec: str
    ew_spec: str
    pairs: tuple
    state: BridgeState
    seen: bool = False              # the card players have been told the table (after the auction)
    mine: list = field(default_factory=list)  # the number of actions before each of the person's moves
    ended: dict | None = None       # a claim or concession that ended the play: {"how", "by", "declarer_tricks"}
    generation: int = 0             # bumped by an undo or an end: the agents' moves of an older one are dropped
    thinking: bool = False          # the agents are moving (in the background: the page asks again)
    run: int = 0                    # the latest run of the agents: only it clears ``thinking``
    notice: str | None = None       # what the last claim came to, for the page

    @property
    def over(self) -> bool:
        return self.state.is_over or self.ended is not None


def actions_log(state: BridgeState) -> list[dict]:
    """Every call and card so far: the seat it was for, the player who chose it (declarer for dummy), the action."""
    log = [{"seat": SEATS[seat], "player": SEATS[seat], "action": int(call), "name": call_name(call)}
           for seat, call in ((s % 4, c) for s, c in enumerate(state.auction.calls, start=state.deal.dealer))]
    if state.play is not None:
        declarer = state.contract.declarer
        for trick in state.play.all_tricks():
            for seat, card in zip(trick.seats, trick.cards):
                player = declarer if seat == (declarer + 2) % 4 else seat
                log.append({"seat": SEATS[seat], "player": SEATS[player], "action": CARD_OFFSET + int(card),
                            "name": card_name(card)})
    return log


RELEASED_PLAYER = "models/card-player"


def default_player(models: str | Path = "models") -> str:
    """The card player of a bidder given alone: the released learned card player when it is there (a card in well
    under a millisecond), else PIMC with 20 worlds."""
    from ..core.models import resolve_model_path

    released = resolve_model_path(Path(models) / "card-player" / "model.msgpack")
    return RELEASED_PLAYER if released.exists() else GAME_PLAYER_DEFAULT


class Server:
    """What the app serves: the dataset, the default pairs, loaded agents, caches and the human tables."""

    def __init__(self, data="test", ns="rules", ew="rules", explain_data="valid", explain_deals: int = 400,
                 seed: int = 0, models: str | Path = "models", player: str | None = None):
        self.data_name = str(data)
        self.dataset = load_dataset(data)
        self.source = CompetitiveDealSource(self.dataset)
        self.models = Path(models)
        self.player = player or default_player(self.models)
        ns, ew = self.game_spec(ns), self.game_spec(ew)
        self.ns, self.ew, self.seed = ns, ew, seed
        self.computed: list[dict] = []      # every board the server computed, in order (GET /api/status)
        self._latest: dict[str, int] = {}   # client -> the newest seq it sent
        self.explainer = AuctionExplainer(explain_data, explain_deals)
        self.explain_data, self.explain_deals = str(explain_data), self.explainer.deals
        self.lock = threading.RLock()
        self._seq_lock = threading.Lock()
        self._pairs: dict = {}
        self._auctions: dict = {}
        self._plays: dict = {}
        self.tables: dict[int, HumanTable] = {}
        self._ids = itertools.count(1)
        self._custom: list = []            # boards posted as PBN: indices len(dataset), len(dataset) + 1, ...
        self._records: dict = {}           # index -> the HandRecord of a posted board with its own auction
        self.progress: dict = {}           # the agents' board being computed: index, pairs, calls and cards so far
        self._explaining: dict = {}        # bidders of the explanations: copies, so that they never shift the games
        for side, spec in enumerate((ns, ew)):  # the defaults must load (the command's own specs)
            self._pairs[(spec, side)] = load_pair(spec, seed + side)

    # -- inputs -----------------------------------------------------------------------------------------------------
    def deal(self, index: int):
        rows = len(self.dataset)
        if 0 <= index < rows:
            return self.source.deal_at(index)
        if rows <= index < rows + len(self._custom):
            return self._custom[index - rows]
        posted = f" and posted boards {rows}..{rows + len(self._custom) - 1}" if self._custom else ""
        raise HTTPException(404, f"no board {index}: {self.data_name} has boards 0..{rows - 1}{posted}")

    def add_deal(self, request: DealRequest) -> dict:
        """A board from a PBN deal (or PBN text with tags), solved with DDS; its index follows the dataset's."""
        if request.board is not None and request.board < 1:
            raise HTTPException(422, f"board {request.board}: board numbers start at 1")
        text = request.deal
        played = None  # the pasted board's own auction and play, when it has them (LIN mb|/pc|, PBN Auction/Play)
        if "[auction" in text.lower():  # a PBN board with its auction (and play)
            from bridgerl.core.records import pbn_records_report

            try:
                report = pbn_records_report(text, "pasted PBN")
            except ValueError as exc:
                raise HTTPException(422, (str(exc).splitlines() or ["malformed PBN"])[0]) from None
            if not report.records:  # its auction or play refused: say why, never drop them silently
                raise HTTPException(422, report.refused[0]["reason"] if report.refused else "no PBN board found")
            played = report.records[0] if report.records[0].calls else None
        if "md|" in text.lower():  # a BBO LIN board (its first one): the deal, dealer, vulnerability and number
            from bridgerl.core.records import lin_records_report

            try:
                report = lin_records_report(text, "pasted LIN")
            except ValueError as exc:
                raise HTTPException(422, str(exc).splitlines()[0]) from None
            if not report.records:
                raise HTTPException(422, report.refused[0]["reason"] if report.refused else "no LIN board found")
            record = report.records[0]
            played = record if record.calls else None
            text = owner_to_pbn(record.owner)
            request = request.model_copy(update={
                "board": request.board or record.board, "dealer": request.dealer or SEATS[record.dealer],
                "vulnerability": request.vulnerability or record.vul})
        options = {"deal": text}
        for key, value in (("dealer", request.dealer), ("vul", request.vulnerability)):
            if value is not None:
                try:  # named apart from the deal's own errors
                    parse_seat(value) if key == "dealer" else parse_vul(value)
                except ValueError as exc:
                    raise HTTPException(422, f"{key}: {(str(exc).splitlines() or ['?'])[0]}") from None
                options[key] = value
        if request.board is not None:
            options.setdefault("dealer", dealer_for_board(request.board))
            options.setdefault("vul", vul_for_board(request.board))
        try:
            deal = self.source.deal_for_reset(np.random.default_rng(0), options)
        except ValueError as exc:
            raise HTTPException(422, (str(exc).splitlines() or ["malformed deal"])[0]) from None
        if request.board is not None:
            deal.board = request.board
        if played is not None:
            try:
                _record_state(deal, played)
            except ValueError as exc:
                raise HTTPException(422, f"the pasted record: {(str(exc).splitlines() or ['?'])[0]}") from None
        with self.lock:
            deal.index = len(self.dataset) + len(self._custom)
            self._custom.append(deal)
            if played is not None:
                self._records[deal.index] = played
        return self.board(deal.index)

    def record(self, index: int) -> dict:
        """A pasted board's own auction and play, in the shape of `play` (``ns`` and ``ew`` "record"; ``result``
        None when the record stops before the end; a claim's tricks as the record tells them)."""
        deal = self.deal(index)
        if index not in self._records:
            raise HTTPException(404, f"board {index} has no record of its own (only pasted LIN or PBN boards with "
                                     "an auction have one)")
        played = self._records[index]
        state = _record_state(deal, played)
        note = {"agent": "record", "kind": "record", "note": "as played at the table (the pasted record)"}
        log = actions_log(state)
        calls = [{"seat": x["seat"], "call": x["name"], "action": x["action"], "explanation": note}
                 for x in log if x["action"] < CARD_OFFSET]
        cards = [{"seat": x["seat"], "player": x["player"], "card": x["name"], "action": x["action"],
                  "explanation": note} for x in log if x["action"] >= CARD_OFFSET]
        result = None
        if state.is_over:
            result = self.result(state)
        elif state.phase == "play" and played.claimed is not None:
            result = self.result(state, played.claimed)
        return {"ns": "record", "ew": "record", "auction": calls, "play": cards, "result": result,
                "trick_winners": [] if state.play is None else
                [SEATS[state.play.winner_of(i)] for i in range(len(state.play.tricks))]}

    def game_spec(self, spec: str) -> str:
        """``spec`` with the server's card player for a bidder given alone (``rules`` -> ``bid=rules,play=...``)."""
        spec = spec.strip()
        if spec.startswith("play=") or ",play=" in spec:
            return spec
        return f"bid={spec[4:] if spec.startswith('bid=') else spec},play={self.player}"

    def note_request(self, client: str | None, seq: int | None) -> None:
        """Remember ``client``'s newest ``seq`` (on arrival, before waiting for the lock)."""
        if client is not None and seq is not None:
            with self._seq_lock:
                self._latest[client] = max(seq, self._latest.get(client, seq))

    def check_current(self, client: str | None, seq: int | None) -> None:
        """409 for a request that ``client`` has since superseded (checked before computing)."""
        if client is not None and seq is not None and seq < self._latest.get(client, seq):
            raise HTTPException(409, f"request {seq} of {client} was superseded by request "
                                     f"{self._latest[client]}: nothing computed")

    def pair(self, spec: str | None, side: int, request: bool = True):
        """The `Pair` of a spec (the server's default for None), loaded once."""
        default = self.ns if side == 0 else self.ew
        spec = default if spec is None or not spec.strip() else self.game_spec(spec)
        if request and spec != default:
            try:
                check_request_spec(spec, self.models)
            except ValueError as exc:
                raise HTTPException(400, str(exc)) from None
        with self.lock:
            if (spec, side) not in self._pairs:
                self._pairs[(spec, side)] = self._load(spec, side)
            return self._pairs[(spec, side)]

    def _load(self, spec: str, side: int):
        try:
            return load_pair(spec, self.seed + side)
        except (ValueError, OSError) as exc:
            raise HTTPException(400, f"spec {spec!r} does not load: {str(exc).splitlines()[0]}") from None

    def _explaining_bidder(self, pair, side: int):
        key = (pair.name, side)
        if key not in self._explaining:
            self._explaining[key] = self._load(pair.name, side).bidder
        return self._explaining[key]

    def _reseed(self, pairs, index: int) -> None:
        """Each board's agents start from (seed, board, side): a board's game never depends on earlier requests."""
        for side, pair in enumerate(pairs):
            for agent in (pair.bidder, pair.player):
                if hasattr(agent, "reseed"):
                    agent.reseed(agent_seed(self.seed, index, side))

    # -- boards -----------------------------------------------------------------------------------------------------
    def board(self, index: int) -> dict:
        deal = self.deal(index)
        return {"index": index, "board": deal.board, "dealer": SEATS[deal.dealer], "vulnerability": deal.vul,
                "deal": owner_to_pbn(deal.owner), "dd": np.asarray(deal.dd, dtype=int).tolist(),
                "par": {"score_ns": int(deal.par_ns), "contracts": par_contracts(deal.dd, deal.vul, deal.dealer)},
                "record": index in self._records}

    def auction(self, index: int, ns: str | None, ew: str | None, client: str | None = None,
                seq: int | None = None) -> dict:
        deal = self.deal(index)
        pairs = (self.pair(ns, 0), self.pair(ew, 1))
        key = (index, pairs[0].name, pairs[1].name)
        with self.lock:
            if key not in self._auctions:
                self.check_current(client, seq)
                self.computed.append({"index": index, "ns": pairs[0].name, "ew": pairs[1].name, "what": "auction"})
                self._reseed(pairs, index)
                self.progress = {"index": index, "ns": pairs[0].name, "ew": pairs[1].name, "calls": 0, "cards": 0}
                final = bid_auctions([BridgeState.start(deal)], [pairs], [index])[0]
                state, calls = BridgeState.start(deal), []
                for call in final.auction.calls:
                    self.progress = {**self.progress, "calls": len(calls)}
                    seat = state.auction.to_act
                    pair = pairs[seat % 2]
                    bidder = self._explaining_bidder(pair, seat % 2)
                    calls.append({"seat": SEATS[seat], "call": call_name(call), "action": int(call),
                                  "explanation": {"agent": pair.name,
                                                  **self.explainer.explain(pair.name, bidder, state, call)}})
                    state = state.apply(call)
                self._auctions[key] = {"ns": pairs[0].name, "ew": pairs[1].name, "calls": calls}
                self.progress = {}
            return self._auctions[key]

    def play(self, index: int, ns: str | None, ew: str | None, client: str | None = None,
             seq: int | None = None) -> dict:
        deal = self.deal(index)
        pairs = (self.pair(ns, 0), self.pair(ew, 1))
        key = (index, pairs[0].name, pairs[1].name)
        with self.lock:
            if key not in self._plays:
                self.check_current(client, seq)
                self.computed.append({"index": index, "ns": pairs[0].name, "ew": pairs[1].name, "what": "play"})
                auction = self.auction(index, ns, ew)
                self.progress = {"index": index, "ns": pairs[0].name, "ew": pairs[1].name,
                                 "calls": len(auction["calls"]), "cards": 0}
                state = BridgeState.start(deal)
                for call in auction["calls"]:
                    state = state.apply(call["action"])
                self._reseed(pairs, index)
                for pair in pairs:
                    see_table(pair.player, state, *pairs)
                cards = []

                def trace(before: BridgeState, action: int, pair) -> None:  # after the player chose, before the card
                    view = before.view()
                    forced = len(view.equivalent_groups()) == 1
                    explanation = ({"kind": "forced", "note": "one choice (the legal cards are equivalent)"}
                                   if forced else card_explanation(pair.player, view))
                    cards.append({"seat": SEATS[before.seat], "player": SEATS[before.player],
                                  "card": card_name(action - CARD_OFFSET), "action": action,
                                  "explanation": {"agent": pair.name, **explanation}})
                    self.progress = {**self.progress, "cards": len(cards)}

                try:
                    state, _ = play_out(state, *pairs, trace=trace)  # an agent's illegal card raises GameError
                finally:
                    self.progress = {}
                self._plays[key] = {"ns": pairs[0].name, "ew": pairs[1].name, "auction": auction["calls"],
                                    "play": cards, "result": self.result(state),
                                    "trick_winners": [] if state.play is None else
                                    [SEATS[state.play.winner_of(i)] for i in range(len(state.play.tricks))]}
            return self._plays[key]

    @staticmethod
    def result(state: BridgeState, declarer_tricks: int | None = None) -> dict:
        """The result of a finished board, or (``declarer_tricks``) of a play ended by a claim or concession with
        declarer's total tricks agreed."""
        if declarer_tricks is None:
            record = table_record(state, [[0.0, 0.0], [0, 0]])
            values = {key: record[key] for key in ("contract", "declarer", "tricks", "dd_tricks", "score_ns")}
        else:
            contract = state.contract
            values = {"contract": contract_text(contract), "declarer": SEATS[contract.declarer],
                      "tricks": int(declarer_tricks), "dd_tricks": int(state.deal.dd[contract.declarer, contract.strain]),
                      "score_ns": score_ns_for_tricks(contract, declarer_tricks, state.deal.vul)}
        return values | {"par_ns": int(state.deal.par_ns), "vs_par_imps": int(imps(values["score_ns"] - state.deal.par_ns)),
                         "text": result_text(state, declarer_tricks)}

    # -- a person at the table --------------------------------------------------------------------------------------
    def new_table(self, request: TableRequest, wait: bool = True) -> dict:
        """A table with the person at ``request.seats``; the agents move until it is the person's turn (``wait``
        False: in the background, and the answer comes at once with ``thinking`` True: ask `table_view` again)."""
        deal = self.deal(request.index)
        seats = request.seats.strip().upper()
        if seats not in ("N", "E", "S", "W", "NS", "SN", "EW", "WE"):
            raise HTTPException(422, f"seats {request.seats!r}: one seat (N, E, S or W) or a pair (NS or EW)")
        pairs = (self.pair(request.ns, 0), self.pair(request.ew, 1))
        with self.lock:
            fresh = tuple(self._load(pair.name, side) for side, pair in enumerate(pairs))  # the table's own agents
            self._reseed(fresh, request.index)
            table = HumanTable(next(self._ids), request.index, frozenset(parse_seat(s) for s in seats),
                               pairs[0].name, pairs[1].name, fresh, BridgeState.start(deal))
            self.tables[table.id] = table
        return self._agents_then_view(table, wait)

    def table(self, table_id: int) -> HumanTable:
        if table_id not in self.tables:
            raise HTTPException(404, f"no table {table_id}")
        return self.tables[table_id]

    def _agent_step(self, table: HumanTable, generation: int) -> bool:
        """One move of the agent to act, under the lock; False when it is the person's turn, the board is over or
        the table moved on (an undo or an end since ``generation``). An agent's illegal action raises GameError,
        the server's fault."""
        with self.lock:
            state = table.state
            if table.generation != generation or table.over or state.player in table.seats:
                return False
            if state.phase == "auction":
                table.state = bid_auctions([state], [table.pairs], [table.index], stop=lambda s: s is not state)[0]
                return True
            if not table.seen:  # the card players are told the table once, before the first card
                for pair in table.pairs:
                    see_table(pair.player, state, *table.pairs)
                table.seen = True
            table.state = play_out(state, *table.pairs, stop=lambda s: s is not state)[0]
            return True

    def _agents_then_view(self, table: HumanTable, wait: bool) -> dict:
        """Let the agents move until the person's turn: now (``wait``), or in a background thread while the page
        shows their cards as they come."""
        with self.lock:
            generation = table.generation
            table.run += 1
            token = table.run
            table.thinking = True

        def done() -> None:
            with self.lock:
                if table.run == token:  # a later run (after a move or an undo) clears it itself
                    table.thinking = False

        if wait:
            try:
                while self._agent_step(table, generation):
                    pass
            finally:
                done()
            return self.table_view(table)

        def run():
            try:
                while self._agent_step(table, generation):
                    pass
            except Exception as exc:  # shown to the page with the table (an agent's fault, not the person's)
                table.notice = f"an agent failed: {(str(exc).splitlines() or [type(exc).__name__])[0]}"
            finally:
                done()

        threading.Thread(target=run, daemon=True, name=f"table-{table.id}").start()
        return self.table_view(table)

    def _persons_turn(self, table: HumanTable) -> BridgeState:
        state = table.state
        if table.over:
            raise HTTPException(409, "the board is over")
        if table.thinking:
            raise HTTPException(409, "the agents are still moving: ask for the table again")
        if state.player not in table.seats:
            raise HTTPException(409, f"it is {SEATS[state.player]}'s turn, not yours")
        return state

    def human_move(self, table_id: int, text: str, kind: str, wait: bool = True) -> dict:
        with self.lock:
            table = self.table(table_id)
            state = self._persons_turn(table)
            if kind == "call":
                if state.phase != "auction":
                    raise HTTPException(409, "the auction is over: play a card")
                try:
                    action = parse_call(text)
                except ValueError as exc:
                    raise HTTPException(422, str(exc).splitlines()[0]) from None
            else:
                if state.phase != "play":
                    raise HTTPException(409, "the auction is not over: make a call")
                try:
                    action = CARD_OFFSET + parse_card(text)
                except ValueError as exc:
                    raise HTTPException(422, str(exc).splitlines()[0]) from None
            try:
                after = state.apply(action)
            except ValueError as exc:
                raise HTTPException(422, str(exc).splitlines()[0]) from None
            table.mine.append(_action_count(state))
            table.state, table.notice = after, None
        return self._agents_then_view(table, wait)

    def undo(self, table_id: int, wait: bool = True) -> dict:
        """Take back the person's last call or card, and the agents' moves since: the table goes back to the
        person's turn before it (409 with none to take back or the board over)."""
        with self.lock:
            table = self.table(table_id)
            if table.over:
                raise HTTPException(409, "the board is over: nothing to undo")
            if not table.mine:
                raise HTTPException(409, "nothing to undo: you have not made a call or played a card yet")
            count = table.mine.pop()
            state = BridgeState.start(table.state.deal)
            for action in _actions(table.state)[:count]:
                state = state.apply(action)
            table.generation += 1
            table.state, table.notice = state, None
            if state.phase == "auction":
                table.seen = False  # the card players are told the table again after the new auction
        return self._agents_then_view(table, wait)

    def claim(self, table_id: int, tricks: int | None) -> dict:
        """The person claims ``tricks`` of the tricks still to play for their side (None: all of them), at any
        point of the play; the agents accept when double-dummy play from here gives the side at least that many
        (one DDS search), and the board ends with the tricks claimed; else the play goes on (``notice`` says so)."""
        with self.lock:
            table, play = self._playing(table_id, "claim")
            left = 13 - len(play.tricks)
            tricks = left if tricks is None else tricks
            if not 0 <= tricks <= left:
                raise HTTPException(422, f"tricks {tricks}: claim 0 to {left} (the tricks still to play)")
            side = min(table.seats) % 2
            declaring = side == play.declarer % 2
            claimed = play.declarer_tricks + (tricks if declaring else left - tricks)
            total = declarer_total(play)
            good = total >= claimed if declaring else total <= claimed
            names = " and ".join(SEATS[s] for s in range(4) if s % 2 != side)
            if good:
                self._end(table, "claim", claimed)
                table.notice = f"{names} accept your claim of {tricks} of the last {left} tricks"
            else:
                table.notice = f"{names} do not accept your claim of {tricks} of the last {left} tricks: play on"
            return self.table_view(table)

    def concede(self, table_id: int) -> dict:
        """The person's side gives the opponents every trick still to play: the board ends."""
        with self.lock:
            table, play = self._playing(table_id, "concede")
            declaring = min(table.seats) % 2 == play.declarer % 2
            self._end(table, "concede", play.declarer_tricks + (0 if declaring else 13 - len(play.tricks)))
            table.notice = "you conceded the rest of the tricks"
            return self.table_view(table)

    def _playing(self, table_id: int, what: str):
        """(table, its `PlayState`) of a table in the play where the person plays a hand; else 409 in one line (the
        board over, the auction not over, a person at dummy alone: dummy takes no part in the play)."""
        table = self.table(table_id)
        if table.over:
            raise HTTPException(409, "the board is over")
        play = table.state.play
        if table.state.phase != "play":
            raise HTTPException(409, f"{what} during the play only: the auction is not over")
        if table.seats == {play.dummy}:
            raise HTTPException(409, f"dummy cannot {what}: declarer ({SEATS[play.declarer]}) plays the hand")
        return table, play

    @staticmethod
    def _end(table: HumanTable, how: str, declarer_tricks: int) -> None:
        table.generation += 1
        table.ended = {"how": how, "by": "".join(SEATS[s] for s in sorted(table.seats)),
                       "declarer_tricks": int(declarer_tricks)}

    def table_call(self, table_id: int, position: int) -> dict:
        """What the ``position``-th call of a seated table's auction shows, measured from the agent that made it on
        held-out deals (as the agents' auction explains it), without the agent's own view of its decision (its
        values would tell its hand); the person's own calls are not explained."""
        with self.lock:
            table = self.table(table_id)
            calls = table.state.auction.calls
            if not 0 <= position < len(calls):
                raise HTTPException(404, f"no call {position}: the auction has {len(calls)} calls so far")
            dealer = table.state.deal.dealer
            seat = (dealer + position) % 4
            if seat in table.seats:
                raise HTTPException(409, f"call {position} is yours ({SEATS[seat]}): only the agents' calls are "
                                         "explained")
            state = BridgeState.start(table.state.deal)
            for call in calls[:position]:
                state = state.apply(call)
            pair = table.pairs[seat % 2]
            bidder = self._explaining_bidder(pair, seat % 2)
            explanation = self.explainer.explain(pair.name, bidder, state, calls[position])
            return {"seat": SEATS[seat], "call": call_name(calls[position]), "action": int(calls[position]),
                    "explanation": {"agent": pair.name,
                                    **{k: v for k, v in explanation.items() if k != "considered"}}}

    def table_view(self, table: HumanTable) -> dict:
        """What the person sees: their hands (and dummy's after the opening lead; all four at the end). Reads the
        table's immutable state as it stands (the agents may be moving in the background)."""
        state = table.state
        over = table.over
        owner = state.deal.owner
        played = set(state.play.history) if state.play is not None else set()
        dummy = (state.contract.declarer + 2) % 4 if state.contract is not None else None
        shown = set(table.seats)
        if state.play is not None and len(state.play.history) >= 1 and dummy is not None:
            shown.add(dummy)
        if over:
            shown = {0, 1, 2, 3}
        left = owner.copy()
        if not over or table.ended is not None:
            left[sorted(played)] = 255  # played cards leave the hands (a finished board shows the deal)
        hands = {SEATS[seat]: hand_to_pbn(left, seat).split(".") if seat in shown else None for seat in range(4)}
        your_turn = not over and not table.thinking and state.player in table.seats
        legal = []
        if your_turn:
            mask = state.legal_mask()
            legal = [call_name(a) if a < CARD_OFFSET else card_name(a - CARD_OFFSET) for a in np.flatnonzero(mask)]
        deal = state.deal
        view = {"id": table.id, "index": table.index, "board": deal.board, "dealer": SEATS[deal.dealer],
                "vulnerability": deal.vul, "seats": "".join(SEATS[s] for s in sorted(table.seats)),
                "ns": table.ns_spec, "ew": table.ew_spec, "phase": "over" if over else state.phase,
                "to_act": None if over else SEATS[state.player],
                "seat_to_play": None if over else SEATS[state.seat], "your_turn": your_turn, "legal": legal,
                "thinking": table.thinking and not over, "can_undo": bool(table.mine) and not over,
                "can_claim": not over and state.phase == "play" and table.seats != {state.play.dummy},
                "ended": table.ended, "notice": table.notice,
                "hands": hands, "log": actions_log(state),
                "contract": contract_text(state.contract) if state.contract is not None else None,
                "declarer": SEATS[state.contract.declarer] if state.contract is not None else None,
                **play_summary(state, over)}
        if over:
            view["deal"] = owner_to_pbn(owner)
            view["dd"] = np.asarray(deal.dd, dtype=int).tolist()
            view["par"] = {"score_ns": int(deal.par_ns), "contracts": par_contracts(deal.dd, deal.vul, deal.dealer)}
            result = self.result(state, None if table.ended is None else table.ended["declarer_tricks"])
            other = self.play(table.index, table.ns_spec, table.ew_spec)["result"]
            side = 1 if min(table.seats) % 2 == 0 else -1  # the person's side: NS +, EW -
            view["result"] = result
            view["other_table"] = other
            view["duplicate_imps"] = int(imps(side * (result["score_ns"] - other["score_ns"])))
        return view


def _record_state(deal, record) -> BridgeState:
    """The state after a hand record's calls and cards on ``deal`` (ValueError naming an illegal one)."""
    from bridgerl.core.hand_record import record_actions

    state = BridgeState.start(deal)
    for action in record_actions(record):
        state = state.apply(int(action))
    return state


def _actions(state: BridgeState) -> list[int]:
    """Every call and card of ``state`` in order, as actions."""
    cards = () if state.play is None else state.play.history
    return [*map(int, state.auction.calls), *(CARD_OFFSET + int(card) for card in cards)]


def _action_count(state: BridgeState) -> int:
    return len(state.auction.calls) + (0 if state.play is None else len(state.play.history))


def play_summary(state: BridgeState, over: bool | None = None) -> dict:
    """What the table shows of the play so far: declarer's and the defence's tricks, the seat on lead to the
    trick in progress (none once ``over``: the state's end, or a claim), its cards, and the last completed trick with
    its winner (public information only)."""
    over = state.is_over if over is None else over
    play = state.play
    if play is None:
        return {"tricks": None, "on_lead": None, "trick": [], "last_trick": None}
    current = [{"seat": SEATS[seat], "card": card_name(card)} for seat, card in zip(play.trick.seats, play.trick.cards)]
    last = None
    if play.tricks:
        done = play.tricks[-1]
        last = {"cards": [{"seat": SEATS[seat], "card": card_name(card)} for seat, card in zip(done.seats, done.cards)],
                "winner": SEATS[play.winner_of(len(play.tricks) - 1)], "number": len(play.tricks)}
    return {"tricks": {"declarer": int(play.declarer_tricks), "defence": int(len(play.tricks) - play.declarer_tricks)},
            "on_lead": None if over else SEATS[play.trick.leader], "trick": current, "last_trick": last}


def result_text(state: BridgeState, tricks: int | None = None) -> str:
    """The result as a scorer writes it: "3NT S -4", "4HX W =", "2S N +1", "Passed out" (``tricks``: declarer's
    total when the play ended early)."""
    contract = state.contract
    if contract is None:
        return "Passed out"
    tricks = state.result().tricks if tricks is None else tricks
    over = tricks - contract.level - 6
    return f"{contract_text(contract)} {SEATS[contract.declarer]} {'=' if over == 0 else f'{over:+d}'}"


def create_app(server: Server) -> FastAPI:
    """The FastAPI app of ``server``."""
    app = FastAPI(title="bridgerl", description="Deals, agents and explanations of their calls and cards",
                  version="1")
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.exception_handler(RequestValidationError)
    async def one_line_validation_error(request: Request, exc: RequestValidationError):
        first = exc.errors()[0] if exc.errors() else {"loc": (), "msg": "invalid request"}
        where = ".".join(str(part) for part in first.get("loc", ()) if part not in ("body", "query", "path"))
        return JSONResponse({"detail": f"{where or 'request'}: {first.get('msg', 'invalid')}"}, status_code=422)

    @app.exception_handler(GameError)
    async def agent_broke_the_rules(request: Request, exc: GameError):  # the server's agent, not the request
        return JSONResponse({"detail": (str(exc).splitlines() or ["an agent broke the rules"])[0]}, status_code=500)

    @app.exception_handler(ValueError)
    async def one_line_value_error(request: Request, exc: ValueError):  # an agent or input the rules refuse
        return JSONResponse({"detail": (str(exc).splitlines() or [type(exc).__name__])[0]}, status_code=400)

    @app.get("/", include_in_schema=False)
    def page():
        return FileResponse(STATIC / "index.html")

    @app.get("/api/config")
    def config():
        return {"data": server.data_name, "boards": len(server.dataset), "posted": len(server._custom),
                "ns": server.ns, "ew": server.ew, "explain_data": server.explain_data,
                "explain_deals": server.explain_deals}

    @app.get("/api/progress")
    def progress():  # no lock: what the board being computed has so far ({} when none)
        return dict(server.progress)

    @app.post("/api/boards")
    def add_board(request: DealRequest):
        return server.add_deal(request)

    @app.get("/api/boards/{index}")
    def board(index: int):
        return server.board(index)

    @app.get("/api/boards/{index}/auction")
    def auction(index: int, ns: str | None = None, ew: str | None = None, client: str | None = None,
                seq: int | None = None):
        server.note_request(client, seq)
        return server.auction(index, ns, ew, client, seq)

    @app.get("/api/boards/{index}/record")
    def record(index: int):
        return server.record(index)

    @app.get("/api/boards/{index}/play")
    def play(index: int, ns: str | None = None, ew: str | None = None, client: str | None = None,
             seq: int | None = None):
        server.note_request(client, seq)
        return server.play(index, ns, ew, client, seq)

    @app.get("/api/status")
    def status():
        return {"computed": list(server.computed), "tables": len(server.tables), "player": server.player}

    @app.post("/api/tables")
    def new_table(request: TableRequest, wait: bool = True):
        return server.new_table(request, wait)

    @app.get("/api/tables/{table_id}")
    def table(table_id: int):
        return server.table_view(server.table(table_id))

    @app.get("/api/tables/{table_id}/calls/{position}")
    def table_call(table_id: int, position: int):
        return server.table_call(table_id, position)

    @app.post("/api/tables/{table_id}/call")
    def call(table_id: int, request: CallRequest, wait: bool = True):
        return server.human_move(table_id, request.call, "call", wait)

    @app.post("/api/tables/{table_id}/card")
    def card(table_id: int, request: CardRequest, wait: bool = True):
        return server.human_move(table_id, request.card, "card", wait)

    @app.post("/api/tables/{table_id}/undo")
    def undo(table_id: int, wait: bool = True):
        return server.undo(table_id, wait)

    @app.post("/api/tables/{table_id}/claim")
    def claim(table_id: int, request: ClaimRequest | None = None):
        return server.claim(table_id, None if request is None else request.tricks)

    @app.post("/api/tables/{table_id}/concede")
    def concede(table_id: int):
        return server.concede(table_id)

    return app
