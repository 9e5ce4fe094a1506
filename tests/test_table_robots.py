"""Issue #67: the field's own programs at our table. The manager seats each program as it connects, in any order; a
port probe takes no seat; a seat that never comes ends the session with one line; the Teams line is the one BEN's
client parses. Our seat, with ``--dialect openspiel``, plays full deals and uncontested auctions as the robot of
OpenSpiel's own Blue Chip wrappers (``open_spiel/python/bots/bluechip_bridge*.py``, run unchanged, as
``examples/bridge_wb5.py`` drives WBridge5)."""

from __future__ import annotations

import re
import socket
import threading
import time

import numpy as np
import pytest

from bridgerl.arena import protocol as P
from bridgerl.arena.seat_client import SeatClient, SeatError
from bridgerl.arena.table_manager import TableManager
from test_table import A, B, free_ports

BEN_TEAMS = re.compile(r'N/S : "([^"]+)" E/W : "([^"]+)"(?:.*?Playing (\w+))?')  # BEN's table_manager_client.py


@pytest.fixture(autouse=True)
def _repository_root(monkeypatch, request):
    monkeypatch.chdir(request.config.rootpath)  # models/card-player


def _line(sock: socket.socket, timeout: float = 10.0) -> str:
    sock.settimeout(timeout)
    data = b""
    while not data.endswith(b"\n"):
        chunk = sock.recv(1)
        if not chunk:
            raise EOFError("closed")
        data += chunk
    return data.decode().strip()


def test_bens_client_reads_the_teams_line():
    assert BEN_TEAMS.findall(P.teams("A team", "B team")) == [("A team", "B team", "")]
    assert P.parse(P.teams("A", "B")).fields == {"ns": "A", "ew": "B"}
    assert P.parse('Teams : N/S : "A". E/W : "B"').fields == {"ns": "A", "ew": "B"}  # the old form still reads


def test_a_lone_west_is_seated_at_once_and_a_seat_that_never_comes_ends_the_session(tmp_path):
    port = free_ports(4)
    manager = TableManager("test", tmp_path / "b.pbn", port, deals=1, board_seconds=3, log=tmp_path / "t.log")
    seated, results = [], {}

    def west():
        probe = socket.create_connection(("127.0.0.1", port))  # a port probe: connects and closes at once
        probe.close()
        with socket.create_connection(("127.0.0.1", port + 3)) as sock:
            sock.sendall(b'Connecting "x" as West using protocol version 18\r\n')
            began = time.monotonic()
            seated.append((_line(sock), time.monotonic() - began))
            sock.sendall(b"West ready for teams\r\n")
            try:
                while True:
                    _line(sock)
            except (EOFError, OSError):
                pass

    thread = threading.Thread(target=west, daemon=True)
    results.update(manager.serve(lambda: thread.start()))
    thread.join(10)
    assert seated[0][0] == 'West ("x") seated' and seated[0][1] < 2.0
    assert "North and East and South did not connect within --board-seconds 3" in results["failure"]
    assert results["boards_played"] == 0


def test_probes_take_no_seat_and_seats_may_come_in_any_order(tmp_path):
    port = free_ports(4)
    manager = TableManager("test", tmp_path / "b.pbn", port, deals=1, log=tmp_path / "t.log")
    errors = {}

    def start():
        def go():
            for seat in (0, 2):  # probes on North's and South's ports first
                socket.create_connection(("127.0.0.1", port + seat)).close()
            for seat in (3, 2, 1, 0):  # then West first, North last
                client = SeatClient("127.0.0.1", port + seat, seat, (A, B)[seat % 2], team="AB"[seat % 2], timeout=30)
                threading.Thread(target=lambda c=client, s=seat: _run(c, s, errors), daemon=True).start()
                time.sleep(0.3)
        threading.Thread(target=go, daemon=True).start()

    results = manager.serve(start)
    assert results["failure"] is None and not errors and results["boards_played"] == 1
    log = (tmp_path / "t.log").read_text()
    assert log.count("closed or stayed silent before its Connecting message") == 2


def _run(client, seat, errors):
    try:
        client.run()
    except SeatError as exc:
        errors[seat] = str(exc)


