"""The web page in a real headless Chromium (Debian's ``chromium`` driven by Playwright): a board with its hands, DD
table and par; stepping through the agents' auction and play; an explanation; a person's legal and illegal calls.

Skips only where no Chromium is installed (``.ci/run`` installs it, so CI runs it). ``BRIDGERL_SCREENSHOT=PATH``
also writes the screenshot of the docs there."""

import contextlib
import os
import shutil
import socket
import threading
import time

import pytest

pytest.importorskip("fastapi", reason="the web extra is not installed: pip install -e '.[web]' (it is in dev)")
pytest.importorskip("uvicorn", reason="the web extra is not installed: pip install -e '.[web]' (it is in dev)")
sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed (it is in the dev extra)")

from helper_browser import (check_tap_targets, element_boxes, in_view, labels_in_full, own_moves,  # noqa: E402
                            settled, slow_agents)

CHROMIUM = next((path for path in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if path), None)
if CHROMIUM is None and os.environ.get("CI"):
    pytest.fail("no Chromium in CI: .ci/run installs Debian's chromium (apt-get install chromium)", pytrace=False)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed here (apt-get install chromium; "
                                                         ".ci/run installs it)")

GAME = "bid=sayc,play=pimc:worlds=2"  # few worlds: the page, not the player, is under test


@contextlib.contextmanager
def _browser():
    """Debian's chromium under Playwright, closed whatever the test does."""
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="module")
def served():
    """The server under test, uvicorn in a thread at a free port of this machine: (its address, the `Server`, which a
    test may hold up to see what the page shows while an agent is slow)."""
    import uvicorn

    from bridgerl.web.app import Server, create_app

    served = Server(data="test", ns=GAME, ew="bid=rules,play=pimc:worlds=2", explain_deals=150)
    app = create_app(served)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started, "the server did not start"
    yield f"http://127.0.0.1:{port}/", served
    server.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def url(served):
    return served[0]


