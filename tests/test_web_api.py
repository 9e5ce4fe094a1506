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
from bridgerl.core.cards import card_name, owner_to_pbn  # noqa: E402
from bridgerl.core.competitive import CompetitiveDealSource  # noqa: E402
from bridgerl.core.dd import solve_dd_table  # noqa: E402
from bridgerl.core.imps import imps  # noqa: E402
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


def test_a_person_bids_and_plays_one_seat(client):
    table = client.post("/api/tables", json={"index": 11, "seats": "S"}).json()
    assert table["seats"] == "S" and table["hands"]["S"] is not None and table["board"] == 12
    assert table["hands"]["N"] is None and table["hands"]["E"] is None and table["hands"]["W"] is None
    while table["phase"] == "auction":
        call = "Pass" if "Pass" in table["legal"] else table["legal"][0]
        table = client.post(f"/api/tables/{table['id']}/call", json={"call": call}).json()
    assert table["phase"] == "over"  # the person only passed and the agents bid
    assert set(table["result"]) >= {"contract", "score_ns", "par_ns"}
    other = client.get("/api/boards/11/play").json()["result"]
    assert table["other_table"]["score_ns"] == other["score_ns"]
    assert table["duplicate_imps"] == imps(table["result"]["score_ns"] - other["score_ns"])  # South is NS
    assert all(hand is not None for hand in table["hands"].values())  # the end shows the deal
    assert client.get(f"/api/tables/{table['id']}").json()["phase"] == "over"


def _declare(client, index, seats):
    """A table where the person (``seats``) bids 3NT at their first turn, then passes: they declare (unless the agents
    outbid them), and play declarer's and dummy's cards."""
    table = client.post("/api/tables", json={"index": index, "seats": seats}).json()
    bid = False
    while table["phase"] == "auction":
        call = "3NT" if not bid and "3NT" in table["legal"] else "Pass"
        bid = bid or call == "3NT"
        table = client.post(f"/api/tables/{table['id']}/call", json={"call": call}).json()
    return table


def test_a_person_declares_and_plays_with_dummy(client):
    table = _declare(client, 11, "NS")
    assert table["contract"] == "3NT" and table["declarer"] in "NS" and table["phase"] == "play"
    dummy = "NESW"["NESW".index(table["declarer"]) ^ 2]
    assert table["hands"][dummy] is not None  # dummy shows after the opening lead
    opening = [entry for entry in table["log"] if entry["action"] >= 38]
    assert len(opening) == 1 and opening[0]["seat"] in "EW"
    cards = 1
    while table["phase"] == "play":
        assert table["your_turn"] and table["seat_to_play"] in "NS"
        hand = table["hands"][table["seat_to_play"]]
        held = [suit + rank for suit, ranks in zip("SHDC", hand) for rank in ranks]
        played = {entry["name"] for entry in table["log"] if entry["action"] >= 38}
        assert not played & set(held)  # played cards leave the hands
        table = client.post(f"/api/tables/{table['id']}/card", json={"card": table["legal"][0]}).json()
        cards += 1
    assert cards > 20 and table["phase"] == "over" and len(table["log"]) >= len(opening) + 52


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


def _cards_named(text: str) -> set:
    import re

    return set(re.findall(r"(?<![A-Za-z0-9])[SHDC][2-9TJQKA](?![A-Za-z0-9])", text))


