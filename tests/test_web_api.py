"""`bridgerl serve`'s JSON API through FastAPI's test client: every endpoint, and bad input answered with a 4xx and a
one-line message while the server keeps serving."""

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("fastapi", reason="the web extra is not installed: pip install -e '.[web]' (it is in dev)")
pytest.importorskip("httpx2", reason="FastAPI's test client needs httpx2 (in the dev extra)")


from bridgerl.core import load_dataset  # noqa: E402
from bridgerl.core.bridge import BridgeState  # noqa: E402
from bridgerl.core.calls import parse_call  # noqa: E402
from bridgerl.core.cards import owner_to_pbn  # noqa: E402
from bridgerl.core.competitive import CompetitiveDealSource  # noqa: E402
from bridgerl.core.dd import solve_dd_table  # noqa: E402
from bridgerl.core.par import par_contracts  # noqa: E402
from bridgerl.web.app import Server, check_request_spec  # noqa: E402
from helper_web import FAST, _declare, _one_line  # noqa: E402 (the fixtures server, client: conftest.py)

def test_the_page_and_its_files(client):
    page = client.get("/")
    assert page.status_code == 200 and "bridgerl" in page.text and "/static/app.js" in page.text
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/static/style.css").status_code == 200
    config = client.get("/api/config").json()
    assert config == {"data": "test", "boards": 5000, "posted": 0, "ns": FAST, "ew": FAST, "explain_data": "valid",
                      "explain_deals": 150}


def test_a_board(client):
    body = client.get("/api/boards/7").json()
    deal = CompetitiveDealSource(load_dataset("test")).deal_at(7)
    assert set(body) == {"index", "board", "dealer", "vulnerability", "deal", "dd", "par", "record"}
    assert body["index"] == 7 and body["board"] == deal.board
    assert body["dealer"] == "NESW"[deal.dealer] and body["vulnerability"] == deal.vul
    assert body["deal"] == owner_to_pbn(deal.owner) and body["deal"].startswith("N:")
    # the DD table in docs/conventions.md's order: declarer N, E, S, W x strain C, D, H, S, NT, solved afresh
    assert np.array(body["dd"]).shape == (4, 5) and np.array_equal(np.array(body["dd"]), solve_dd_table(deal.owner))
    assert body["par"] == {"score_ns": deal.par_ns, "contracts": par_contracts(deal.dd, deal.vul, deal.dealer)}


def test_the_auction_with_explanations(client, server):
    body = client.get("/api/boards/3/auction", params={"ns": "sayc", "ew": "rules"}).json()
    calls = body["calls"]
    deal = server.source.deal_at(3)
    state = BridgeState.start(deal)
    for call in calls:
        assert set(call) == {"seat", "call", "action", "explanation"}
        assert call["seat"] == "NESW"[state.auction.to_act] and parse_call(call["call"]) == call["action"]
        state = state.apply(call["action"])
        explanation = call["explanation"]
        shows = explanation["shows"]
        assert shows["deals"] == 150 and 0 <= shows["hands"] <= shows["reached"] <= 150
        here = {item["call"]: item["share"] for item in shows["calls_here"]}
        if shows["reached"]:
            assert 0 < sum(here.values()) <= 1 + 1e-6 and list(here.values()) == sorted(here.values(), reverse=True)
            if shows["hands"] and call["call"] in here:  # the six most frequent calls
                assert abs(here[call["call"]] - shows["share"]) < 1e-3  # the call's own share among them
        if shows["hands"]:
            assert 0 <= shows["hcp"]["min"] <= shows["hcp"]["mean"] <= shows["hcp"]["max"] <= 37
            assert set(shows["lengths"]) == {"S", "H", "D", "C"}
    assert state.auction.is_over
    # the opening call is made by some of the held-out hands that reach the first turn
    assert calls[0]["explanation"]["shows"]["hands"] >= 1
    # sayc explains by its rule, rules bidders report no values
    seats = {c["seat"]: c["explanation"]["considered"]["kind"] for c in calls}
    assert seats["N"] == "rule" and seats["E"] == "none"


