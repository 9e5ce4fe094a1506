"""A person at the table (`HumanTable`, and `HumanTables`, a part of `bridgerl.web.app.Server`): a person at one
seat or a pair against the agents, the agents moving until the person's turn (at once or in a background thread),
the person's calls and cards, undo, claims and concessions, what the agents' calls show, and the table as the person
may see it (all four hands and the duplicate comparison with the agents' own table once the board is over).

``POST /api/tables``, ``GET /api/tables/{id}`` and its ``call``, ``card``, ``undo``, ``claim``, ``concede`` and
``calls/{k}`` answer with these methods.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import numpy as np
from fastapi import HTTPException

from bridgerl.core import imps
from bridgerl.core.bridge import CARD_OFFSET, BridgeState
from bridgerl.core.calls import call_name, parse_call
from bridgerl.core.cards import SEATS, card_name, hand_to_pbn, owner_to_pbn, parse_card, parse_seat
from bridgerl.core.competitive import contract_text
from bridgerl.core.dd import declarer_total
from bridgerl.core.par import par_contracts
from bridgerl.arena.game import bid_auctions, play_out, see_table

from .requests import TableRequest
from .state import _action_count, _actions, actions_log, play_summary


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
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False, compare=False)
    """The table's own lock: its agents' moves and the person's take turns under it, never behind another
    table's or a board's computation (the server's boards hold ``board_lock``)."""

    @property
    def over(self) -> bool:
        return self.state.is_over or self.ended is not None


class HumanTables:
    """The human-table part of `bridgerl.web.app.Server` (a mixin: `Server.__init__` sets ``tables``, the table ids
    and the lock; `Server` has ``pair``, ``_load``, ``_reseed`` and ``_explaining_bidder``, `BoardViews` has ``deal``,
    ``play`` and ``result``: a finished table is compared with the agents' own play of the board)."""

    # -- a person at the table --------------------------------------------------------------------------------------
    def new_table(self, request: TableRequest, wait: bool = True) -> dict:
        """A table with the person at ``request.seats``; the agents move until it is the person's turn (``wait``
        False: in the background, and the answer comes at once with ``thinking`` True: ask `table_view` again)."""
        deal = self.deal(request.index)
        seats = request.seats.strip().upper()
        if seats not in ("N", "E", "S", "W", "NS", "SN", "EW", "WE"):
            raise HTTPException(422, f"seats {request.seats!r}: one seat (N, E, S or W) or a pair (NS or EW)")
        pairs = (self.pair(request.ns, 0), self.pair(request.ew, 1))
        fresh = tuple(self._load(pair.name, side) for side, pair in enumerate(pairs))  # the table's own agents
        self._reseed(fresh, request.index)
        with self.lock:
            table = HumanTable(next(self._ids), request.index, frozenset(parse_seat(s) for s in seats),
                               pairs[0].name, pairs[1].name, fresh, BridgeState.start(deal))
            self.tables[table.id] = table
        return self._agents_then_view(table, wait)

    def table(self, table_id: int) -> HumanTable:
        if table_id not in self.tables:
            raise HTTPException(404, f"no table {table_id}")
        return self.tables[table_id]

    def _agent_step(self, table: HumanTable, generation: int) -> bool:
        """One move of the agent to act, under the lock; False when it is the person's turn, the board is over,
        the table moved on (an undo or an end since ``generation``) or the server is stopping (Ctrl-C: a request that
        waits for the agents is answered with the table as it stands). An agent's illegal action raises GameError,
        the server's fault."""
        with table.lock:
            state = table.state
            if (table.generation != generation or table.over or state.player in table.seats
                    or self.stopping.is_set()):
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
        with table.lock:
            generation = table.generation
            table.run += 1
            token = table.run
            table.thinking = True

        def done() -> None:
            with table.lock:
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
        table = self.table(table_id)
        with table.lock:
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
        table = self.table(table_id)
        with table.lock:
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
        with self.table(table_id).lock:
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
        with self.table(table_id).lock:
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
        table = self.table(table_id)
        with table.lock:
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
            with self.explain_lock:
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