def test_a_seated_board_shows_nothing_its_seats_cannot_see(client, server):
    """Every response of a seated board (South alone, then declaring with North), up to its end: no unplayed card of
    a hand the seats cannot see (dummy's shows after the opening lead), no deal, DD table or par; at the end all of
    it, with the result as a scorer writes it and the last trick."""
    import json as json_module

    for seats, index in (("S", 11), ("NS", 12)):
        table = client.post("/api/tables", json={"index": index, "seats": seats}).json()
        owner = server.source.deal_at(index).owner
        bid = False
        responses = [table]
        while table["phase"] != "over":
            if table["phase"] == "auction":
                call = "3NT" if seats == "NS" and not bid and "3NT" in table["legal"] else "Pass"
                bid = bid or call == "3NT"
                table = client.post(f"/api/tables/{table['id']}/call", json={"call": call}).json()
            else:
                table = client.post(f"/api/tables/{table['id']}/card", json={"card": table["legal"][0]}).json()
            responses.append(table)
            responses.append(client.get(f"/api/tables/{table['id']}").json())
        for response in responses:
            if response["phase"] == "over":
                continue
            assert not {"deal", "dd", "par", "result"} & set(response)
            played = {entry["name"] for entry in response["log"] if entry["action"] >= 38}
            visible = {seat for seat, hand in response["hands"].items() if hand is not None}
            assert set(seats) <= visible
            hidden = {card for card in range(52) if "NESW"[owner[card]] not in visible}
            names = {card_name(card) for card in hidden}
            unplayed_hidden = names - played
            assert not _cards_named(json_module.dumps(response)) & unplayed_hidden
        end = responses[-1]
        assert end["phase"] == "over" and {"deal", "dd", "par", "result"} <= set(end)
        assert all(hand is not None for hand in end["hands"].values())
        if end["contract"] is not None:
            level, declarer = end["contract"][0], end["declarer"]
            assert end["result"]["text"].startswith(f"{end['contract']} {declarer} ")
            tricks = end["result"]["tricks"]
            over = tricks - int(level) - 6
            assert end["result"]["text"].endswith("=" if over == 0 else f"{over:+d}")
            assert end["last_trick"]["number"] == 13 and len(end["last_trick"]["cards"]) == 4
            assert end["tricks"]["declarer"] + end["tricks"]["defence"] == 13


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


def test_a_seated_person_asks_what_an_agents_call_shows(client):
    """`GET /api/tables/{id}/calls/{k}`: what an agent's call shows, measured on held-out deals, without the agent's
    own values (they would tell its hand); the person's own call and a call not made yet are refused in one line."""
    table = client.post("/api/tables", json={"index": 6, "seats": "NS"}).json()
    while table["phase"] == "auction":
        table = client.post(f"/api/tables/{table['id']}/call", json={"call": "Pass"}).json()
    calls = [entry for entry in table["log"] if entry["action"] < 38]
    agent = next(k for k, entry in enumerate(calls) if entry["seat"] in "EW")
    mine = next(k for k, entry in enumerate(calls) if entry["seat"] in "NS")
    explained = client.get(f"/api/tables/{table['id']}/calls/{agent}").json()
    assert explained["seat"] == calls[agent]["seat"] and explained["call"] == calls[agent]["name"]
    assert "shows" in explained["explanation"] and "considered" not in explained["explanation"]
    assert "yours" in _one_line(client.get(f"/api/tables/{table['id']}/calls/{mine}"), 409)
    assert "no call 99" in _one_line(client.get(f"/api/tables/{table['id']}/calls/99"), 404)


def test_a_lin_board_of_ones_own(client, server):
    lin = ("pn|Sam,Wendy,Nora,Ed|st||md|3SJ984HKQ8DQ52CAJ7,SAQ7532HT7D6CKT83,S6HA96432DAT93CQ6,SKTHJ5DKJ874C9542|"
           "rh||ah|Board 9|sv|e|mb|p|mb|p|mb|p|mb|p|pg||")
    added = client.post("/api/boards", json={"deal": lin}).json()
    assert added["index"] >= len(server.dataset) and added["board"] == 9 and added["dealer"] == "N"
    assert added["vulnerability"] == "EW" and added["deal"].startswith("N:6.A96432.AT93.Q6 ")
    assert "malformed md tag" in _one_line(client.post("/api/boards", json={"deal": "md|3SZ|"}), 422)


def _in_play(client, server, index=11):
    """A table where the person (NS) declares 3NT and is to play a card."""
    table = _declare(client, index, "NS")
    assert table["phase"] == "play" and table["your_turn"]
    return table, server.tables[table["id"]]


def test_undo_takes_back_the_last_call_or_card_and_the_agents_replies(client, server):
    fresh = client.post("/api/tables", json={"index": 11, "seats": "S"}).json()
    assert not fresh["can_undo"]
    assert "nothing to undo" in _one_line(client.post(f"/api/tables/{fresh['id']}/undo"), 409)
    table, held = _in_play(client, server)
    assert table["can_undo"]
    before = table["log"]
    moved = client.post(f"/api/tables/{table['id']}/card", json={"card": table["legal"][-1]}).json()
    assert len(moved["log"]) > len(before)  # the card, and the agents' replies up to the person's next turn
    undone = client.post(f"/api/tables/{table['id']}/undo").json()
    assert undone["log"] == before and undone["your_turn"] and undone["legal"] == table["legal"]
    again = client.post(f"/api/tables/{table['id']}/card", json={"card": table["legal"][0]}).json()
    assert again["log"][len(before)]["name"] == table["legal"][0]
    # back into the auction: the last call taken back, the card players told the new auction later
    while client.get(f"/api/tables/{table['id']}").json()["log"][-1]["action"] >= 38:
        client.post(f"/api/tables/{table['id']}/undo")
    view = client.get(f"/api/tables/{table['id']}").json()
    assert view["phase"] == "auction" and view["your_turn"] and not held.seen