class _Controller:
    """The controller OpenSpiel's example gives its wrapper (``examples/bridge_wb5.py``'s ``_WBridge5Client``): a
    listening socket the robot connects to, lines read as it reads them; ``start`` launches the robot (here our seat,
    ``--dialect openspiel``, in a thread) and accepts its connection."""

    def __init__(self, spec: str, wire: list, seed: int = 0, connect: bool = True):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.port, self.spec, self.wire, self.seed = self.sock.getsockname()[1], spec, wire, seed
        self.conn, self.errors, self.clients = None, [], []
        if connect:  # the full-game wrapper takes a connected controller; the uncontested one calls start itself
            self.start()

    def start(self):
        if self.conn is not None:
            self.conn.close()  # the example kills the robot's process; our seat's thread sees the close
        client = SeatClient("127.0.0.1", self.port, None, self.spec, team="bridgerl", seed=self.seed, timeout=30,
                            dialect="openspiel")
        self.clients.append(client)
        threading.Thread(target=self._robot, args=(client,), daemon=True).start()
        self.sock.settimeout(30)
        self.conn, _ = self.sock.accept()

    def _robot(self, client):
        try:
            client.run()
        except SeatError as exc:
            self.errors.append(str(exc))

    def read_line(self):  # as the example: what one recv brings, whitespace squeezed
        line = ""
        while True:
            self.conn.settimeout(30)
            data = self.conn.recv(1024)
            if not data:
                raise EOFError("Connection closed")
            line += data.decode("ascii")
            if line.endswith("\n"):
                line = re.sub(r"\s+", " ", line).strip()
                self.wire.append(("robot", line))
                return line

    def send_line(self, line):
        self.wire.append(("wrapper", line))
        self.conn.send((line + "\r\n").encode("ascii"))

    def terminate(self):
        pass


def test_our_seat_plays_full_deals_as_openspiels_bluechip_robot():
    """OpenSpiel's `bluechip_bridge.BlueChipBridgeBot` for North and East, each driving our seat; South and West
    play OpenSpiel's first legal action (as `examples/bridge_wb5.py`): three whole deals to the end."""
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.bots import bluechip_bridge

    game = pyspiel.load_game("bridge(use_double_dummy_result=false)")
    wire, controllers = [], []

    def factory(seat_spec):
        def make():
            controllers.append(_Controller(seat_spec, wire))
            return controllers[-1]
        return make

    bots = [bluechip_bridge.BlueChipBridgeBot(game, 0, factory("bid=rules,play=models/card-player")),
            bluechip_bridge.BlueChipBridgeBot(game, 1, factory("bid=sayc,play=models/card-player"))]
    rng = np.random.default_rng(0)
    for _ in range(3):
        for bot in bots:
            bot.restart()
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choice(outcomes, p=probs))
            elif state.current_player() > 1:
                state.apply_action(state.legal_actions()[0])
            else:
                state.apply_action(bots[state.current_player()].step(state))
        for bot in bots:  # the end of the deal told (else the wrapper restarts its robot for the next one)
            bot.inform_state(state)
    for controller in controllers:
        controller.conn.close()
    time.sleep(0.5)
    assert len(controllers) == 2 and not any(c.errors for c in controllers), [c.errors for c in controllers]
    robot = [line for who, line in wire if who == "robot"]
    assert robot[0] == 'Connecting "bridgerl" as ANYPL using protocol version 18'
    assert any(re.fullmatch(r"(NORTH|EAST) plays [2-9tjqka][cdhs]", line) for line in robot)
    assert sum(c.clients[0].boards for c in controllers) == 6


def test_our_seat_bids_uncontested_auctions_for_openspiels_wrapper():
    """OpenSpiel's `bluechip_bridge_uncontested_bidding.BlueChipBridgeBot` for West and East (the wrapper restarts
    its robot for every deal): our seat bids each auction to its end."""
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.bots import bluechip_bridge_uncontested_bidding as wrapper

    game = pyspiel.load_game("bridge_uncontested_bidding", {"rng_seed": 3})
    wire = []
    controllers = [_Controller("bid=rules,play=models/card-player", wire, connect=False) for _ in range(2)]
    bots = [wrapper.BlueChipBridgeBot(game, player, controllers[player]) for player in range(2)]
    finished = 0
    for _ in range(3):
        state = game.new_initial_state()
        for bot in bots:
            bot.restart()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(state.chance_outcomes()[0][0])
            else:
                _, action = bots[state.current_player()].step(state)  # ((action, prob), action)
                assert action in state.legal_actions()
                state.apply_action(action)
        finished += state.is_terminal()
    assert finished == 3
    robot = [line for who, line in wire if who == "robot"]
    # the wrapper matched each line case-sensitively already (it raises on any other)
    assert all(re.match(r"(NORTH|EAST|SOUTH|WEST) |Connecting .* as ANYPL ", line) for line in robot), robot
    assert any(re.fullmatch(r"(WEST|EAST) (PASSES|bids [1-7](C|D|H|S|NT))", line) for line in robot)


