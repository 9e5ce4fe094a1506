"""What the web API's tests share: the server under test (a quick card player at every seat) and its test client,
and the check that an error is one line."""

import pytest

pytest.importorskip("fastapi", reason="the web extra is not installed: pip install -e '.[web]' (it is in dev)")
pytest.importorskip("httpx2", reason="FastAPI's test client needs httpx2 (in the dev extra)")

from fastapi.testclient import TestClient  # noqa: E402

from bridgerl.web.app import Server, create_app  # noqa: E402

FAST = "bid=rules,play=pimc:worlds=4"  # a quick card player for the tests


def make_server() -> Server:
    """The server under test (the `server` fixture of `conftest.py`, module-scoped)."""
    return Server(data="test", ns=FAST, ew=FAST, explain_data="valid", explain_deals=150)


def make_client(server: Server) -> TestClient:
    """FastAPI's test client of ``server`` (the `client` fixture)."""
    return TestClient(create_app(server))


def _one_line(response, status):
    assert response.status_code == status, response.text
    detail = response.json()["detail"]
    assert isinstance(detail, str) and detail and "\n" not in detail
    return detail

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
