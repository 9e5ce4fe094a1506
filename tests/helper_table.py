"""A seat and a one-seat table manager of the computer-bridge table protocol, version 18, written for the tests from
the protocol's document (the Blue Chip Bridge table manager protocol page) with raw sockets and regular expressions:
nothing of `bridgerl.arena` is used, so they check our manager and our seat client line by line against the
document's wording. Their play is the simplest legal one (every call a pass; the lowest card that follows suit)
with a trick-taking engine of their own; ``misbehave`` makes the seat break the protocol in one named way."""

from __future__ import annotations

import re
import socket
import threading
import time

SEATS = ["North", "East", "South", "West"]
RANKS = "23456789TJQKA"
SUITS = "CDHS"  # suit index as in the card's id: clubs 0 .. spades 3
STRAINS = ["C", "D", "H", "S", "NT"]
CALL = r"(?:passes|doubles|redoubles|bids [1-7](?:C|D|H|S|NT))(?: Alert\..*)?"
HAND = r"S ([2-9TJQKA ]+|-)\. H ([2-9TJQKA ]+|-)\. D ([2-9TJQKA ]+|-)\. C ([2-9TJQKA ]+|-)\."
TIMING = (r"Timing - N/S : this board  \[\d\d:\d\d\],  total  \[\d+:\d\d:\d\d\]\.  "
          r"E/W : this board  \[\d\d:\d\d\],  total  \[\d+:\d\d:\d\d\]\.")


def hand_of(match) -> list[tuple[int, int]]:
    """(suit, rank) of each card of a hand message's four groups (spades, hearts, diamonds, clubs)."""
    cards = []
    for suit, group in zip((3, 2, 1, 0), match.groups()[-4:]):
        if group != "-":
            cards += [(suit, RANKS.index(r)) for r in group.split()]
    return cards


def hand_text(cards) -> str:
    parts = []
    for suit in (3, 2, 1, 0):
        ranks = sorted((r for s, r in cards if s == suit), reverse=True)
        parts.append(f"{SUITS[suit]} {' '.join(RANKS[r] for r in ranks) if ranks else '-'}.")
    return " ".join(parts)


def lowest_legal(hand, led: int | None) -> tuple[int, int]:
    follow = [c for c in hand if c[0] == led]
    return min(follow or hand, key=lambda c: (c[1], c[0]))


def winner(trick: list[tuple[int, tuple[int, int]]], trump: int | None) -> int:
    """The seat that wins ``trick`` ((seat, (suit, rank)) in play order)."""
    led = trick[0][1][0]
    best = trick[0]
    for seat, card in trick[1:]:
        b = best[1]
        if (card[0] == b[0] and card[1] > b[1]) or (trump is not None and card[0] == trump and b[0] != trump):
            best = (seat, card)
        elif b[0] != led and b[0] != trump and card[0] == led:
            best = (seat, card)
    return best[0]


class Auction:
    """The auction as the document's rules run it: who calls next, when it ends, the contract and declarer."""

    def __init__(self, dealer: int):
        self.turn, self.calls, self.bid, self.first = dealer, [], None, {}

    def add(self, seat: int, call: str) -> None:
        self.calls.append(call)
        match = re.match(r"bids ([1-7])(C|D|H|S|NT)", call)
        if match:
            strain = STRAINS.index(match.group(2))
            self.bid = (int(match.group(1)), strain, seat)
            self.first.setdefault((seat % 2, strain), seat)
        self.turn = (seat + 1) % 4

    @property
    def over(self) -> bool:
        passes = 0
        for call in reversed(self.calls):
            if not call.startswith("passes"):
                break
            passes += 1
        return (self.bid is None and passes == 4) or (self.bid is not None and passes == 3)

    @property
    def declarer(self) -> int | None:
        return None if self.bid is None else self.first[self.bid[2] % 2, self.bid[1]]


class Wire:
    """Lines over one socket (CR LF), each received line kept in ``received``."""

    def __init__(self, sock: socket.socket):
        self.sock, self.buffer, self.received, self.sent = sock, b"", [], []
        self.sock.settimeout(60)

    def send(self, text: str) -> None:
        self.sent.append(text)
        self.sock.sendall(text.encode() + b"\r\n")

    def recv(self) -> str:
        while b"\n" not in self.buffer:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise EOFError("closed")
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        text = line.rstrip(b"\r").decode()
        self.received.append(text)
        return text

    def expect(self, pattern: str):
        text = self.recv()
        match = re.fullmatch(pattern, text)
        if match is None:
            raise AssertionError(f"got {text!r}, expected the document's {pattern!r}")
        return match


