"""The boards of the web view (`BoardViews`, a part of `bridgerl.web.app.Server`): a board of the dataset or one
posted (PBN or LIN, with its own record when it has an auction), and the agents' auction and play of it, each call and
card with its explanation, computed once per board and pair of agents under the server's board lock and cached.

``GET /api/boards/{index}``, ``POST /api/boards``, ``GET /api/boards/{index}/record``, ``.../auction`` and
``.../play`` answer with these methods.
"""

from __future__ import annotations

import numpy as np
from fastapi import HTTPException

from bridgerl.core import imps
from bridgerl.core.board import dealer_for_board, parse_vul, vul_for_board
from bridgerl.core.bridge import CARD_OFFSET, BridgeState
from bridgerl.core.calls import call_name
from bridgerl.core.cards import SEATS, card_name, owner_to_pbn, parse_seat
from bridgerl.core.competitive import contract_text, score_ns_for_tricks
from bridgerl.core.par import par_contracts
from bridgerl.arena.explain import card_explanation
from bridgerl.arena.game import bid_auctions, play_out, see_table, table_record

from .requests import DealRequest
from .state import _record_state, actions_log, result_text


def contract_json(state: BridgeState) -> dict | None:
    """The contract and declarer once the auction has reached one (None before, and for a passed-out board): what
    the page steps a record's play with, also when the record stops in the middle of the play."""
    contract = state.contract if state.phase != "auction" else None
    if contract is None:
        return None
    return {"contract": contract_text(contract), "declarer": SEATS[contract.declarer]}


class BoardViews:
    """The board-viewing part of `bridgerl.web.app.Server` (a mixin: `Server.__init__` sets the dataset, its
    ``source``, the locks, the caches and posted boards; `Server` has ``pair``, ``check_current``, ``_reseed`` and
    ``_explaining_bidder``)."""

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
                "contract": contract_json(state),
                "trick_winners": [] if state.play is None else
                [SEATS[state.play.winner_of(i)] for i in range(len(state.play.tricks))]}

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
        with self.board_lock:
            if key not in self._auctions:
                self.check_current(client, seq)
                self.computed.append({"index": index, "ns": pairs[0].name, "ew": pairs[1].name, "what": "auction"})
                self._reseed(pairs, index)
                self.progress = {"index": index, "ns": pairs[0].name, "ew": pairs[1].name, "calls": 0, "cards": 0}
                final = bid_auctions([BridgeState.start(deal)], [pairs], [index])[0]
                state, calls = BridgeState.start(deal), []
                for call in final.auction.calls:
                    self.check_running()
                    self.progress = {**self.progress, "calls": len(calls)}
                    seat = state.auction.to_act
                    pair = pairs[seat % 2]
                    with self.explain_lock:
                        bidder = self._explaining_bidder(pair, seat % 2)
                        explanation = self.explainer.explain(pair.name, bidder, state, call)
                    calls.append({"seat": SEATS[seat], "call": call_name(call), "action": int(call),
                                  "explanation": {"agent": pair.name, **explanation}})
                    state = state.apply(call)
                self._auctions[key] = {"ns": pairs[0].name, "ew": pairs[1].name, "calls": calls}
                self.progress = {}
            return self._auctions[key]

    def play(self, index: int, ns: str | None, ew: str | None, client: str | None = None,
             seq: int | None = None) -> dict:
        deal = self.deal(index)
        pairs = (self.pair(ns, 0), self.pair(ew, 1))
        key = (index, pairs[0].name, pairs[1].name)
        with self.board_lock:
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
                    self.check_running()
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
                                    "play": cards, "result": self.result(state), "contract": contract_json(state),
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
