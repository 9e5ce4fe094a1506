"""A table manager of the computer-bridge table protocol (version 18, `bridgerl.arena.protocol`; `docs/table.md`):
`bridgerl table serve`.

It opens one server socket a seat (room 1: North on ``port``, East ``port + 1``, South ``+ 2``, West ``+ 3``; room 2,
the closed room where the pairs' seats are swapped, ``port + 4`` to ``port + 7``), seats the four programs of each
room, deals the rows of a dataset with their board numbers, dealers and vulnerability, relays every call and card
to the seats that may see it, checks each against the rules core (`bridgerl.core.bridge.BridgeState`: the only
judge of a call or a card) and keeps the score. Every finished board is written at once to the PBN file (auction and
play, read back by ``evaluate records``); a session run again with the same file resumes after the boards written.

Whatever a seat sends, the manager never crashes nor scores a board wrongly: a message that is not the one expected
(malformed, out of turn, another seat's) gets one line to that seat and the log naming the seat and the expected
message; an illegal call or card one line naming it; a dropped connection or a board over ``board_seconds`` ends the
board. The board in progress is then not written, the session stops (exit status 1) and a rerun replays that board.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from pathlib import Path
from typing import Callable

import numpy as np

from bridgerl.arena import protocol as P
from bridgerl.arena.game import declaring_pair, summarize_game, table_record
from bridgerl.arena.table_wire import BoardStopped, Connection, Room, _Dropped
from bridgerl.core import load_dataset
from bridgerl.core.bridge import CARD_OFFSET, BridgeState
from bridgerl.core.cards import SEAT_NAMES
from bridgerl.core.competitive import CompetitiveDealSource
from bridgerl.core.imps import imps


class TableManager:
    """The manager of one session: ``rooms`` rooms over the rows ``start`` .. ``start + deals - 1`` of ``data``."""

    def __init__(self, data, out: str | os.PathLike, port: int, start: int = 0, deals: int | None = None,
                 rooms: int = 1, host: str = "127.0.0.1", board_seconds: float | None = None, log=None,
                 force: bool = False, quiet: bool = True, timing: bool = False):
        if rooms not in (1, 2):
            raise ValueError(f"--rooms is 1 or 2, got {rooms}")
        if not 1024 <= int(port) <= 65535 - 4 * rooms:
            raise ValueError(f"--port {port}: the seats' ports must lie in 1024..65535")
        if board_seconds is not None and not board_seconds > 0:
            raise ValueError(f"--board-seconds must be positive, got {board_seconds}")
        self.dataset = load_dataset(data)
        last = len(self.dataset) if deals is None else min(len(self.dataset), start + int(deals))
        if deals is not None and int(deals) < 1 or not 0 <= start < len(self.dataset):
            raise ValueError(f"{self.dataset.source}: no board to play (rows {start}.. of {len(self.dataset)} deals)")
        self.rows = list(range(int(start), last))
        self.source = CompetitiveDealSource(self.dataset)
        self.out, self.port, self.host, self.rooms = Path(out), int(port), host, int(rooms)
        self.board_seconds = board_seconds
        self.timing_line = bool(timing)  # the protocol's Timing line after each board (bridge_env's client stops on it)
        self.quiet = quiet
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.failure: str | None = None
        self._log_file = open(log, "a", encoding="utf-8") if log else None
        self.done: dict[tuple[int, int], BridgeState] = {}  # (room, row) -> the finished game
        self.timing: dict[tuple[int, int], list] = {}
        self._fresh = bool(force)  # --force: the file is started afresh at the first board
        self._resume(force)

    # ---------------------------------------------------------------- files
    def log(self, text: str) -> None:
        if self._log_file is not None:
            with self.lock:
                self._log_file.write(f"{time.strftime('%H:%M:%S')} {text}\n")
                self._log_file.flush()

    def _event(self, room: int) -> str:
        return f"bridgerl table, room {room + 1}"

    def _resume(self, force: bool) -> None:
        """The boards of an earlier run of this session in ``out`` (each checked to be a deal of these rows, in one
        of its rooms); a file of anything else is refused without ``force``."""
        if not self.out.exists() or force:
            return
        from bridgerl.core.hand_record import replay
        from bridgerl.core.records import read_records

        problem = None
        try:
            records = read_records(self.out)
        except (ValueError, OSError) as exc:
            records, problem = [], str(exc).splitlines()[0][:160]
        by_board: dict[int, list[int]] = {}
        for row in self.rows:
            by_board.setdefault(self.source.deal_at(row).board, []).append(row)
        for record in records:
            room = next((r for r in range(self.rooms) if record.event == self._event(r)), None)
            row = next((r for r in by_board.get(record.board, []) if np.array_equal(record.owner, self.dataset.owner[r])),
                       None)
            if room is None or row is None or (room, row) in self.done \
                    or not record.auction_over or (record.contract is not None and len(record.cards) < 52):
                problem = f"board {record.board} ({record.event}) is not a finished board of this session"
                break
            self.done[room, row] = replay(record, dd=self.dataset.dd[row])
            self.timing[room, row] = [[0.0, 0.0], [0, 0]]
        if problem is not None:
            raise FileExistsError(f"{self.out} holds something else than this session's boards ({problem}): "
                                  "choose another --out, or --force to replace it")

    def _append(self, room: int, state: BridgeState) -> None:
        """Add one finished game to the PBN file (its header first when the file is new): one write and an fsync a
        board, so a long session costs no more per board at its end than at its start."""
        from bridgerl.core.hand_record import record_of
        from bridgerl.core.records_write import pbn_header, record_pbn

        ns, ew = self.names.get(room, ("", ""))
        text = record_pbn(record_of(state, names=(ns, ew, ns, ew), event=self._event(room)))
        if not self.out.exists() or self._fresh:
            from bridgerl.core.files import atomic_write_text

            atomic_write_text(self.out, pbn_header())
            self._fresh = False
        with open(self.out, "a", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())

    # ---------------------------------------------------------------- the session
    def serve(self, ready: Callable[[], None] | None = None) -> dict:
        """Open the seats' sockets, play every board of every room, write and return the results. ``ready`` is
        called once the sockets listen (a test starts its clients then)."""
        listeners = []
        try:
            for room in range(self.rooms):
                for seat in range(4):
                    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                    sock.bind((self.host, self.port + 4 * room + seat))
                    sock.listen(1)
                    listeners.append(sock)
        except OSError as exc:
            for sock in listeners:
                sock.close()
            raise OSError(f"cannot listen on {self.host}:{self.port}..{self.port + 4 * self.rooms - 1}: "
                          f"{exc.strerror or exc}") from None
        self.names: dict[int, tuple[str, str]] = {}
        if ready is not None:
            ready()
        threads = [threading.Thread(target=self._run_room, args=(room, listeners[4 * room:4 * room + 4]),
                                    daemon=True) for room in range(self.rooms)]
        for thread in threads:
            thread.start()
        try:
            for thread in threads:
                while thread.is_alive():
                    thread.join(0.2)
        except KeyboardInterrupt:
            self.stop.set()
            self.failure = self.failure or "interrupted"
        finally:
            for sock in listeners:
                sock.close()
            if self._log_file is not None:
                self._log_file.close()
                self._log_file = None
        return self.results()

    def _run_room(self, index: int, listeners: list[socket.socket]) -> None:
        room = Room(index)
        try:
            self._seat(room, listeners)
            for row in self.rows:
                if self.stop.is_set():
                    break
                if (index, row) in self.done:
                    continue
                state, timing = self._board(room, row)
                with self.lock:
                    self.done[index, row] = state
                    self.timing[index, row] = timing
                    self._append(index, state)
            if not self.stop.is_set():
                for connection in room.seats:
                    connection.send(P.END_OF_SESSION)
        except Exception as exc:  # noqa: BLE001 (a bug of ours: the session stops as for a board stopped)
            message = str(exc) if isinstance(exc, BoardStopped) else f"room {index + 1}: {type(exc).__name__}: {exc}"
            self.log(f"stopped: {message}")
            told = getattr(exc, "seat", None) if getattr(exc, "told", False) else None
            for connection in room.seats:
                if not connection.closed and connection.seat != told:  # the seat at fault had its one line
                    connection.send(f"Board stopped: {message}")
            with self.lock:
                self.failure = self.failure or message
            self.stop.set()
        finally:
            for connection in room.seats:
                connection.close()

    def _seat(self, room: Room, listeners: list[socket.socket]) -> None:
        """Seat the four programs, each on its own port, each answered as it connects, in any order; then run the
        team messages. A connection that closes before its Connecting message (a port probe, a health check) does
        not take the seat; with ``board_seconds``, a seat still empty that long after the first one came ends the
        session."""
        names: list[str | None] = [None] * 4
        connections: list[Connection | None] = [None] * 4
        first: list[float] = []  # when the first seat was taken
        problem: list[BaseException] = []

        def wait_for(seat: int) -> None:
            listener = listeners[seat]
            listener.settimeout(0.2)
            while not self.stop.is_set() and not problem:
                if first and self.board_seconds is not None \
                        and time.monotonic() > first[0] + self.board_seconds:
                    return
                try:
                    sock, _ = listener.accept()
                except socket.timeout:
                    continue
                connection = Connection(sock, seat, room.index, self.log)
                wanted = f'Connecting "TEAM" as {SEAT_NAMES[seat]} using protocol version {P.PROTOCOL_VERSION}'
                deadline = time.monotonic() + (self.board_seconds or 60.0)
                try:
                    text = connection.read(deadline, wanted)
                except BoardStopped:  # closed (a probe) or silent: the seat stays free
                    self.log(f"room {room.index + 1} {SEAT_NAMES[seat]}: a connection closed or stayed silent "
                             "before its Connecting message; still listening")
                    connection.close()
                    continue
                try:
                    message = self._connecting(room, connection, wanted, text)
                except BoardStopped as exc:
                    problem.append(exc)
                    connection.close()
                    return
                names[seat], connections[seat] = message["team"], connection
                with self.lock:
                    if not first:
                        first.append(time.monotonic())
                connection.send(P.seated(seat, message["team"]))
                return

        threads = [threading.Thread(target=wait_for, args=(seat,), daemon=True) for seat in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        room.seats = [c for c in connections if c is not None]
        if problem:
            raise problem[0]
        missing = [SEAT_NAMES[seat] for seat in range(4) if connections[seat] is None]
        if missing:
            if self.stop.is_set():
                raise BoardStopped(f"room {room.index + 1}: stopped before {' and '.join(missing)} connected")
            raise BoardStopped(f"room {room.index + 1}: {' and '.join(missing)} did not connect within "
                               f"--board-seconds {self.board_seconds:g} of the first seat")
        room.seats = connections
        deadline = None if self.board_seconds is None else time.monotonic() + self.board_seconds
        for seat in range(4):
            self._expect(room, seat, "ready_for_teams", P.ready_for_teams(seat), deadline, seat=seat)
        room.teams = (names[0], names[1])
        for seat in (2, 3):
            if names[seat] != names[seat - 2]:
                self.log(f"room {room.index + 1}: {SEAT_NAMES[seat]}'s team {names[seat]!r} is not its partner's "
                         f"{names[seat - 2]!r}; the team is {names[seat - 2]!r}")
        with self.lock:
            self.names[room.index] = room.teams
            other = self.names.get(1 - room.index)
            if other is not None and other != room.teams[::-1]:
                self.log(f"note: the teams of room 1 ({self.names.get(0)}) and room 2 ({self.names.get(1)}) do not sit "
                         "the other way round: the IMPs count room 1's N/S against room 2's N/S all the same")
        for connection in room.seats:
            connection.send(P.teams(*room.teams))
        for seat in range(4):
            self._expect(room, seat, "ready_to_start", P.ready_to_start(seat), deadline, seat=seat)

    def _connecting(self, room: Room, connection: Connection, wanted: str, text: str) -> P.Message:
        """The Connecting message ``text`` of the program at ``connection``'s port, checked (its seat, version,
        team); else that program has its one line and the session stops."""
        seat = connection.seat
        message = None
        try:
            message = P.expect(text, "connecting")
        except P.ProtocolError:
            why = None
        else:
            why = ("" if message["seat"] not in (None, seat) else
                   "this manager speaks version 18 only" if message["version"] != P.PROTOCOL_VERSION else
                   "a team name is 1 to 60 printable characters without quotes or backslashes"
                   if not P.TEAM_NAME.fullmatch(message["team"]) else None)
            if why is None:
                return message
        self._refuse(room, seat, wanted, text, why or None, connection)

    # ---------------------------------------------------------------- one board
    def _expect(self, room: Room, who: int, kind: str, wanted: str, deadline: float | None = None, **fields):
        """The next message of seat ``who``, which must be ``kind`` with ``fields``; else the board stops."""
        text = room.seats[who].read(deadline, wanted)
        try:
            return P.expect(text, kind, **fields)
        except P.ProtocolError:
            self._refuse(room, who, wanted, text)

    def _refuse(self, room: Room, seat: int, wanted: str, got: str, why: str | None = None,
                connection: Connection | None = None):
        line = (f"Error: {SEAT_NAMES[seat]} sent {got[:120]!r}; expected {wanted!r}" + (f" ({why})" if why else ""))
        (connection or room.seats[seat]).send(line)
        raise BoardStopped(f"room {room.index + 1}: {SEAT_NAMES[seat]} sent {got[:120]!r} where {wanted!r} was "
                           f"expected" + (f" ({why})" if why else ""), seat, told=True)

    def _board(self, room: Room, row: int) -> tuple[BridgeState, list]:
        deal = self.source.deal_at(row)
        state = BridgeState.start(deal)
        deadline = None if self.board_seconds is None else time.monotonic() + self.board_seconds
        seconds, cards = [0.0, 0.0], [0, 0]
        stage = f"board {deal.board}"
        try:
            for connection in room.seats:
                connection.send(P.START_OF_BOARD)
            for seat in range(4):
                self._ready_for_deal(room, seat, deadline)
            for connection in room.seats:
                connection.send(P.board_words(deal.board, deal.dealer, deal.vul))
            for seat in range(4):
                self._expect(room, seat, "ready_for_cards", P.ready_for_cards(seat), deadline, seat=seat)
            for seat, connection in enumerate(room.seats):
                connection.send(P.cards_words(seat, np.flatnonzero(deal.owner == seat)))
            while state.phase == "auction":
                state = self._call(room, state, deadline, seconds)
            if state.phase == "play":
                declarer = state.contract.declarer
                dummy = (declarer + 2) % 4
                while state.phase == "play":
                    state = self._card(room, state, dummy, deadline, seconds, cards)
        except BoardStopped as exc:
            raise BoardStopped(f"{exc} in {stage}", exc.seat, exc.told) from None
        for side in (0, 1):
            room.total_seconds[side] += seconds[side]
        if self.timing_line:
            for connection in room.seats:
                connection.send(P.timing(tuple(seconds), tuple(room.total_seconds)))
        return state, [seconds, cards]

    RESEND_SECONDS = 2.0

    def _ready_for_deal(self, room: Room, seat: int, deadline) -> None:
        """The seat's "ready for deal". A client that takes any line after a board for the Timing line (BEN's)
        has read the Start of board as that and waits: after `RESEND_SECONDS` of silence it is sent once more."""
        connection, wanted = room.seats[seat], P.ready_for_deal(seat)
        if not self.timing_line and not connection.buffer:
            first = time.monotonic() + self.RESEND_SECONDS
            try:
                text = connection.read(first if deadline is None else min(first, deadline), wanted)
            except _Dropped:
                raise
            except BoardStopped:
                if deadline is not None and time.monotonic() >= deadline:
                    raise
                self.log(f"room {room.index + 1} {SEAT_NAMES[seat]}: silent after Start of board; sent again")
                connection.send(P.START_OF_BOARD)
            else:
                try:
                    P.expect(text, "ready_for_deal", seat=seat)
                    return
                except P.ProtocolError:
                    self._refuse(room, seat, wanted, text)
        self._expect(room, seat, "ready_for_deal", wanted, deadline, seat=seat)

    def _call(self, room: Room, state: BridgeState, deadline, seconds) -> BridgeState:
        caller = state.seat
        began = time.monotonic()
        message = self._expect(room, caller, "call", f"{SEAT_NAMES[caller]} passes | doubles | redoubles | bids ..",
                               deadline, seat=caller)
        seconds[caller % 2] += time.monotonic() - began
        call = message["call"]
        if not state.auction.legal_mask()[call]:
            line = f"Illegal call: {message.text.strip()[:80]!r} after {state.auction}"
            room.seats[caller].send(line)
            raise BoardStopped(f"room {room.index + 1}: {SEAT_NAMES[caller]} made an illegal call: "
                               f"{message.text.strip()[:80]!r} after {state.auction}", caller, told=True)
        for seat in range(4):
            if seat != caller:
                self._expect(room, seat, "ready_for_bid", P.ready_for_bid(seat, caller), deadline, seat=seat,
                             caller=caller)
                room.seats[seat].send(P.call_message(caller, call))
        return state.apply(call)

    def _card(self, room: Room, state: BridgeState, dummy: int, deadline, seconds, cards) -> BridgeState:
        seat, chooser = state.seat, state.player
        played = len(state.play.history)
        trick = played // 4 + 1
        if played % 4 == 0:
            room.seats[chooser].send(P.to_lead(seat, seat == dummy))
        began = time.monotonic()
        wanted = f"{SEAT_NAMES[seat]} plays .."
        message = self._expect(room, chooser, "plays", wanted, deadline, seat=seat)
        seconds[chooser % 2] += time.monotonic() - began
        cards[chooser % 2] += 1
        card = message["card"]
        if not state.legal_mask()[CARD_OFFSET + card]:
            room.seats[chooser].send(f"Illegal card: {message.text.strip()[:60]!r} (trick {trick})")
            raise BoardStopped(f"room {room.index + 1}: {SEAT_NAMES[chooser]} played an illegal card: "
                               f"{message.text.strip()[:60]!r} at trick {trick}", chooser, told=True)
        for other in range(4):
            if other == chooser:
                continue
            text = room.seats[other].read(deadline, P.ready_for_card(other, seat, trick, seat == dummy))
            try:
                ready = P.expect(text, "ready_for_card", seat=other, trick=trick)
                if ready["player"] not in (seat, "dummy" if seat == dummy else seat):
                    raise P.ProtocolError(text)
            except P.ProtocolError:
                self._refuse(room, other, P.ready_for_card(other, seat, trick, seat == dummy), text)
            room.seats[other].send(P.plays(seat, card))
        state = state.apply(CARD_OFFSET + card)
        if played == 0:  # the opening lead is faced: dummy is shown to the three others
            hand = [c for c in range(52) if state.deal.owner[c] == dummy]
            for other in range(4):
                if other != dummy:
                    self._expect(room, other, "ready_for_dummy", P.ready_for_dummy(other), deadline, seat=other)
                    room.seats[other].send(P.dummy_cards(hand))
        return state

    # ---------------------------------------------------------------- results
    def results(self) -> dict:
        """What the session played: every finished board of every room and, with two rooms, IMPs per board for room
        1's N/S team (95% CI, as `evaluate game`); ``failure`` says why it stopped early (None when it did not)."""
        boards = []
        for row in self.rows:
            tables = []
            for room in range(self.rooms):
                if (room, row) not in self.done:
                    break
                record = table_record(self.done[room, row], self.timing[room, row])
                record["declaring_pair"] = declaring_pair(record, room)
                tables.append(record)
            if len(tables) < self.rooms:
                continue
            deal = self.source.deal_at(row)
            item = {"row": row, "board": deal.board, "dealer": SEAT_NAMES[deal.dealer][0], "vul": deal.vul,
                    "par_ns": int(deal.par_ns), "tables": tables}
            if self.rooms == 2:
                item["imps"] = int(imps(tables[0]["score_ns"] - tables[1]["score_ns"]))
            boards.append(item)
        names = getattr(self, "names", {})
        out = {"data": self.dataset.source, "start": self.rows[0], "deals": len(self.rows), "rooms": self.rooms,
               "teams": {f"room {r + 1}": {"N/S": names[r][0], "E/W": names[r][1]} for r in sorted(names)},
               "boards_played": len(boards), "failure": self.failure}
        if self.rooms == 2 and boards:
            a, b = names.get(0, ("a", "b"))
            out["summary"] = summarize_game(boards, a, b)
        elif boards:  # one room: N/S's result against par (no second table to compare with)
            from bridgerl.core.stats import mean_ci

            a, b = names.get(0, ("a", "b"))
            mean, ci = mean_ci([imps(item["tables"][0]["score_ns"] - item["par_ns"]) for item in boards])
            out["summary"] = {"a": a, "b": b, "boards": len(boards), "vs_par_imps_per_board": mean, "ci95": ci,
                              "score_ns_per_board": float(np.mean([item["tables"][0]["score_ns"] for item in boards]))}
        out["board_results"] = boards
        return out
