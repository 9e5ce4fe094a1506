"""What the browser tests of the page share (`tests/test_web_browser.py`): waiting for a seated table to settle,
where elements lie against the window, the hands' labels shown in full, tap targets, and agents held back."""

import contextlib
import threading

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout


@contextlib.contextmanager
def slow_agents(server):
    """Every move of the agents at the seated tables of ``server`` waits until the block ends: a slow agent, for what
    the page shows while it waits (the table's own answers, nothing of them made up)."""
    gate = threading.Event()
    step = server._agent_step

    def held(table, generation):
        gate.wait(60)
        return step(table, generation)

    server._agent_step = held
    try:
        yield
    finally:
        gate.set()
        del server._agent_step  # the method again


def settled(page, timeout=120_000):
    """Wait until the person can act at the table or the board is over (the agents done, the new cards shown); on a
    timeout, fail with what the page and the server had (the page's table, ``busy``, its message, the server's view
    of the same table), so that a slow agent and a page that stopped asking can be told apart."""
    try:
        page.wait_for_function("table && !busy && !table.thinking && (table.your_turn || table.phase === 'over')",
                               timeout=timeout)
    except PlaywrightTimeout:
        seen = page.evaluate("""async () => {
            const mine = table && {id: table.id, phase: table.phase, to_act: table.to_act, your_turn: table.your_turn,
                                   thinking: table.thinking, moves: table.log.length};
            const server = table ? await (await fetch(`/api/tables/${table.id}`)).json() : null;
            return {page: mine, busy, message: document.getElementById('message').textContent,
                    server: server && {phase: server.phase, to_act: server.to_act, your_turn: server.your_turn,
                                       thinking: server.thinking, moves: server.log.length, notice: server.notice}};
        }""")
        pytest.fail(f"the table did not settle in {timeout / 1000:.0f} s: {seen}", pytrace=False)


def own_moves(page) -> int:
    return page.evaluate("table.log.filter((x) => table.seats.includes(x.player)).length")


def element_boxes(page, selector):
    return [page.locator(selector).nth(k).bounding_box() for k in range(page.locator(selector).count())]


def in_view(page, selector) -> None:
    """Everything ``selector`` matches lies inside the window as it opens (scrolled to the top): seen without
    scrolling."""
    page.evaluate("window.scrollTo(0, 0)")
    size = page.viewport_size
    found = element_boxes(page, selector)
    outside = [box for box in found if box["x"] < 0 or box["y"] < 0 or box["x"] + box["width"] > size["width"] + 0.5
               or box["y"] + box["height"] > size["height"] + 0.5]
    assert found and not outside, (size, outside)


def labels_in_full(page) -> dict:
    """The label of each hand (who acts for it) is shown in full: nothing cut off across or down (no ellipsis) and
    nothing out of its hand's box. Returns the labels by seat."""
    labels = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('.hand .who')].map((e) => {
        const r = e.getBoundingClientRect(), hand = e.closest('.hand').getBoundingClientRect();
        const fits = e.scrollWidth <= e.clientWidth && e.scrollHeight <= e.clientHeight &&
            r.right <= hand.right + 0.5 && r.bottom <= hand.bottom + 0.5;
        return [e.closest('.hand').id.slice(-1), [e.textContent, fits]];
    }))""")
    assert len(labels) == 4 and all(fits for _, fits in labels.values()), labels
    return {seat: text for seat, (text, _) in labels.items()}


def check_tap_targets(page) -> None:
    """Every visible button, list, field, checkbox, summary and auction cell is at least 24 px each way."""
    targets = page.evaluate("""() => [...document.querySelectorAll(
            'button, select, input, summary, #auction td.call')]
        .filter((e) => e.offsetParent !== null)
        .map((e) => { const r = e.getBoundingClientRect(); return [e.id || e.textContent, r.width, r.height]; })""")
    small = [t for t in targets if t[1] < 23.5 or t[2] < 23.5]
    assert len(targets) > 10 and not small, small