def test_explanations_are_measured_from_the_agent(server):
    """The opening 1NT of `sayc` shows 15-17 balanced: what the replay finds on held-out hands."""
    state = BridgeState.start(server.source.deal_at(0, dealer=0, vul="none"))  # North, a sayc seat, deals
    pair = server.pair("sayc", 0, request=False)
    shows = server.explainer.explain("sayc", pair.bidder, state, parse_call("1NT"))["shows"]
    assert shows["reached"] == 150 and 0 < shows["hands"] < 30  # about 4% of hands open 1NT
    assert 15 <= shows["hcp"]["min"] and shows["hcp"]["max"] <= 17
    for suit in "SHDC":
        assert 2 <= shows["lengths"][suit]["min"] and shows["lengths"][suit]["max"] <= 5
    pass_shows = server.explainer.explain("sayc", pair.bidder, state, parse_call("Pass"))["shows"]
    assert pass_shows["hcp"]["max"] <= 12 and pass_shows["hands"] > shows["hands"]


def test_the_whole_table(client, server):
    body = client.get("/api/boards/5/play").json()
    assert body["ns"] == FAST and body["ew"] == FAST
    state = BridgeState.start(server.source.deal_at(5))
    for action in [c["action"] for c in body["auction"]] + [c["action"] for c in body["play"]]:
        state = state.apply(action)
    assert state.is_over
    result = state.result()
    assert body["result"]["score_ns"] == result.score_ns and body["result"]["par_ns"] == state.deal.par_ns
    assert body["result"]["contract"] == "3NT" and len(body["play"]) == 52  # a board that is played
    decided = [c["explanation"] for c in body["play"] if c["explanation"]["kind"] == "worlds"]
    assert decided, "PIMC explains its choices"
    for explanation in decided:
        assert explanation["value"] == "mean tricks"
        assert 1 <= explanation["distinct"] <= explanation["worlds"] <= 4  # fewer when few layouts remain
        values = [candidate["value"] for candidate in explanation["candidates"]]
        assert values == sorted(values, reverse=True)
        for candidate in explanation["candidates"]:
            assert 0 <= candidate["best_share"] <= 1 and 0 <= candidate["tricks"] <= 13
            assert candidate["value"] == candidate["tricks"]  # objective tricks: the card's value is its mean
    # the card chosen is among those of the best value
    for card in body["play"]:
        if card["explanation"]["kind"] == "worlds":
            best = card["explanation"]["candidates"][0]["value"]
            chosen = {c["card"]: c["value"] for c in card["explanation"]["candidates"]}
            assert card["card"] in chosen and chosen[card["card"]] >= best - 0.011


def test_alphamu_explains_its_search(client):
    body = client.get("/api/boards/5/play", params={"ns": "bid=rules,play=alphamu:worlds=3,max_moves=2",
                                                     "ew": "bid=rules,play=alphamu:worlds=3,max_moves=2"}).json()
    searched = [c["explanation"] for c in body["play"] if c["explanation"]["kind"] == "alphamu"]
    assert body["play"] and searched
    for explanation in searched:
        assert 1 <= explanation["distinct"] <= explanation["worlds"] <= 3
        for candidate in explanation["candidates"]:
            assert 0 <= candidate["make"] <= 1 and 0 <= candidate["pimc_make"] <= 1