def test_the_page_in_chromium(url, tmp_path):
    with _browser() as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(url + "#board=5")  # the board number shown: row 4
        page.wait_for_function("document.getElementById('step').textContent.includes(' of ')",
                               timeout=120_000)  # the agents' auction and play are in

        # the board: title, four hands, DD table and par
        assert "Board" in page.inner_text("#board-title") and "dealer" in page.inner_text("#board-title")
        assert page.locator(".hand").count() == 4
        for seat in "NESW":
            assert page.locator(f"#hand-{seat} .suit").count() == 4
        assert "Par: NS" in page.inner_text("#ddpar")
        assert page.locator("#ddpar table tr").count() == 5

        # stepping through the auction and the play
        total = int(page.inner_text("#step").split(" of ")[1].split()[0])
        assert page.inner_text("#step").startswith("step 0 of")
        for _ in range(3):
            page.click("#forward")
        assert page.inner_text("#step").startswith("step 3 of")
        assert page.locator("#auction td.call").count() == 3
        assert page.inner_text("#explanation").strip()  # the last call's explanation
        page.click("#last")
        assert page.inner_text("#step").startswith(f"step {total} of")
        assert "4H by W: declarer " in page.inner_text("#step") and "trick 13 won by" in page.inner_text("#step")
        result = page.inner_text("#result")
        assert "IMPs for NS against par" in result
        assert "4\u2665 by W" in result and "tricks" in result  # board 4 is played: 4H by West
        assert page.locator("#trick .played").count() == 4  # the last trick
        page.click("#back")
        assert page.inner_text("#step").startswith(f"step {total - 1} of")
        assert "one choice" in page.inner_text("#explanation")  # the last trick's cards are forced
        page.click("#first")
        for _ in range(page.evaluate("game.auction.length") + 1):  # to the opening lead
            page.click("#forward")
        assert page.locator("#trick .played").count() == 1
        assert "worlds" in page.inner_text("#explanation")  # PIMC's worlds for the lead
        page.click("#auction td.call >> nth=0")  # the opening call explained
        explanation = page.inner_text("#explanation")
        assert "held-out hands" in explanation
        assert "HCP" in explanation or "None of" in explanation
        page.uncheck("#reveal")  # hidden hands face down, and no DD table or par to give them away
        assert page.locator(".hand.hidden").count() == 4 and page.inner_text("#ddpar") == ""
        assert "plays: pimc:worlds=2" in page.inner_text("#hand-N")  # during the play, the card player's name
        vulnerable = page.evaluate("[...document.querySelectorAll('#auction thead th.vul')].map((e) => e.textContent)")
        assert sorted(vulnerable) == sorted(page.evaluate(
            "SEATS.filter((s) => vulnerable(s, board.vulnerability))"))  # the auction shows who is vulnerable
        assert not page.is_visible("#bidbox")  # no bidding box while reviewing the agents
        page.check("#reveal")
        page.click("#first")
        page.click("#forward")
        screenshot = tmp_path / "board.png"
        page.screenshot(path=str(screenshot), full_page=True)
        assert screenshot.stat().st_size > 10_000
        if os.environ.get("BRIDGERL_SCREENSHOT"):  # the docs' picture: the auction and the first trick
            page.click("#first")
            for _ in range(page.evaluate("game.auction.length") + 2):
                page.click("#forward")
            page.click("#auction td.call >> nth=0")
            page.screenshot(path=os.environ["BRIDGERL_SCREENSHOT"], full_page=True)

        # a person at South: an illegal call is refused in the page, a legal one is made
        page.select_option("#seat", "S")
        page.click("#sit")
        page.wait_for_selector("#bidbox:not([hidden])", timeout=60_000)
        assert page.locator("#hand-S .suit").count() == 4 and page.locator("#hand-N.hidden").count() == 1
        before = page.locator("#auction td.call").count()
        page.click("#bidbox button[data-call='XX']")
        page.wait_for_function("document.getElementById('message').textContent.length > 0")
        assert "illegal" in page.inner_text("#message").lower() or "redouble" in page.inner_text("#message")
        assert page.locator("#auction td.call").count() == before  # nothing was bid
        page.click("#bidbox button[data-call='Pass']")
        page.wait_for_function(f"document.querySelectorAll('#auction td.call').length > {before}")
        assert page.inner_text("#message") == ""
        assert "Pass" in page.inner_text("#auction")
        # the bidding box shows exactly when the person is to call
        bidding = page.evaluate("table.phase === 'auction' && table.your_turn")
        assert page.is_visible("#bidbox") == bidding
        assert not errors, errors