TRANSCRIPTS = __import__("pathlib").Path(__file__).parent / "data" / "transcripts"


def _transcript(name: str) -> dict[str, list[tuple[str, str]]]:
    """{seat: [(direction, line)]} of a recorded wire transcript (``SEAT -> line`` / ``SEAT <- line``)."""
    seats: dict[str, list[tuple[str, str]]] = {}
    for text in (TRANSCRIPTS / name).read_text().splitlines():
        if text.startswith("#") or not text.strip():
            continue
        seat, direction, line = text.split(" ", 2)
        seats.setdefault(seat, []).append((direction, line))
    return seats


def _replay(sock: socket.socket, lines, ours: str, problems: list) -> None:
    """Play the recorded side of ``lines`` on ``sock``: send what it sent, and check that each line ``ours`` (the
    direction our program's lines carry) is, word for word, what was recorded."""
    buffer = b""
    for direction, line in lines:
        if direction == ours:
            while b"\n" not in buffer:
                sock.settimeout(60)
                chunk = sock.recv(4096)
                if not chunk:
                    problems.append(f"closed where {line!r} was recorded")
                    return
                buffer += chunk
            got, _, buffer = buffer.partition(b"\n")
            if got.decode().rstrip("\r") != line:
                problems.append(f"{got.decode().rstrip()!r} where {line!r} was recorded")
                return
        else:
            sock.sendall(line.encode() + b"\r\n")


def _replay_seats_at_our_manager(name: str, tmp_path) -> dict:
    """Replay each seat's recorded lines of transcript ``name`` at our manager (``--data test --start 0 --deals 2``,
    no ``--timing``, as recorded), one connection per seat; every line the manager sends must be the recorded one."""
    seats = _transcript(name)
    port = free_ports(4)
    manager = TableManager("test", tmp_path / "b.pbn", port, start=0, deals=2)
    manager.RESEND_SECONDS = 0.2  # the resend's wait, not its timing, is what the transcripts hold
    problems: list = []

    def client(seat, lines):
        with socket.create_connection(("127.0.0.1", port + ["North", "East", "South", "West"].index(seat))) as sock:
            _replay(sock, lines, "<-", problems)

    threads = [threading.Thread(target=client, args=item, daemon=True) for item in seats.items()]
    results = manager.serve(lambda: [t.start() for t in threads])
    for thread in threads:
        thread.join(30)
    assert not problems, problems
    assert results["failure"] is None and results["boards_played"] == 2
    return seats


def test_bridge_envs_clients_replayed_at_our_manager_line_for_line(tmp_path):
    """bridge_env's client in all four seats (recorded): our manager answers every line as recorded."""
    _replay_seats_at_our_manager("bridge_env_client.txt", tmp_path)


@pytest.mark.parametrize("name, ben", [("ben_client_south.txt", {"South"}),
                                       ("ben_client_east_west.txt", {"East", "West"}),
                                       ("ben_client_four_seats.txt", {"North", "East", "South", "West"})])
def test_bens_client_replayed_at_our_manager_line_for_line(name, ben, tmp_path):
    """BEN's table_manager_client.py (recorded, run unchanged; our own seats at the rest): our manager answers every
    line as recorded, the resend of board 2's Start of board to each BEN seat included (2 s at a real table)."""
    seats = _replay_seats_at_our_manager(name, tmp_path)
    for seat, lines in seats.items():
        connecting = lines[0][1]
        assert connecting.startswith('Connecting "BEN"' if seat in ben else 'Connecting "'), connecting
        starts = [line for direction, line in lines if direction == "<-" and line == "Start of board"]
        assert len(starts) == (3 if seat in ben else 2), (seat, starts)  # board 2's sent again to BEN only


@pytest.mark.parametrize("seat", ["North", "West"])
def test_our_seat_replayed_at_bridge_envs_server_line_for_line(seat):
    """bridge_env's server with our seats (recorded): our seat, same agent and seed, sends every line as recorded."""
    lines = _transcript("bridge_env_server.txt")[seat]
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    team = "NS" if seat in ("North", "South") else "EW"
    client = SeatClient("127.0.0.1", server.getsockname()[1], ["North", "East", "South", "West"].index(seat),
                        "bid=rules,play=models/card-player", team=team, timeout=30)
    result: dict = {}
    thread = threading.Thread(target=lambda: result.update(boards=client.run()), daemon=True)
    thread.start()
    server.settimeout(30)
    sock, _ = server.accept()
    problems: list = []
    with sock:
        _replay(sock, lines, "->", problems)
    thread.join(30)
    assert not problems, problems
    assert result.get("boards") == 2