def test_bad_input_is_a_one_line_4xx_and_the_server_keeps_serving(client):
    assert "no board 5000" in _one_line(client.get("/api/boards/5000"), 404)
    assert "no board -1" in _one_line(client.get("/api/boards/-1"), 404)
    assert "index" in _one_line(client.get("/api/boards/abc"), 422)
    assert "no board" in _one_line(client.get("/api/boards/99999/auction"), 404)
    detail = _one_line(client.get("/api/boards/1/auction", params={"ns": "os:system"}), 400)
    assert "not a built-in agent" in detail
    for spec in ("dqn:/etc/passwd", "models/x:attr", "bid=rules,play=pimc:model=../x.msgpack"):
        assert "models under models/ only" in _one_line(client.get("/api/boards/1/play", params={"ew": spec}), 400)
    assert "no model at" in _one_line(client.get("/api/boards/1/auction", params={"ns": "dqn:models/none"}), 400)
    detail = _one_line(client.get("/api/boards/1/play", params={"ns": "bid=rules,play=pimc:worlds=100000"}), 400)
    assert "worlds <= 500" in detail
    detail = _one_line(client.get("/api/boards/1/auction", params={"ns": "bid=rules,play=pimc:worlds=-3"}), 400)
    assert "does not load" in detail
    # a malformed PBN deal
    assert "PBN" in _one_line(client.post("/api/boards", json={"deal": "N:AKQ.xxx"}), 422)
    assert "dealer" in _one_line(client.post("/api/boards", json={"deal": "N:AKQ.xxx", "dealer": "X"}), 422)
    assert "deal" in _one_line(client.post("/api/boards", json={}), 422)
    # calls and cards
    table = client.post("/api/tables", json={"index": 2, "seats": "NS"}).json()
    tid = table["id"]
    assert table["phase"] == "auction" and table["your_turn"]
    assert "illegal call XX" in _one_line(client.post(f"/api/tables/{tid}/call", json={"call": "XX"}), 422)
    assert "8S" in _one_line(client.post(f"/api/tables/{tid}/call", json={"call": "8S"}), 422)
    assert "call" in _one_line(client.post(f"/api/tables/{tid}/call", json={}), 422)
    assert "auction is not over" in _one_line(client.post(f"/api/tables/{tid}/card", json={"card": "SA"}), 409)
    table = _declare(client, 11, "NS")
    tid, seat = table["id"], table["seat_to_play"]
    hand = table["hands"][seat]
    held = {suit + rank for suit, ranks in zip("SHDC", hand) for rank in ranks}
    elsewhere = next(suit + rank for suit in "SHDC" for rank in "AKQJT98765432" if suit + rank not in held)
    detail = _one_line(client.post(f"/api/tables/{tid}/card", json={"card": elsewhere}), 422)
    assert f"{elsewhere} is not in {seat}'s hand" in detail
    led = next(entry["name"][0] for entry in table["log"] if entry["action"] >= 38)
    revoke = next((card for card in held if card[0] != led), None) if any(c[0] == led for c in held) else None
    if revoke is not None:  # holding the suit led, another suit is a revoke
        detail = _one_line(client.post(f"/api/tables/{tid}/card", json={"card": revoke}), 422)
        assert f"{revoke}: {seat} must follow suit" in detail
    assert "not a card" in _one_line(client.post(f"/api/tables/{tid}/card", json={"card": "Z9"}), 422)
    assert "auction is over" in _one_line(client.post(f"/api/tables/{tid}/call", json={"call": "Pass"}), 409)
    assert "seats" in _one_line(client.post("/api/tables", json={"index": 2, "seats": "NE"}), 422)
    assert "no table 999" in _one_line(client.get("/api/tables/999"), 404)
    assert client.get("/api/boards/1").status_code == 200  # still serving


def test_a_board_of_ones_own_from_pbn(client, server):
    pbn = owner_to_pbn(load_dataset("valid").owner[0])
    body = client.post("/api/boards", json={"deal": pbn, "dealer": "E", "vulnerability": "EW"}).json()
    assert body["index"] >= 5000 and body["deal"] == pbn and body["dealer"] == "E"
    assert body["vulnerability"] == "EW"
    assert np.array_equal(np.array(body["dd"]), load_dataset("valid").dd[0])
    assert client.get(f"/api/boards/{body['index']}").json() == body
    numbered = client.post("/api/boards", json={"deal": pbn, "board": 7}).json()
    assert (numbered["board"], numbered["dealer"], numbered["vulnerability"]) == (7, "S", "both")
    assert client.get(f"/api/boards/{body['index']}/auction").json()["calls"]


def test_request_specs(tmp_path):
    models = Path("models")
    for spec in ("rules", "sayc", "pass", "random", "bid=sayc,play=dd", "play=alphamu:worlds=5",
                 "dqn:models/competitive-dqn", "models/competitive-ppo", "bid=rules,play=pimc:worlds=10,auction=rules",
                 "bid=rules,play=models/card-player", "play=cardnet:model=models/card-player"):
        assert check_request_spec(spec, models) == spec
    for spec in ("tests.helper_agents:Agent", "bid=rules,play=my.module:Player", "dqn:models/../runs/x",
                 "bid=rules,play=issn:model=/tmp/x", "bid=rules,play=models/../runs/x"):
        with pytest.raises(ValueError):
            check_request_spec(spec, models)


def test_serve_refuses_a_port_in_use_in_one_line(capsys):
    import socket

    from bridgerl.cli import main

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"bridgerl: error: cannot serve on 127.0.0.1 port {port}") and "\n" not in err


def test_a_superseded_board_request_computes_nothing(client, server):
    """A client's request older than its newest is answered 409 before anything is computed (a quick flip through
    boards computes only the board it stops on); `/api/status` lists what was computed."""
    before = len(server.computed)
    server.note_request("flipper", 4)
    detail = _one_line(client.get("/api/boards/30/play", params={"client": "flipper", "seq": 2}), 409)
    assert "superseded" in detail
    assert client.get("/api/status").json()["computed"][before:] == []
    played = client.get("/api/boards/31/play", params={"client": "flipper", "seq": 4}).json()
    assert played["result"]["text"]
    computed = client.get("/api/status").json()["computed"][before:]
    assert {entry["index"] for entry in computed} == {31}


