"""`bridgerl serve`'s JSON API, a person at the table (split from `test_web_api.py`): bidding and playing a seat,
declaring with dummy, what a seat may see, asking what a call shows, undo, claims, conceding, the agents moving in
the background."""

import pytest

pytest.importorskip("fastapi", reason="the web extra is not installed: pip install -e '.[web]' (it is in dev)")
pytest.importorskip("httpx2", reason="FastAPI's test client needs httpx2 (in the dev extra)")

from bridgerl.core import load_dataset  # noqa: E402
from bridgerl.core.bridge import BridgeState  # noqa: E402
from bridgerl.core.cards import card_name  # noqa: E402
from bridgerl.core.competitive import CompetitiveDealSource  # noqa: E402
from bridgerl.core.imps import imps  # noqa: E402
from helper_web import _declare, _one_line  # noqa: E402 (the fixtures server, client: conftest.py)


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


def test_a_tables_agents_never_wait_behind_a_boards_computation(client, server):
    """The agents' boards hold the server's board lock through their whole search; a seated table moves under its
    own lock, so it bids and plays on while a board is being computed (here: the board lock held throughout)."""
    import threading

    held, release = threading.Event(), threading.Event()

    def long_board():  # stands for a board's PIMC run: the board lock held until released
        with server.board_lock:
            held.set()
            release.wait(120)

    holder = threading.Thread(target=long_board, daemon=True)
    holder.start()
    try:
        assert held.wait(30)
        # board 4: West deals, and the agents at W, N and E call before the person at S
        table = client.post("/api/tables", json={"index": 3, "seats": "S"}).json()
        assert table["your_turn"] and [x["seat"] for x in table["log"]] == ["W", "N", "E"]
        assert holder.is_alive() and not release.is_set()  # the board's computation never let go meanwhile
    finally:
        release.set()
        holder.join(30)