def test_a_claim_the_double_dummy_result_makes_good_ends_the_board_else_play_goes_on(client, server):
    from bridgerl.core.dd import declarer_total

    table, held = _in_play(client, server)
    play = held.state.play
    left = 13 - len(play.tricks)
    total = declarer_total(play)  # what declarer makes from here with double-dummy play
    if total < play.declarer_tricks + left:
        refused = client.post(f"/api/tables/{table['id']}/claim", json={}).json()  # all the rest: too many
        assert refused["phase"] == "play" and refused["your_turn"] and "do not accept" in refused["notice"]
    assert "claim 0 to" in _one_line(client.post(f"/api/tables/{table['id']}/claim", json={"tricks": 14}), 422)
    claimed = client.post(f"/api/tables/{table['id']}/claim", json={"tricks": total - play.declarer_tricks}).json()
    assert claimed["phase"] == "over" and "accept your claim" in claimed["notice"]
    assert claimed["ended"]["how"] == "claim" and claimed["result"]["tricks"] == total
    assert claimed["result"]["text"].startswith("3NT ") and not claimed["can_undo"] and not claimed["can_claim"]
    assert "the board is over" in _one_line(client.post(f"/api/tables/{table['id']}/claim", json={}), 409)
    assert "the board is over" in _one_line(client.post(f"/api/tables/{table['id']}/undo"), 409)


def test_conceding_gives_the_opponents_the_rest(client, server):
    table = client.post("/api/tables", json={"index": 11, "seats": "S"}).json()
    assert "not over" in _one_line(client.post(f"/api/tables/{table['id']}/concede"), 409)
    table, held = _in_play(client, server, index=12)
    won = held.state.play.declarer_tricks
    conceded = client.post(f"/api/tables/{table['id']}/concede").json()
    assert conceded["phase"] == "over" and conceded["ended"]["how"] == "concede"
    assert conceded["result"]["tricks"] == won  # the person declares: no more tricks for declarer
    assert conceded["duplicate_imps"] == imps(conceded["result"]["score_ns"] - conceded["other_table"]["score_ns"])


def test_the_agents_move_in_the_background_while_the_page_asks(client):
    """``wait=false``: the answer comes at once, ``thinking`` while the agents move; asking again shows their moves
    as they come, and the end is the same as a table that waited (the agents are reseeded per board)."""
    import time

    waited = client.post("/api/tables", json={"index": 14, "seats": "E"}).json()
    table = client.post("/api/tables?wait=false", json={"index": 14, "seats": "E"}).json()
    deadline = time.monotonic() + 60
    while table["thinking"] and time.monotonic() < deadline:
        assert not table["your_turn"] and table["legal"] == []
        time.sleep(0.05)
        table = client.get(f"/api/tables/{table['id']}").json()
    assert not table["thinking"] and table["log"] == waited["log"] and table["legal"] == waited["legal"]
    assert client.get("/api/progress").json() == {}  # no agents' board being computed


def test_a_pasted_record_replays_its_own_auction_and_play(client, server):
    lin = ("pn|Sam,Wendy,Nora,Ed|st||md|3SJ984HKQ8DQ52CAJ7,SAQ7532HT7D6CKT83,S6HA96432DAT93CQ6,SKTHJ5DKJ874C9542|"
           "rh||ah|Board 9|sv|e|mb|1N|mb|p|mb|3N|mb|p|mb|p|mb|p|pc|DK|pc|D2|pc|D6|pc|DA|mc|9|pg||")
    added = client.post("/api/boards", json={"deal": lin}).json()
    assert added["record"] and client.get("/api/config").json()["posted"] >= 1
    record = client.get(f"/api/boards/{added['index']}/record").json()
    assert [c["call"] for c in record["auction"]] == ["1NT", "Pass", "3NT", "Pass", "Pass", "Pass"]
    assert [c["card"] for c in record["play"]] == ["DK", "D2", "D6", "DA"] and record["trick_winners"] == ["N"]
    assert record["result"]["tricks"] == 9 and record["result"]["text"] == "3NT N ="
    assert "no record" in _one_line(client.get("/api/boards/3/record"), 404)
    bad = lin.replace("pc|D2|", "pc|S9|")  # dummy (South) must follow to the diamond lead
    assert "revoke at trick 1" in _one_line(client.post("/api/boards", json={"deal": bad}), 422)
    from bridgerl.core.records import parse_lin_records, records_to_pbn

    pbn = client.post("/api/boards", json={"deal": records_to_pbn(parse_lin_records(lin))}).json()  # the same, PBN
    assert pbn["record"] and client.get(f"/api/boards/{pbn['index']}/record").json() == record


