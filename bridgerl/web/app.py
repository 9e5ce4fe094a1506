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
the agents' boards are computed one at a time (``board_lock``) and cached, while each seated table moves under its own
lock, so a table's agents never wait behind a board's search (DDS itself takes one search at a time in a process:
`bridgerl.core.dd.DDS_LOCK`). Ctrl-C stops `bridgerl serve` at once: a board being computed stops at its next
call or card (``Server.stopping``, set before uvicorn's own handler runs) and the objects the server holds are frozen
for the interpreter's exit (the app's lifespan). A seated table's
responses show only what its seats may see until the board is over (the deal, the DD table and par come with the
end).

The server is split along its seams; this module holds `Server` (its state, the agents it loads and the checks
shared by its parts) and `create_app`, the routes; the parts live beside it:

- `bridgerl.web.requests`: the specs a request may load (`check_request_spec`, `SpecError`, `REQUEST_LIMITS`,
  `default_player`) and the pydantic bodies of the POST requests;
- `bridgerl.web.boards`: `BoardViews`, the boards and the agents' auction and play of them;
- `bridgerl.web.tables`: `HumanTable` and `HumanTables`, a person at the table against the agents;
- `bridgerl.web.state`: what the page shows of a game state (the log of calls and cards, the play so far, the result).

The names this module defined before the split are imported here too (``from bridgerl.web.app import
HumanTable, check_request_spec`` works as before).
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import signal
import threading
from pathlib import Path

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles

from bridgerl.core import load_dataset
from bridgerl.core.competitive import CompetitiveDealSource
from bridgerl.arena.explain import AuctionExplainer
from bridgerl.arena.game import GameError
from bridgerl.arena.play import agent_seed
from bridgerl.arena.specs import load_pair

from .boards import BoardViews
from .requests import (  # noqa: F401  (names of this module before the split)
    _PATH_OPTIONS, BIDDERS, MODEL_BIDDERS, PLAYERS, RELEASED_PLAYER, REQUEST_LIMITS, CallRequest, CardRequest,
    ClaimRequest, DealRequest, SpecError, TableRequest, check_request_spec, default_player)
from .state import _action_count, _actions, _record_state, actions_log, play_summary, result_text  # noqa: F401
from .tables import HumanTable, HumanTables

STATIC = Path(__file__).with_name("static")


class Server(BoardViews, HumanTables):
    """What the app serves: the dataset, the default pairs, loaded agents, caches and the human tables (the boards
    from `BoardViews`, the tables from `HumanTables`; the agents' loading and the request checks they share here)."""

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
        self.lock = threading.RLock()        # the server's dictionaries (agents loaded, tables): held briefly
        self.board_lock = threading.RLock()  # the agents' boards: one computed at a time, then cached
        self.explain_lock = threading.RLock()  # the explainer and its bidders, shared by the boards and tables
        self._seq_lock = threading.Lock()
        self._pairs: dict = {}
        self._auctions: dict = {}
        self._plays: dict = {}
        self.tables: dict[int, HumanTable] = {}
        self._ids = itertools.count(1)
        self._custom: list = []            # boards posted as PBN: indices len(dataset), len(dataset) + 1, ...
        self._records: dict = {}           # index -> the HandRecord of a posted board with its own auction
        self.progress: dict = {}           # the agents' board being computed: index, pairs, calls and cards so far
        self.stopping = threading.Event()  # set by Ctrl-C: a board being computed stops at its next call or card
        self._explaining: dict = {}        # bidders of the explanations: copies, so that they never shift the games
        for side, spec in enumerate((ns, ew)):  # the defaults must load (the command's own specs)
            self._pairs[(spec, side)] = load_pair(spec, seed + side)

    # -- shared by the boards and the tables ------------------------------------------------------------------------
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

    def check_running(self) -> None:
        """503 once Ctrl-C has stopped the server (``stopping``): a board being computed stops at its next call or
        card, so that the server's shutdown never waits for the rest of it."""
        if self.stopping.is_set():
            raise HTTPException(503, "the server is stopping: nothing more is computed")

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


def _stop_on_signals(server: Server):
    """While the app runs in the main thread (`bridgerl serve`): Ctrl-C (SIGINT) and SIGTERM set
    ``server.stopping`` before uvicorn's own handler runs, so that a board being computed gives up at its next call
    or card (its request answered 503) instead of holding the shutdown until the whole board is played. Returns what
    puts the handlers back; elsewhere (a server in a thread of the tests) it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    previous = {sig: handler for sig, handler in handlers.items() if callable(handler)}  # uvicorn's handle_exit

    def stop(sig, frame):
        server.stopping.set()
        previous[sig](sig, frame)

    for sig in previous:
        signal.signal(sig, stop)

    def restore() -> None:
        for sig, handler in previous.items():
            signal.signal(sig, handler)

    return restore


def create_app(server: Server) -> FastAPI:
    """The FastAPI app of ``server``."""

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        restore = _stop_on_signals(server)
        try:
            yield
        finally:
            restore()
            if threading.current_thread() is threading.main_thread():
                # The process ends with the server (`bridgerl serve`): the objects it holds (the agents, JAX, the
                # dataset: some 200,000) are frozen, so that the interpreter's exit does not walk them all again
                # for reference cycles, which took a second of the Ctrl-C; a server in a thread of another program
                # leaves that program's collector alone.
                gc.freeze()

    app = FastAPI(title="bridgerl", description="Deals, agents and explanations of their calls and cards",
                  version="1", lifespan=lifespan)
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
