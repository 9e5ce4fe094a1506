"""A seat at a table manager of the computer-bridge table protocol (version 18, `bridgerl.arena.protocol`;
`docs/table.md`): `bridgerl table join`. Any of our pairs (a game spec, ``bid=sayc,play=models/card-player``)
plays one seat at a manager that speaks the protocol, ours or another program's.

The seat knows only what the protocol sends it: its own cards, the calls, the cards played and dummy's cards
after the opening lead. Our agents read views of a rules-core state (`BridgeState.view`, `auction_observation`), so
the seat keeps a deal that agrees with everything it was told (its hand, dummy, every card played, the voids each
seat showed) and deals the cards it cannot see to the hidden hands in any way that agrees (`complete_deal`): a view
holds no hidden card, so what the agents choose cannot depend on that filling. Agents that read the whole deal
(``dd``) or a deal's DD table (``punisher:``) cannot sit at a table and are refused.

Seeds are those of ``evaluate game``: the board's row is its number less one (the bundled splits number their rows
from 1), a stochastic bidder is reseeded for every call from (seed, row, table, call) and a card player at the start
of the play from (seed, row, side), ``room`` giving the table (room 2 is `evaluate game`'s second table).
"""

from __future__ import annotations

import socket
import time
from collections import deque

import numpy as np

from bridgerl.arena import protocol as P
from bridgerl.arena.game import bid_auctions, play_out
from bridgerl.arena.play import agent_seed
from bridgerl.arena.specs import Pair, load_pair
from bridgerl.core.bridge import CARD_OFFSET, BridgeState
from bridgerl.core.cards import SEAT_NAMES
from bridgerl.core.competitive import CompetitiveDeal


class SeatError(RuntimeError):
    """The table manager sent what this seat cannot follow (or stopped the board): one line saying so."""


def _voids(cards: list[tuple[int, int]]) -> dict[int, set[int]]:
    """The suits each seat showed out of: (seat, card) in play order."""
    voids: dict[int, set[int]] = {seat: set() for seat in range(4)}
    for start in range(0, len(cards), 4):
        trick = cards[start:start + 4]
        led = trick[0][1] // 13
        for seat, card in trick[1:]:
            if card // 13 != led:
                voids[seat].add(led)
    return voids


def complete_deal(known: dict[int, set[int]], cards: list[tuple[int, int]]) -> np.ndarray:
    """An owner (uint8[52]) that gives each seat of ``known`` (seat -> its cards, 13 each) its cards, each card of
    ``cards`` (seat, card) to the seat that played it, and the other cards to the other seats, 13 a seat, no seat
    holding a suit it showed out of (a maximum flow from the suits to the hidden seats)."""
    owner = np.full(52, 255, dtype=np.int64)
    for seat, hand in known.items():
        owner[list(hand)] = seat
    for seat, card in cards:
        if owner[card] not in (255, seat):
            raise SeatError(f"{SEAT_NAMES[seat]} played {P.card_word(card)}, a card known to be elsewhere")
        owner[card] = seat
    hidden = [seat for seat in range(4) if seat not in known]
    room = {seat: 13 - int((owner == seat).sum()) for seat in hidden}
    voids = _voids(cards)
    free = {suit: [c for c in range(suit * 13, suit * 13 + 13) if owner[c] == 255] for suit in range(4)}
    # max flow: source -> suit (its free cards) -> seat (not void in it) -> sink (room)
    flow = {(suit, seat): 0 for suit in range(4) for seat in hidden}
    left = {suit: len(free[suit]) for suit in range(4)}
    space = dict(room)

    def augment() -> bool:
        # breadth-first search over suits and seats for a path source -> ... -> sink
        parent: dict = {}
        queue = deque(("suit", s) for s in range(4) if left[s] > 0)
        seen = {node for node in queue}
        while queue:
            kind, node = queue.popleft()
            if kind == "suit":
                for seat in hidden:
                    if node not in voids[seat] and ("seat", seat) not in seen:
                        seen.add(("seat", seat))
                        parent[("seat", seat)] = ("suit", node)
                        if space[seat] > 0:  # reached the sink: push one card along the path
                            target = ("seat", seat)
                            space[seat] -= 1
                            while target in parent:
                                source = parent[target]
                                if target[0] == "seat":
                                    flow[source[1], target[1]] += 1
                                else:
                                    flow[target[1], source[1]] -= 1
                                target = source
                            left[target[1]] -= 1
                            return True
                        queue.append(("seat", seat))
            else:  # a seat sends a card back to another suit it holds (undo flow)
                for suit in range(4):
                    if flow[suit, node] > 0 and ("suit", suit) not in seen:
                        seen.add(("suit", suit))
                        parent[("suit", suit)] = ("seat", node)
                        queue.append(("suit", suit))
        return False

    while sum(left.values()) and augment():
        pass
    if sum(left.values()):
        raise SeatError("no deal agrees with the cards and voids seen (the manager allowed a revoke?)")
    for suit in range(4):
        cards_left = list(free[suit])
        for seat in hidden:
            for _ in range(flow[suit, seat]):
                owner[cards_left.pop()] = seat
    return owner.astype(np.uint8)