class RawSeat(threading.Thread):
    """One seat at a table manager, from the document. ``misbehave``: None, or one of "malformed" (a line that is
    no message, first thing), "wrong_seat" (connects as another seat), "out_of_turn" (its first call names another
    seat), "illegal_call" (redoubles as its first call), "illegal_card" (a card it does not hold), "dropped" (closes
    the connection at its first call), "stalled" (never makes its first call), "version" (says protocol version 17),
    "bad_team" (with a team name holding a backslash: give ``team``), "long_line" (a call of 5,000 bytes);
    ``on_board``: the board it does it on (an earlier board is played well)."""

    def __init__(self, port: int, seat: int, team: str = "raw", misbehave: str | None = None, on_board: int = 1,
                 anypl: bool = False, full_stops: bool = False, timing: bool = True):
        super().__init__(daemon=True)
        self.port, self.seat, self.team, self.misbehave, self.on_board = port, seat, team, misbehave, on_board
        self.anypl, self.full_stops = anypl, full_stops  # "as ANYPL" (WBridge5); a full stop after each message (BEN)
        self.timing = timing  # the manager sends the Timing line after each board (`table serve --timing`)
        self.error: BaseException | None = None
        self.boards = 0
        self.wire: Wire | None = None
        self.after: list[str] = []  # the lines the manager sent after the misbehaviour, up to the end

    def _drain(self) -> bool:
        """Keep every line the manager sends from now until it closes the connection; the board is over."""
        try:
            while True:
                self.after.append(self.wire.recv())
        except (EOFError, OSError):
            pass
        return False

    def run(self) -> None:
        try:
            self.session()
        except BaseException as exc:  # noqa: BLE001 (reported to the test)
            self.error = exc

    def _bad(self, what: str) -> bool:
        return self.misbehave == what and self.boards + 1 == self.on_board

    def session(self) -> None:
        me = SEATS[self.seat]
        for _ in range(100):
            try:
                sock = socket.create_connection(("127.0.0.1", self.port))
                break
            except OSError:
                time.sleep(0.05)
        self.wire = w = Wire(sock)
        if self.full_stops:
            send = w.send
            w.send = lambda text: send(text + ".")
        if self._bad("malformed"):
            w.send("Hello, table manager")
            self._drain()
            return
        as_seat = SEATS[(self.seat + 1) % 4] if self._bad("wrong_seat") else "ANYPL" if self.anypl else me
        version = 17 if self._bad("version") else 18
        w.send(f'Connecting "{self.team}" as {as_seat} using protocol version {version}')
        if self._bad("wrong_seat") or self._bad("version") or self._bad("bad_team"):
            self._drain()
            return
        w.expect(rf'{me} \("{self.team}"\) seated')
        w.send(f"{me} ready for teams")
        w.expect(r'Teams : N/S : "[^"]*"\.? E/W : "[^"]*"')  # the document's full stop, or none (as BEN reads)
        w.send(f"{me} ready to start")
        while True:
            text = w.recv()
            if text == "End of session":
                return
            assert text == "Start of board", text
            if not self.board():
                return
            self.boards += 1

    def board(self) -> bool:
        w, me, name = self.wire, self.seat, SEATS[self.seat]
        w.send(f"{name} ready for deal")
        info = w.expect(r"Board number (\d+)\. Dealer (North|East|South|West)\. (Neither|N/S|E/W|Both) vulnerable\.")
        w.send(f"{name} ready for cards")
        hand = hand_of(w.expect(rf"{name}'s cards : {HAND}"))
        auction = Auction(SEATS.index(info.group(2)))
        while not auction.over:
            caller = auction.turn
            if caller == me:
                if self._bad("dropped"):
                    w.sock.close()
                    return False
                if self._bad("stalled"):
                    return self._drain()  # the manager's line when it gives up
                call = "passes"
                if self._bad("out_of_turn"):
                    w.send(f"{SEATS[(me + 1) % 4]} passes")
                    return self._drain()
                if self._bad("illegal_call"):
                    w.send(f"{name} redoubles")
                    return self._drain()
                if self._bad("long_line"):
                    w.send(f"{name} passes" + " " * 5000)
                    return self._drain()
                w.send(f"{name} {call}")
            else:
                w.send(f"{name} ready for {SEATS[caller]}'s bid")
                call = w.expect(rf"{SEATS[caller]} ({CALL})").group(1)
            auction.add(caller, call)
        if auction.bid is not None:
            if not self.play(hand, auction):
                return False
        if self.timing:
            w.expect(TIMING)
        return True

    def play(self, hand, auction) -> bool:
        w, me, name = self.wire, self.seat, SEATS[self.seat]
        declarer = auction.declarer
        dummy = (declarer + 2) % 4
        trump = None if auction.bid[1] == 4 else auction.bid[1]
        hands = {me: list(hand)}
        leader = (declarer + 1) % 4
        for trick_number in range(1, 14):
            trick = []
            for k in range(4):
                seat = (leader + k) % 4
                chooser = declarer if seat == dummy else seat
                if chooser == me:
                    if k == 0:
                        w.expect(rf"{'Dummy' if seat == dummy else SEATS[seat]} to lead")
                    card = lowest_legal(hands[seat], trick[0][1][0] if trick else None)
                    if self._bad("illegal_card"):
                        card = next((s, r) for s in range(4) for r in range(13)
                                    if (s, r) not in hands[seat])
                        w.send(f"{SEATS[seat]} plays {RANKS[card[1]]}{SUITS[card[0]]}")
                        return self._drain()
                    w.send(f"{SEATS[seat]} plays {RANKS[card[1]]}{SUITS[card[0]]}")
                    hands[seat].remove(card)
                else:
                    who = "dummy" if seat == dummy else SEATS[seat]
                    w.send(f"{name} ready for {who}'s card to trick {trick_number}")
                    match = w.expect(rf"{SEATS[seat]} plays ([2-9TJQKA])([CDHS])")
                    card = (SUITS.index(match.group(2)), RANKS.index(match.group(1)))
                    if seat in hands:
                        hands[seat].remove(card)
                trick.append((seat, card))
                if trick_number == 1 and k == 0 and me != dummy:
                    w.send(f"{name} ready for dummy")
                    hands[dummy] = hand_of(w.expect(rf"Dummy's cards : {HAND}"))
            leader = winner(trick, trump)
        return True