def test_a_bidder_alone_is_played_by_the_released_card_player(tmp_path):
    server = Server(data="test", ns="rules", ew="bid=sayc", explain_deals=20)
    assert server.ns == "bid=rules,play=models/card-player" and server.ew == "bid=sayc,play=models/card-player"
    assert Server(data="test", ns="rules", explain_deals=20, models=tmp_path).ns == "bid=rules,play=pimc:worlds=20"


def test_a_lin_board_of_ones_own(client, server):
    lin = ("pn|Sam,Wendy,Nora,Ed|st||md|3SJ984HKQ8DQ52CAJ7,SAQ7532HT7D6CKT83,S6HA96432DAT93CQ6,SKTHJ5DKJ874C9542|"
           "rh||ah|Board 9|sv|e|mb|p|mb|p|mb|p|mb|p|pg||")
    added = client.post("/api/boards", json={"deal": lin}).json()
    assert added["index"] >= len(server.dataset) and added["board"] == 9 and added["dealer"] == "N"
    assert added["vulnerability"] == "EW" and added["deal"].startswith("N:6.A96432.AT93.Q6 ")
    assert "malformed md tag" in _one_line(client.post("/api/boards", json={"deal": "md|3SZ|"}), 422)


def test_a_pasted_record_replays_its_own_auction_and_play(client, server):
    lin = ("pn|Sam,Wendy,Nora,Ed|st||md|3SJ984HKQ8DQ52CAJ7,SAQ7532HT7D6CKT83,S6HA96432DAT93CQ6,SKTHJ5DKJ874C9542|"
           "rh||ah|Board 9|sv|e|mb|1N|mb|p|mb|3N|mb|p|mb|p|mb|p|pc|DK|pc|D2|pc|D6|pc|DA|mc|9|pg||")
    added = client.post("/api/boards", json={"deal": lin}).json()
    assert added["record"] and client.get("/api/config").json()["posted"] >= 1
    record = client.get(f"/api/boards/{added['index']}/record").json()
    assert [c["call"] for c in record["auction"]] == ["1NT", "Pass", "3NT", "Pass", "Pass", "Pass"]
    assert [c["card"] for c in record["play"]] == ["DK", "D2", "D6", "DA"] and record["trick_winners"] == ["N"]
    assert record["result"]["tricks"] == 9 and record["result"]["text"] == "3NT N ="
    assert record["contract"] == {"contract": "3NT", "declarer": "N"}
    stops = lin.replace("mc|9|", "")  # a record that stops after the first trick: no result, the contract known
    stopped = client.get(f"/api/boards/{client.post('/api/boards', json={'deal': stops}).json()['index']}/record")
    assert stopped.json()["result"] is None and stopped.json()["contract"] == {"contract": "3NT", "declarer": "N"}
    assert "no record" in _one_line(client.get("/api/boards/3/record"), 404)
    bad = lin.replace("pc|D2|", "pc|S9|")  # dummy (South) must follow to the diamond lead
    assert "revoke at trick 1" in _one_line(client.post("/api/boards", json={"deal": bad}), 422)
    from bridgerl.core.records import parse_lin_records, records_to_pbn

    pbn = client.post("/api/boards", json={"deal": records_to_pbn(parse_lin_records(lin))}).json()  # the same, PBN
    assert pbn["record"] and client.get(f"/api/boards/{pbn['index']}/record").json() == record


def test_serve_restarts_on_its_port_at_once(tmp_path):
    """`bridgerl serve` stopped by Ctrl-C while a browser's connection is open: it exits within 2 s (idle, it takes
    well under one; it once took seconds in the interpreter's exit); then started again on the same port: the second
    binds at once (SO_REUSEADDR) and serves."""
    import http.client
    import signal
    import socket
    import subprocess
    import sys
    import time

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "bridgerl.cli", "serve", "--port", str(port), "--explain-deals", "5"]

    def start():
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
        line = process.stdout.readline()
        assert f":{port}/" in line, (line, process.stderr.read() if process.poll() is not None else "")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # uvicorn answers shortly after the line
            try:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                connection.request("GET", "/api/config")
                assert connection.getresponse().read()
                return process, connection  # kept open, as a browser keeps its connection
            except ConnectionRefusedError:
                time.sleep(0.1)
        raise AssertionError("the server did not answer")

    first, connection = start()
    interrupted = time.monotonic()
    first.send_signal(signal.SIGINT)  # Ctrl-C: the server closes the open connection (its side in TIME_WAIT)
    assert first.wait(30) in (0, 130)  # 130: stopped by Ctrl-C
    assert time.monotonic() - interrupted < 2, f"Ctrl-C took {time.monotonic() - interrupted:.1f} s"
    second, again = start()  # bound and answering
    try:
        assert second.poll() is None
    finally:
        second.send_signal(signal.SIGINT)
        second.wait(30)
        connection.close()
        again.close()