class SeatClient:
    """One seat at a table manager: ``spec`` (a game spec) plays ``seat`` (0-3) at ``host``:``port``."""

    def __init__(self, host: str, port: int, seat: int | None, spec: str, team: str | None = None, seed: int = 0,
                 room: int = 1, opponents: str | None = None, timeout: float | None = None, log=None,
                 dialect: str = "default"):
        if room not in (1, 2):
            raise ValueError(f"--room is 1 or 2, got {room}")
        if dialect not in P.DIALECTS:
            raise ValueError(f"--dialect {dialect!r}: one of {', '.join(P.DIALECTS)}")
        if seat is None and dialect != "openspiel":
            raise ValueError("give --seat (only --dialect openspiel connects as ANYPL, seated where the manager says)")
        self.dialect = dialect
        self.host, self.port, self.seat, self.spec = host, int(port), 0 if seat is None else int(seat), spec
        self.team = team or spec[:60]
        if not P.TEAM_NAME.fullmatch(self.team):
            raise ValueError(f"--team {self.team[:80]!r}: a team name is 1 to 60 printable characters without quotes "
                             "or backslashes" + ("" if team else " (the agent spec is the default name: give --team)"))
        self.seed, self.table, self.timeout, self.log = int(seed), room - 1, timeout, log
        self.pair = self._load_pair()
        if hasattr(self.pair.bidder, "punish"):
            raise ValueError(f"{spec}: a punisher reads the deal's DD tables, which a seat at a table never sees")
        if hasattr(self.pair.player, "see_deal"):
            raise ValueError(f"{spec}: this card player reads the whole deal (double dummy); a seat at a table sees "
                             "its own cards and dummy's only")
        self.opponents = load_pair(opponents, seed=self.seed) if opponents else self.pair
        self.other = Pair("(the other side)", None, None)  # never asked: a seat chooses for its own side only
        self.boards = 0
        self.sock: socket.socket | None = None
        self.buffer = b""
        self.pending: str | None = None  # a line read ahead (a manager that sends no Timing line after a board)
        self.sent_last = False  # the last thing on the wire was a line of ours (openspiel: pause before the next)

    def _load_pair(self) -> Pair:
        """The pair of this seat's side, seeded as `evaluate game` seeds it (A seed, B seed + 1)."""
        return load_pair(self.spec, seed=self.seed + (self.seat % 2 + self.table) % 2)

    # ------------------------------------------------------------------ the wire
    def _send(self, text: str) -> None:
        text = P.in_dialect(text, self.dialect)
        if self.sent_last and self.dialect == "openspiel":
            time.sleep(0.02)  # OpenSpiel's controllers read whatever one recv brings as one line: keep lines apart
        self.sent_last = True
        if self.log:
            self.log(f"{SEAT_NAMES[self.seat]} -> {text}")
        try:
            self.sock.sendall(text.encode("ascii", "replace") + b"\r\n")
        except OSError:
            raise SeatError(f"{SEAT_NAMES[self.seat]}: the table manager closed the connection") from None

    def _read(self) -> str:
        self.sent_last = False
        if self.pending is not None:
            text, self.pending = self.pending, None
            return text
        while b"\n" not in self.buffer:
            if len(self.buffer) > 4096:
                raise SeatError(f"{SEAT_NAMES[self.seat]}: the table manager sent a line of more than 4096 bytes")
            try:
                chunk = self.sock.recv(4096)
            except OSError:  # reset by the peer (a wrapper that kills its robot between deals)
                chunk = b""
            if not chunk:
                raise SeatError(f"{SEAT_NAMES[self.seat]}: the table manager closed the connection")
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        text = line.rstrip(b"\r").decode("ascii", "replace")
        if self.log:
            self.log(f"{SEAT_NAMES[self.seat]} <- {text}")
        if text.lower().startswith(("board stopped", "error", "illegal")):
            raise SeatError(f"{SEAT_NAMES[self.seat]}: the table manager says: {text}")
        return text

    def _expect(self, kind: str, **fields) -> P.Message:
        text = self._read()
        try:
            return P.expect(text, kind, **fields)
        except P.ProtocolError:
            raise SeatError(f"{SEAT_NAMES[self.seat]}: expected a {kind.replace('_', ' ')} message from the table "
                            f"manager, got {text[:120]!r}") from None

    # ------------------------------------------------------------------ the session
    def run(self) -> int:
        """Play until the manager ends the session; returns the boards played."""
        deadline = time.monotonic() + (self.timeout or 0)
        while True:
            try:
                self.sock = socket.create_connection((self.host, self.port))
                break
            except OSError as exc:
                if not self.timeout or time.monotonic() > deadline:
                    raise SeatError(f"cannot connect to {self.host}:{self.port}: {exc.strerror or exc}") from None
                time.sleep(0.1)
        try:
            self._send(P.connecting(self.team, self.seat))
            if self.dialect == "openspiel":  # as ANYPL: the manager says where
                seat = self._expect("seated")["seat"]
                side_changed, self.seat = seat % 2 != self.seat % 2, seat
                if side_changed:  # the pair is seeded by its side
                    self.pair = self._load_pair()
            else:
                self._expect("seated", seat=self.seat)
            self._send(P.ready_for_teams(self.seat))
            self._expect("teams")
            self._send(P.ready_to_start(self.seat))
            while True:
                try:
                    text = self._read()
                except SeatError:
                    if self.boards:  # a manager that ends the session by closing (OpenSpiel's wrappers)
                        return self.boards
                    raise
                message = P.parse(text) if text.strip() else None
                if message is not None and message.kind == "end_of_session":
                    return self.boards
                if message is None or message.kind != "start_of_board":
                    raise SeatError(f"{SEAT_NAMES[self.seat]}: expected 'Start of board' or 'End of session', got "
                                    f"{text[:120]!r}")
                self._board()
                self.boards += 1
        except P.ProtocolError as exc:
            raise SeatError(f"{SEAT_NAMES[self.seat]}: {exc}") from None
        finally:
            self.sock.close()

    def _state(self, known: dict[int, set[int]], calls: list[int], cards: list[tuple[int, int]]) -> BridgeState:
        owner = complete_deal(known, cards)
        state = BridgeState.start(CompetitiveDeal(owner, None, self.dealer, self.vul, self.board, None))
        for call in calls:
            state = state.apply(call)
        for _, card in cards:
            state = state.apply(CARD_OFFSET + card)
        return state

    def _board(self) -> None:
        me = self.seat
        self._send(P.ready_for_deal(me))
        text = self._read()
        if text.strip().lower() == P.START_OF_BOARD.lower():  # sent again by a manager that thought us silent
            text = self._read()
        self.pending = text
        info = self._expect("board")
        self.board, self.dealer, self.vul = info["board"], info["dealer"], info["vul"]
        row = self.board - 1
        self._send(P.ready_for_cards(me))
        known = {me: set(self._expect("cards", seat=me)["hand"])}
        calls: list[int] = []
        cards: list[tuple[int, int]] = []
        pairs = [(self.pair, self.other) if me % 2 == 0 else (self.other, self.pair)]
        state = self._state(known, calls, cards)
        while state.phase == "auction":
            caller = state.seat
            if caller == me:
                state = bid_auctions([state], pairs, [row], stop=lambda s: s.seat != me, seed=self.seed,
                                     tables=[self.table])[0]
                call = state.auction.calls[-1]
                self._send(P.call_message(me, call))
            else:
                self._send(P.ready_for_bid(me, caller))
                call = self._expect("call", seat=caller)["call"]
                if not state.auction.legal_mask()[call]:
                    raise SeatError(f"{SEAT_NAMES[me]}: the manager relayed an illegal call by {SEAT_NAMES[caller]}")
            calls.append(call)
            state = self._state(known, calls, cards)
        if state.phase == "play":
            self._play(state, known, calls, cards, row)
        text = self._read()  # the board's Timing line; a manager that sends none goes on to the next board
        if P.parse(text).kind != "timing":
            self.pending = text

    def _play(self, state: BridgeState, known, calls, cards, row) -> None:
        me = self.seat
        dummy = (state.contract.declarer + 2) % 4
        player = self.pair.player
        if me != dummy:
            if hasattr(player, "reseed"):
                player.reseed(agent_seed(self.seed, row, 2 * self.table + me % 2))
            if hasattr(player, "see_bidders"):
                player.see_bidders({seat: (self.pair if seat % 2 == me % 2 else self.opponents).bidder
                                    for seat in range(4)})
        while state.phase == "play":
            seat, chooser = state.seat, state.player
            trick = len(cards) // 4 + 1
            if chooser == me:
                if len(cards) % 4 == 0:  # dummy's lead: "Dummy to lead", or declarer's own name (OpenSpiel)
                    leader = self._expect("to_lead")["leader"]
                    if leader not in (("dummy", dummy, me) if seat == dummy else (seat,)):
                        raise SeatError(f"{SEAT_NAMES[me]}: told {leader if leader == 'dummy' else SEAT_NAMES[leader]}"
                                        f" to lead, where {SEAT_NAMES[seat]} leads")
                n = len(cards)
                ns, ew = (self.pair, self.other) if me % 2 == 0 else (self.other, self.pair)
                after, _ = play_out(state, ns, ew, stop=lambda s: len(s.play.history) > n)
                card = after.play.history[n]
                self._send(P.plays(seat, card))
            else:
                self._send(P.ready_for_card(me, seat, trick, seat == dummy))
                card = self._expect("plays", seat=seat)["card"]
                if not state.legal_mask()[CARD_OFFSET + card] and seat in known:
                    raise SeatError(f"{SEAT_NAMES[me]}: the manager relayed an illegal card by {SEAT_NAMES[seat]}")
            cards.append((seat, card))
            if len(cards) == 1 and me != dummy:
                self._send(P.ready_for_dummy(me))
                known[dummy] = set(self._expect("dummy_cards")["hand"])
            state = self._state(known, calls, cards)