def test_serve_restarts_on_its_port_at_once(tmp_path):
    """`bridgerl serve` stopped while a browser's connection is open, then started again on the same port: the
    second binds at once (SO_REUSEADDR) and serves."""
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
    first.send_signal(signal.SIGINT)  # Ctrl-C: the server closes the open connection (its side in TIME_WAIT)
    assert first.wait(30) in (0, 130)  # 130: stopped by Ctrl-C
    second, again = start()  # bound and answering
    try:
        assert second.poll() is None
    finally:
        second.send_signal(signal.SIGINT)
        second.wait(30)
        connection.close()
        again.close()


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


def test_claims_by_a_defender_and_by_dummy(client, server):
    """A defender's claim counts tricks for the defence; a person at dummy alone cannot claim or concede."""
    from bridgerl.core.dd import declarer_total

    table = client.post("/api/tables", json={"index": 6, "seats": "NS"}).json()  # East-West bid 4S
    while table["phase"] == "auction":
        table = client.post(f"/api/tables/{table['id']}/call", json={"call": "Pass"}).json()
    assert table["declarer"] in "EW" and table["your_turn"]
    play = server.tables[table["id"]].state.play
    left = 13 - len(play.tricks)
    defence = left - (declarer_total(play) - play.declarer_tricks)  # what double dummy gives the defence
    if defence < left:
        refused = client.post(f"/api/tables/{table['id']}/claim", json={"tricks": defence + 1}).json()
        assert refused["phase"] == "play" and "do not accept" in refused["notice"]
    claimed = client.post(f"/api/tables/{table['id']}/claim", json={"tricks": defence}).json()
    assert claimed["phase"] == "over" and claimed["result"]["tricks"] == play.declarer_tricks + left - defence
    # a person at South alone, North declaring: dummy (the agents would play the whole board at once, so the table
    # is set up at the opening lead here)
    from bridgerl.core.contract import Contract
    from bridgerl.web.app import HumanTable

    deal = CompetitiveDealSource(load_dataset("test")).deal_at(3)
    state = BridgeState.at_opening_lead(deal, Contract(3, 4, 0, 0))  # 3NT by North
    pairs = (server.pair(None, 0), server.pair(None, 1))
    held = HumanTable(9000, 3, frozenset({2}), pairs[0].name, pairs[1].name, pairs, state)
    server.tables[held.id] = held
    assert not client.get(f"/api/tables/{held.id}").json()["can_claim"]
    assert "dummy cannot claim" in _one_line(client.post(f"/api/tables/{held.id}/claim", json={}), 409)
    assert "dummy cannot concede" in _one_line(client.post(f"/api/tables/{held.id}/concede"), 409)


def test_a_pasted_pbn_record_that_breaks_the_rules_is_refused_not_dropped(client):
    from bridgerl.core.records import parse_lin_records, records_to_pbn

    lin = ("pn|Sam,Wendy,Nora,Ed|st||md|3SJ984HKQ8DQ52CAJ7,SAQ7532HT7D6CKT83,S6HA96432DAT93CQ6,SKTHJ5DKJ874C9542|"
           "rh||ah|Board 9|sv|e|mb|1N|mb|p|mb|3N|mb|p|mb|p|mb|p|pc|DK|pc|D2|pc|D6|pc|DA|mc|9|pg||")
    pbn = records_to_pbn(parse_lin_records(lin)).replace("DK D2 D6 DA", "DK S9 D6 DA")  # dummy revokes
    detail = _one_line(client.post("/api/boards", json={"deal": pbn}), 422)
    assert "revoke" in detail or "follow" in detail