@pytest.mark.slow  # the slow tier (docs/conventions.md): the seated controls and the page stay in the default
def test_a_seated_board_flips_and_a_narrow_window(url):
    """A pair seated at North-South plays a whole board with the keyboard only (focus stays on what can be chosen),
    never asks the server for the deal while seated (the table's own responses carry what the seats may see), and
    sees every trick with its winner in the play so far; a quick flip through boards makes the server compute only
    the board it stops on (checked by what the server computed); at 390 px nothing overflows sideways and the hands'
    labels are whole."""
    import json
    import urllib.request

    def computed():
        with urllib.request.urlopen(url + "api/status") as response:
            return json.load(response)["computed"]

    with _browser() as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        errors, requests = [], []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("request", lambda request: requests.append(request.url))
        bodies = []  # every answer the page gets while seated: never the deal before the board is over
        page.on("response", lambda response: bodies.append(response) if "/api/tables" in response.url else None)
        page.goto(url + "#board=21")
        page.wait_for_function("document.getElementById('step').textContent.includes(' of ')", timeout=120_000)
        assert page.input_value("#index") == "21" and "Board 21" in page.inner_text("#board-title")

        before = len(computed())
        for _ in range(4):  # a quick flip: boards 22 to 25, only 25 computed
            page.click("#next-board")
        page.wait_for_function("document.getElementById('step').textContent.includes(' of ')", timeout=120_000)
        assert "Board 25" in page.inner_text("#board-title") and page.input_value("#index") == "25"
        assert {entry["index"] for entry in computed()[before:]} == {24}
        page.fill("#index", "99999")
        page.click("#load")
        assert "no board 99999" in page.inner_text("#message") and page.inner_text("#board-title") == ""

        page.fill("#index", "7")  # row 6: East-West bid 4S while North-South pass
        page.select_option("#seat", "NS")
        requests.clear()
        page.evaluate("""() => {  // every full trick the middle of the table shows, as it shows it
            window.fullTricks = new Set();
            new MutationObserver(() => {
                const shown = [...document.querySelectorAll('#trick .played')].map((e) => e.textContent);
                if (shown.length === 4) window.fullTricks.add(shown.join(' '));
            }).observe(document.getElementById('trick'), {childList: true, subtree: true});
        }""")
        page.click("#sit")
        page.wait_for_function("table && (table.your_turn || table.phase === 'over')", timeout=60_000)
        moves = 0
        shots = os.environ.get("BRIDGERL_SCREENSHOT")  # the docs' pictures: seated mid-play, and a phone
        while page.evaluate("table.phase") != "over" and moves < 80:
            count = page.evaluate("table.log.length")
            page.keyboard.press("Enter")  # the focused choice: the first legal call or card
            page.wait_for_function(f"!busy && table.log.length > {count}", timeout=60_000)
            moves += 1
            if shots and page.evaluate("table.phase === 'play' && table.tricks.declarer + "
                                       "table.tricks.defence >= 5"):
                page.screenshot(path=shots.replace(".png", "-seated.png"), full_page=True)
                page.set_viewport_size({"width": 390, "height": 844})
                page.screenshot(path=shots.replace(".png", "-narrow.png"), full_page=True)
                page.set_viewport_size({"width": 1400, "height": 900})
                shots = None
        assert page.evaluate("table.phase") == "over" and not errors, errors
        seated = [u for u in requests if "/api/" in u]
        assert seated and all("/api/tables" in u for u in seated), seated  # never the board's deal
        answers = [response.json() for response in bodies if response.request.method == "POST"]
        assert answers and all("deal" not in answer for answer in answers if answer.get("phase") != "over")
        assert all(answer["hands"]["E"] is None for answer in answers if answer.get("phase") == "auction")
        assert page.evaluate("table.contract") == "4S"
        tricks = page.locator("#play-so-far li")
        assert tricks.count() == 13 and all(tricks.nth(k).text_content().count(",") == 3 for k in range(13))
        assert "Trick 13 won by" in page.inner_text("#last-trick")
        log = page.evaluate("table.log.filter((x) => x.action >= 38).map((x) => x.name)")
        symbol = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
        every = [" ".join(symbol[c[0]] + c[1] for c in log[k:k + 4]) for k in range(0, 52, 4)]
        shown = set(page.evaluate("[...window.fullTricks]"))
        assert all(trick in shown for trick in every), (every, shown)  # each trick whole, winner included
        assert "Duplicate:" in page.inner_text("#result") and "Par: NS" in page.inner_text("#ddpar")
        position = page.evaluate("table.log.filter((x) => x.action < 38).findIndex((x) => 'EW'.includes(x.seat))")
        page.click(f"#auction td.call[data-position='{position}']")  # what an opponent's call shows
        page.wait_for_function("document.getElementById('explanation').textContent.includes('held-out hands')")
        assert "Considered" not in page.inner_text("#explanation")

        lin = ("pn|Sam,Wendy,Nora,Ed|st||md|3SJ984HKQ8DQ52CAJ7,SAQ7532HT7D6CKT83,S6HA96432DAT93CQ6,"
               "SKTHJ5DKJ874C9542|rh||ah|Board 9|sv|e|mb|p|mb|p|mb|p|mb|p|pg||")
        page.click("#paste summary")
        page.fill("#paste-text", lin)
        page.click("#paste-add")  # a board of one's own, numbered after the dataset's 5,000
        page.wait_for_function("document.getElementById('step').textContent.includes(' of ')", timeout=120_000)
        assert page.input_value("#index") == "5001" and "Board 9" in page.inner_text("#board-title")
        assert page.inner_text("#hand-N .suit >> nth=0").endswith("6")  # North: S6

        stops = ("pn|Sam,Wendy,Nora,Ed|st||md|3SJ984HKQ8DQ52CAJ7,SAQ7532HT7D6CKT83,S6HA96432DAT93CQ6,"
                 "SKTHJ5DKJ874C9542|rh||ah|Board 9|sv|e|mb|1N|mb|p|mb|3N|mb|p|mb|p|mb|p|pc|DK|pc|D2|pc|D6|pc|DA|"
                 "pc|S6|pg||")  # a record that stops in the middle of the second trick: its play can be stepped into
        if not page.is_visible("#paste-text"):
            page.click("#paste summary")
        page.fill("#paste-text", stops)
        page.click("#paste-add")
        page.wait_for_function("document.getElementById('step').textContent.includes(' of 11')", timeout=120_000)
        page.evaluate("go(actions())")
        assert "step 11 of 11" in page.inner_text("#step") and "3NT by N: declarer 1, defence 0" in \
            page.inner_text("#step")
        assert "The record stops here" in page.inner_text("#result") and not errors, errors

        page.set_viewport_size({"width": 390, "height": 800})
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        labels_in_full(page)  # each hand's label whole, wrapped where it is long


