"""`bridgerl serve`'s JSON API through FastAPI's test client: every endpoint, and bad input answered with a 4xx and a
one-line message while the server keeps serving."""

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("fastapi", reason="the web extra is not installed: pip install -e '.[web]' (it is in dev)")
pytest.importorskip("httpx2", reason="FastAPI's test client needs httpx2 (in the dev extra)")

from fastapi.testclient import TestClient  # noqa: E402

from bridgerl.core import load_dataset  # noqa: E402
from bridgerl.core.bridge import BridgeState  # noqa: E402
from bridgerl.core.calls import parse_call  # noqa: E402
from bridgerl.core.cards import owner_to_pbn  # noqa: E402
from bridgerl.core.competitive import CompetitiveDealSource  # noqa: E402
from bridgerl.core.par import par_contracts  # noqa: E402
from bridgerl.web.app import Server, check_request_spec, create_app  # noqa: E402

FAST = "bid=rules,play=pimc:worlds=4"  # a quick card player for the tests


@pytest.fixture(scope="module")
def server():
    return Server(data="test", ns=FAST, ew=FAST, explain_data="valid", explain_deals=150)


@pytest.fixture(scope="module")
def client(server):
    return TestClient(create_app(server))


def _one_line(response, status):
    assert response.status_code == status, response.text
    detail = response.json()["detail"]
    assert isinstance(detail, str) and detail and "\n" not in detail
    return detail


def test_the_page_and_its_files(client):
    page = client.get("/")
    assert page.status_code == 200 and "bridgerl" in page.text and "/static/app.js" in page.text
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/static/style.css").status_code == 200
    config = client.get("/api/config").json()
    assert config == {"data": "test", "boards": 5000, "ns": FAST, "ew": FAST, "explain_data": "valid",
                      "explain_deals": 150}


def test_a_board(client):
    body = client.get("/api/boards/7").json()
    deal = CompetitiveDealSource(load_dataset("test")).deal_at(7)
    assert set(body) == {"index", "board", "dealer", "vulnerability", "deal", "dd", "par"}
    assert body["index"] == 7 and body["board"] == deal.board
    assert body["dealer"] == "NESW"[deal.dealer] and body["vulnerability"] == deal.vul
    assert body["deal"] == owner_to_pbn(deal.owner) and body["deal"].startswith("N:")
    assert np.array_equal(np.array(body["dd"]), deal.dd) and np.array(body["dd"]).shape == (4, 5)
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
        if shows["hands"]:
            assert 0 <= shows["hcp"]["min"] <= shows["hcp"]["mean"] <= shows["hcp"]["max"] <= 37
            assert set(shows["lengths"]) == {"S", "H", "D", "C"}
    assert state.auction.is_over
    # the actual hand of the caller is among the hands that make the call, so its HCP lies in the range
    first = calls[0]
    assert first["explanation"]["shows"]["hands"] >= 1
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
    if body["play"]:
        assert len(body["play"]) == 52
        decided = [c["explanation"] for c in body["play"] if c["explanation"]["kind"] == "worlds"]
        assert decided, "PIMC explains its choices"
        for explanation in decided:
            assert 1 <= explanation["distinct"] <= explanation["worlds"] <= 4  # fewer when few layouts remain
            for candidate in explanation["candidates"]:
                assert 0 <= candidate["best_share"] <= 1 and 0 <= candidate["tricks"] <= 13


def test_a_person_bids_and_plays_one_seat(client):
    table = client.post("/api/tables", json={"index": 11, "seats": "S"}).json()
    assert table["seats"] == "S" and table["hands"]["S"] is not None
    assert table["hands"]["N"] is None and table["hands"]["E"] is None and table["hands"]["W"] is None
    moves = 0
    while table["phase"] != "over":
        assert table["your_turn"] and table["legal"]
        kind = "call" if table["phase"] == "auction" else "card"
        table = client.post(f"/api/tables/{table['id']}/{kind}", json={kind: table["legal"][0]}).json()
        moves += 1
        assert moves <= 60
    assert set(table["result"]) >= {"contract", "score_ns", "par_ns"}
    assert table["other_table"]["score_ns"] == client.get("/api/boards/11/play").json()["result"]["score_ns"]
    assert isinstance(table["duplicate_imps"], int)
    assert all(hand is not None for hand in table["hands"].values())  # the end shows the deal
    assert client.get(f"/api/tables/{table['id']}").json()["phase"] == "over"


def test_bad_input_is_a_one_line_4xx_and_the_server_keeps_serving(client):
    assert "no board 5000" in _one_line(client.get("/api/boards/5000"), 404)
    assert "no board -1" in _one_line(client.get("/api/boards/-1"), 404)
    assert "index" in _one_line(client.get("/api/boards/abc"), 422)
    assert "no board" in _one_line(client.get("/api/boards/99999/auction"), 404)
    detail = _one_line(client.get("/api/boards/1/auction", params={"ns": "os:system"}), 400)
    assert "not a built-in agent" in detail
    detail = _one_line(client.get("/api/boards/1/auction", params={"ns": "dqn:/etc/passwd"}), 400)
    assert "models under models/ only" in detail
    detail = _one_line(client.get("/api/boards/1/play", params={"ew": "bid=rules,play=pimc:model=../x.msgpack"}), 400)
    assert "models under models/ only" in detail
    detail = _one_line(client.get("/api/boards/1/auction", params={"ns": "dqn:models/no-such-model"}), 400)
    assert "does not load" in detail
    detail = _one_line(client.get("/api/boards/1/auction", params={"ns": "bid=rules,play=pimc:worlds=-3"}), 400)
    assert "does not load" in detail
    table = client.post("/api/tables", json={"index": 2, "seats": "NS"}).json()
    tid = table["id"]
    if table["phase"] == "auction":
        assert "illegal" in _one_line(client.post(f"/api/tables/{tid}/call", json={"call": "XX"}), 422).lower()
        assert "8S" in _one_line(client.post(f"/api/tables/{tid}/call", json={"call": "8S"}), 422)
        assert "call" in _one_line(client.post(f"/api/tables/{tid}/call", json={}), 422)
        assert "auction is not over" in _one_line(client.post(f"/api/tables/{tid}/card", json={"card": "SA"}), 409)
    assert "seats" in _one_line(client.post("/api/tables", json={"index": 2, "seats": "NE"}), 400)
    assert "no table 999" in _one_line(client.get("/api/tables/999"), 404)
    assert client.get("/api/boards/1").status_code == 200  # still serving


def test_request_specs(tmp_path):
    models = Path("models")
    for spec in ("rules", "sayc", "pass", "random", "bid=sayc,play=dd", "play=alphamu:worlds=5",
                 "dqn:models/competitive-dqn", "models/competitive-ppo", "bid=rules,play=pimc:worlds=10,auction=rules"):
        assert check_request_spec(spec, models) == spec
    for spec in ("tests.helper_agents:Agent", "bid=rules,play=my.module:Player", "dqn:models/../runs/x",
                 "bid=rules,play=issn:model=/tmp/x"):
        with pytest.raises(ValueError):
            check_request_spec(spec, models)
