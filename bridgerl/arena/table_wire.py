"""The wire of our table manager (`bridgerl.arena.table_manager`): one seat's connection, lines in and out, a
room's seats and clock, and the exception that stops a board."""

from __future__ import annotations

import socket
import time
from dataclasses import dataclass, field
from typing import Callable

from bridgerl.core.cards import SEAT_NAMES

MAX_LINE = 1000  # bytes of one message, CR LF included; a longer line is malformed


class BoardStopped(RuntimeError):
    """A board ended before its end: its message names the room, board, seat and why; ``seat`` the seat at fault
    (None when none is) and ``told`` whether that seat already had its one line."""

    def __init__(self, message: str, seat: int | None = None, told: bool = False):
        super().__init__(message)
        self.seat, self.told = seat, told


class _Dropped(BoardStopped):
    pass


class Connection:
    """One seat's socket: lines in and out (CR LF on the wire), each logged; `read` waits until ``deadline``."""

    def __init__(self, sock: socket.socket, seat: int, room: int, log: Callable[[str], None]):
        self.sock, self.seat, self.room, self.log = sock, seat, room, log
        self.buffer = b""
        self.closed = False

    @property
    def name(self) -> str:
        return SEAT_NAMES[self.seat]

    def send(self, text: str) -> None:
        self.log(f"room {self.room + 1} {self.name} <- {text}")
        try:
            self.sock.sendall(text.encode("ascii", "replace") + b"\r\n")
        except OSError:
            pass  # a dropped seat is found when it is next read

    def read(self, deadline: float | None, waiting_for: str) -> str:
        while b"\n" not in self.buffer:
            if len(self.buffer) > MAX_LINE:
                self.buffer = b""
                return "<a line of more than 1000 bytes>"
            timeout = None if deadline is None else deadline - time.monotonic()
            if timeout is not None and timeout <= 0:
                raise BoardStopped(f"room {self.room + 1}: waited too long for {self.name} ({waiting_for!r})",
                                   self.seat)
            self.sock.settimeout(timeout)
            try:
                chunk = self.sock.recv(4096)
            except socket.timeout:
                continue
            except OSError:
                chunk = b""
            if not chunk:
                self.closed = True
                raise _Dropped(f"room {self.room + 1}: {self.name} dropped the connection (waiting for "
                               f"{waiting_for!r})", self.seat, told=True)
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        if len(line) > MAX_LINE:
            return "<a line of more than 1000 bytes>"
        text = line.rstrip(b"\r").decode("ascii", "replace")
        self.log(f"room {self.room + 1} {self.name} -> {text}")
        return text

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass


@dataclass
class Room:
    """One room: its four seats' connections, its team names and its board clock."""

    index: int
    seats: list[Connection] = field(default_factory=list)
    teams: tuple[str, str] = ("", "")
    total_seconds: list[float] = field(default_factory=lambda: [0.0, 0.0])