def test_seated_controls_in_chromium(served):
    """The address (board number shown, typed addresses, Back); your seat at the bottom at every seat; the whole
    bidding box (Pass, X and XX first) in view without scrolling at 390 x 844 on every turn; a double-click on a
    dimmed call and on a card makes at most one move and a refusal moves nothing; a flip clears the vulnerability
    and disables Undo at once, until the next table is in; dummy's label, in full at 1400 and at 390 px; the status
    line names the card played from dummy ("your turn: S to play from dummy (N)", "E to play from dummy (W)"); a
    slow agent is named with the seconds it has been thinking, counted up while the page waits; undo, claim and
    concede; leaving a seated board asks, and it is taken up again where it was (never face up), after a reload
    too; 24 px targets at 390 px; the agents' progress; "the server stopped"."""
    url, server = served
    with _browser() as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        errors, dialogs = [], []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("dialog", lambda dialog: (dialogs.append(dialog.type), dialog.accept()))
        agents_in = "document.getElementById('step').textContent.includes(' of ')"

        # the address holds the board number shown, and follows a typed address and Back
        page.goto(url + "#board=42")
        page.wait_for_function(agents_in, timeout=120_000)
        assert page.input_value("#index") == "42" and "Board 42" in page.inner_text("#board-title")
        page.evaluate("location.hash = '#board=30'")  # typed into the address bar
        page.wait_for_function("board && board.board === 30 && game", timeout=120_000)
        assert page.input_value("#index") == "30"
        page.go_back()
        page.wait_for_function("board && board.board === 42 && game", timeout=120_000)
        assert page.url.endswith("#board=42") and page.input_value("#index") == "42"

        # your seat at the bottom, whichever you take (a pair: South or East)
        for number, seat in ((43, "N"), (44, "E"), (45, "W"), (46, "EW"), (47, "S")):
            page.fill("#index", str(number))
            page.select_option("#seat", seat)
            page.click("#sit")
            settled(page)
            bottom = "E" if seat == "EW" else seat
            assert "pos-bottom" in page.get_attribute(f"#hand-{bottom}", "class")
            assert page.url.endswith(f"#board={number}&seat={seat}")
        assert dialogs.count("confirm") == 4  # each unfinished board left asked first

        # seated South at board 47: on a phone the whole bidding box is in view, Pass, X and XX first
        assert page.is_visible("#bidbox")
        assert page.get_attribute("#bidbox button >> nth=0", "data-call") == "Pass"
        page.set_viewport_size({"width": 390, "height": 844})
        in_view(page, "#bidbox, #bidbox button")
        page.set_viewport_size({"width": 1400, "height": 900})

        # a double-click on a dimmed call moves nothing, not even the bidding box
        boxes, calls = element_boxes(page, "#bidbox button"), page.locator("#auction td.call").count()
        page.dblclick("#bidbox button.illegal >> nth=0")
        page.wait_for_function("document.getElementById('message').textContent.length > 0")
        page.wait_for_timeout(300)
        assert page.locator("#auction td.call").count() == calls and element_boxes(page, "#bidbox button") == boxes
        moves = own_moves(page)
        page.dblclick("#bidbox button[data-call='Pass']")  # a legal call, double-clicked: one call
        settled(page)
        page.wait_for_timeout(300)
        assert own_moves(page) == moves + 1

        # leaving asks; the next board is dealt to you face down; the left board comes back where it was
        left = page.evaluate("({id: table.id, log: table.log})")
        vulnerable = "#auction thead th.vul, .hand h3.vul"
        # board 47 has North-South vulnerable, and your call to take back
        assert page.locator(vulnerable).count() > 0 and page.is_enabled("#undo")
        held = []  # the next table's request held: the flip caught before the new board is in

        def new_table(address):
            return address.endswith("/api/tables?wait=false")

        page.route(new_table, lambda route: held.append(route))
        page.click("#next-board")
        assert page.locator(vulnerable).count() == 0 and page.is_disabled("#undo")  # at once
        for _ in range(100):
            if held:
                break
            page.wait_for_timeout(50)
        assert held and page.locator(vulnerable).count() == 0 and page.is_disabled("#undo")  # while it loads
        held[0].continue_()
        page.unroute(new_table)
        settled(page)
        assert page.evaluate("table.index") == 47 and page.locator(".hand.hidden").count() >= 2
        assert page.inner_text("#ddpar") == ""
        page.click("#prev-board")
        settled(page)
        assert page.evaluate("({id: table.id, log: table.log})") == left
        page.click("#load")  # "Show agents" on a board that is yours to play: the table again, never face up
        settled(page)
        assert page.evaluate("table && table.id") == left["id"] and page.inner_text("#ddpar") == ""
        page.reload()  # the browser asks (beforeunload); the reloaded page takes the table up again
        settled(page)
        assert page.evaluate("table.id") == left["id"] and page.evaluate("table.log") == left["log"]
        assert "beforeunload" in dialogs

        # declaring at North-South (board 12: 3NT, then passes): dummy's label, a double-clicked card, undo
        page.fill("#index", "12")
        page.select_option("#seat", "NS")
        page.click("#sit")
        settled(page)
        bid = False
        while page.evaluate("table.phase") == "auction":
            call = "3NT" if not bid and page.evaluate("table.legal.includes('3NT')") else "Pass"
            bid = bid or call == "3NT"
            page.click(f"#bidbox button[data-call='{call}']")
            page.wait_for_timeout(50)
            settled(page)
        assert page.evaluate("table.contract") == "3NT" and page.evaluate("table.your_turn")
        dummy = page.evaluate("SEATS[(SEATS.indexOf(table.declarer) + 2) % 4]")
        assert labels_in_full(page)[dummy] == "dummy, played by you"
        declarer = page.evaluate("table.declarer")  # after the opening lead dummy plays: declarer picks its card
        assert page.evaluate("[table.to_act, table.seat_to_play]") == [declarer, dummy]
        assert page.inner_text("#step").endswith(f"your turn: {declarer} to play from dummy ({dummy})")
        before, moves = page.evaluate("table.log"), own_moves(page)
        page.dblclick(".hand button.card.legal >> nth=0")
        page.wait_for_timeout(100)
        settled(page)
        page.wait_for_timeout(300)
        assert own_moves(page) == moves + 1  # one card, not two
        page.click("#undo")
        settled(page)
        assert page.evaluate("table.log") == before  # the card and the agents' replies taken back

        # a claim of every trick left: accepted if double dummy makes it good, else play on; then claim none
        page.click("#claim")
        settled(page)
        if page.evaluate("table.phase") != "over":
            assert "do not accept" in page.inner_text("#message")
            page.select_option("#claim-tricks", "0")
            page.click("#claim")
            settled(page)
        assert page.evaluate("table.phase") == "over" and "claimed" in page.inner_text("#step")
        assert "accept your claim" in page.inner_text("#message") and "Duplicate:" in page.inner_text("#result")
        total = page.evaluate("table.result.tricks")  # the status line gives the result, not the tricks played
        assert f"declarer {total}, defence {13 - total}" in page.inner_text("#step")

        # conceding as a defender (board 7: East-West bid 4S while North-South pass)
        page.fill("#index", "7")
        page.click("#sit")
        settled(page)
        if page.evaluate("table.log.length") == 0:  # nothing called yet: no empty first row of the auction
            assert page.locator("#auction tbody tr").count() == 0
        assert "0 of 0" not in page.inner_text("#claim-tricks")  # nothing to claim during the auction
        page.set_viewport_size({"width": 390, "height": 844})  # on a phone: the bidding box in view at every turn
        while page.evaluate("table.phase") == "auction":
            in_view(page, "#bidbox, #bidbox button")
            page.click("#bidbox button[data-call='Pass']")
            page.wait_for_timeout(50)
            settled(page)
        assert page.locator(".hand button.card").count() > 0  # tap targets of at least 24 px on a phone
        check_tap_targets(page)

        # the opening lead with declarer slow to play dummy's card: the status line names dummy's card and the
        # thinking line counts the seconds while the page waits; dummy's label is whole on a phone and wide
        with slow_agents(server):
            page.click(".hand button.card.legal >> nth=0")
            page.wait_for_function("document.getElementById('thinking-time').textContent === '1 s'", timeout=30_000)
            page.wait_for_function("document.getElementById('thinking-time').textContent === '2 s'", timeout=30_000)
            declarer, dummy = page.evaluate("[table.declarer, table.seat_to_play]")
            name = {"N": "North", "E": "East", "S": "South", "W": "West"}[declarer]
            assert page.is_visible("#thinking") and page.evaluate("table.thinking && busy")
            assert page.inner_text("#thinking-who") == f"{name} (for dummy, {dummy}) is thinking\u2026"
            assert page.inner_text("#step").endswith(f"{declarer} to play from dummy ({dummy})")
            labels = labels_in_full(page)
            assert labels[dummy] == f"dummy, played by declarer {declarer} (plays: pimc:worlds=2)"
            page.set_viewport_size({"width": 1400, "height": 900})
            assert labels_in_full(page) == labels
        settled(page)
        assert not page.is_visible("#thinking")
        confirms = dialogs.count("confirm")
        page.click("#concede")
        settled(page)
        assert dialogs.count("confirm") == confirms + 1
        assert page.evaluate("table.phase") == "over" and "conceded" in page.inner_text("#step")

        # the agents' progress while a board is computed; a server that stopped is named
        pending = []
        page.route("**/api/boards/*/play*", lambda route: pending.append(route))
        page.route("**/api/progress", lambda route: route.fulfill(json={"index": 59, "calls": 7, "cards": 12}))
        page.fill("#index", "60")
        page.click("#load")
        page.wait_for_function("document.getElementById('message').textContent.includes('12 of 52 cards')")
        assert pending
        pending[0].continue_()
        page.wait_for_function(agents_in, timeout=120_000)
        page.set_viewport_size({"width": 390, "height": 844})  # reviewing: the stepper, the checkbox, the fields
        check_tap_targets(page)
        page.set_viewport_size({"width": 1400, "height": 900})
        page.unroute("**/api/boards/*/play*")
        page.unroute("**/api/progress")
        page.route("**/api/**", lambda route: route.abort())
        page.click("#load")
        page.wait_for_function("document.getElementById('message').textContent.includes('the server stopped')")
        assert not errors, errors


def test_a_failed_poll_is_asked_again(url):
    """While the agents move, the page asks for the table again; a poll that fails (here the next two are cut off)
    says so and is asked again, slower, until the table comes: the page never stays "thinking". (The quick agents
    of this server often finish before the move's answer is written: that answer is marked "thinking" here, so that
    the page has to ask.)"""
    with _browser() as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        errors, cut = [], []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(url + "#board=48&seat=S")
        settled(page)
        moves = own_moves(page)

        def thinking(route):  # the move's answer, as if the agents were still moving
            response = route.fetch()
            route.fulfill(response=response, json={**response.json(), "thinking": True})

        def flaky(route):  # the table's GET: the next two cut off
            if route.request.method == "GET" and len(cut) < 2:
                cut.append(route.request.url)
                return route.abort()
            return route.continue_()

        page.route("**/api/tables/*/call*", thinking)
        page.route("**/api/tables/*", flaky)
        page.click("#bidbox button[data-call='Pass']")
        page.wait_for_function("document.getElementById('message').textContent.includes('asking again')")
        settled(page)
        assert len(cut) == 2 and own_moves(page) == moves + 1
        assert "asking again" not in page.inner_text("#message") and not errors, errors