class RawManager(threading.Thread):
    """A table manager for one seat (``seat``, played by the program under test) on ``port``: the three other seats
    are its own (every call a pass, the lowest card that follows suit). It deals ``owner`` (card id -> seat, card id
    = suit * 13 + rank) as board ``board`` and checks each line the seat sends against the document's wording."""

    def __init__(self, port: int, seat: int, owner, board: int, dealer: int, vul: str = "Neither"):
        super().__init__(daemon=True)
        self.port, self.seat, self.owner, self.board, self.dealer, self.vul = port, seat, owner, board, dealer, vul
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", port))
        self.listener.listen(1)
        self.error: BaseException | None = None
        self.result: dict = {}
        self.wire: Wire | None = None

    def run(self) -> None:
        try:
            self.session()
        except BaseException as exc:  # noqa: BLE001
            self.error = exc
        finally:
            self.listener.close()

    def session(self) -> None:
        me, name = self.seat, SEATS[self.seat]
        self.listener.settimeout(60)
        sock, _ = self.listener.accept()
        self.wire = w = Wire(sock)
        team = w.expect(rf'Connecting "([^"]*)" as {name} using protocol version 18').group(1)
        w.send(f'{name} ("{team}") seated')
        w.expect(f"{name} ready for teams")
        w.send('Teams : N/S : "ns team". E/W : "ew team"')
        w.expect(f"{name} ready to start")
        w.send("Start of board")
        w.expect(f"{name} ready for deal")
        w.send(f"Board number {self.board}. Dealer {SEATS[self.dealer]}. {self.vul} vulnerable.")
        w.expect(f"{name} ready for cards")
        hands = {s: [(c // 13, c % 13) for c in range(52) if self.owner[c] == s] for s in range(4)}
        w.send(f"{name}'s cards : {hand_text(hands[me])}")
        auction = Auction(self.dealer)
        while not auction.over:
            caller = auction.turn
            if caller == me:
                call = w.expect(rf"{name} ({CALL})").group(1)
            else:
                w.expect(rf"{name} ready for {SEATS[caller]}'s bid")
                call = "passes"
                w.send(f"{SEATS[caller]} {call}")
            auction.add(caller, call)
        self.result["auction"] = list(auction.calls)
        if auction.bid is not None:
            self.play(hands, auction)
        w.send("Timing - N/S : this board  [00:01],  total  [0:00:01].  E/W : this board  [00:01],  total  "
               "[0:00:01].")
        w.send("End of session")

    def play(self, hands, auction) -> None:
        w, me, name = self.wire, self.seat, SEATS[self.seat]
        declarer = auction.declarer
        dummy = (declarer + 2) % 4
        trump = None if auction.bid[1] == 4 else auction.bid[1]
        leader, tricks = (declarer + 1) % 4, 0
        for trick_number in range(1, 14):
            trick = []
            for k in range(4):
                seat = (leader + k) % 4
                chooser = declarer if seat == dummy else seat
                led = trick[0][1][0] if trick else None
                if chooser == me:
                    if k == 0:
                        w.send(f"{'Dummy' if seat == dummy else SEATS[seat]} to lead")
                    match = w.expect(rf"{SEATS[seat]} plays ([2-9TJQKA])([CDHS])")
                    card = (SUITS.index(match.group(2)), RANKS.index(match.group(1)))
                    assert card in hands[seat], f"{SEATS[seat]} does not hold {match.group(0)}"
                    assert led is None or card[0] == led or not any(c[0] == led for c in hands[seat]), "revoke"
                else:
                    who = "dummy" if seat == dummy else SEATS[seat]
                    w.expect(rf"{name} ready for {who}'s card to trick {trick_number}")
                    card = lowest_legal(hands[seat], led)
                    w.send(f"{SEATS[seat]} plays {RANKS[card[1]]}{SUITS[card[0]]}")
                hands[seat].remove(card)
                trick.append((seat, card))
                if trick_number == 1 and k == 0 and me != dummy:
                    w.expect(f"{name} ready for dummy")
                    w.send(f"Dummy's cards : {hand_text(hands[dummy])}")
            leader = winner(trick, trump)
            tricks += leader % 2 == declarer % 2
        self.result.update(declarer=declarer, tricks=tricks)