def test_ctrl_c_stops_the_agents_computing(client, server):
    """Ctrl-C (SIGINT, here raised in the test's own main thread) sets the server's ``stopping`` before the handler
    it found runs (uvicorn's, under `bridgerl serve`); a stopping server computes no more of an agents' board (503,
    one line, nothing cached) and a table's agents make no more moves, so that the shutdown does not wait for them;
    the handlers are put back afterwards."""
    import signal
    import threading

    from bridgerl.web.app import _stop_on_signals

    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers are set in the main thread only")
    caught = []

    def uvicorns(sig, frame):  # in the place of uvicorn's handler
        caught.append(sig)

    before = signal.signal(signal.SIGINT, uvicorns)
    try:
        restore = _stop_on_signals(server)
        signal.raise_signal(signal.SIGINT)
        assert caught == [signal.SIGINT] and server.stopping.is_set()
        restore()
        assert signal.getsignal(signal.SIGINT) is uvicorns
        assert "the server is stopping" in _one_line(client.get("/api/boards/44/play"), 503)
        assert not any(key[0] == 44 for key in server._plays)
        dealer = client.get("/api/boards/45").json()["dealer"]
        seat = "NESW"["NESW".index(dealer) - 1]  # the seat before the dealer: the agents call first
        table = client.post("/api/tables", json={"index": 45, "seats": seat}).json()  # waits for the agents
        assert table["log"] == [] and table["to_act"] == dealer and not table["thinking"]
    finally:
        server.stopping.clear()
        signal.signal(signal.SIGINT, before)


def test_progress_tells_how_far_the_agents_board_is(client, server):
    """While the agents' board is computed, ``/api/progress`` (no lock) says its board, calls and cards so far."""
    import threading
    import time

    seen = []
    worker = threading.Thread(target=server.play, args=(33, None, None))
    worker.start()
    while worker.is_alive():
        progress = client.get("/api/progress").json()
        if progress:
            seen.append(progress)
        time.sleep(0.01)
    worker.join()
    assert seen and all(p["index"] == 33 and p["ns"] == server.ns for p in seen)
    assert max(p["cards"] for p in seen) > 0 and client.get("/api/progress").json() == {}


def test_a_pasted_pbn_record_that_breaks_the_rules_is_refused_not_dropped(client):
    from bridgerl.core.records import parse_lin_records, records_to_pbn

    lin = ("pn|Sam,Wendy,Nora,Ed|st||md|3SJ984HKQ8DQ52CAJ7,SAQ7532HT7D6CKT83,S6HA96432DAT93CQ6,SKTHJ5DKJ874C9542|"
           "rh||ah|Board 9|sv|e|mb|1N|mb|p|mb|3N|mb|p|mb|p|mb|p|pc|DK|pc|D2|pc|D6|pc|DA|mc|9|pg||")
    pbn = records_to_pbn(parse_lin_records(lin)).replace("DK D2 D6 DA", "DK S9 D6 DA")  # dummy revokes
    detail = _one_line(client.post("/api/boards", json={"deal": pbn}), 422)
    assert "revoke" in detail or "follow" in detail


def test_bens_network_from_a_folder_under_models(tmp_path, monkeypatch):
    """`ben:DIR` on the page: a folder under models/ (here a stand-in of BEN's signature) bids; any other path, or
    an option other than system=N, is refused in one line."""
    from helper_ben import write_causal_onnx
    from helper_web import make_client

    write_causal_onnx(tmp_path / "models" / "ben")
    monkeypatch.chdir(tmp_path)
    models = Path("models")
    assert check_request_spec("ben:models/ben", models) == "ben:models/ben"
    assert check_request_spec("bid=ben:models/ben,system=1,play=dd", models)
    for spec in ("ben:/tmp", "ben:models/../x", "ben:models/ben,seed=3", "ben:models/none"):
        with pytest.raises(ValueError):
            check_request_spec(spec, models)
    client = make_client(Server(data="test", ns="rules", ew="rules", models=models, explain_deals=20))
    body = client.get("/api/boards/3/auction", params={"ns": "ben:models/ben", "ew": "rules"}).json()
    assert body["calls"] and {call["seat"] for call in body["calls"]} >= {"N", "E"}
