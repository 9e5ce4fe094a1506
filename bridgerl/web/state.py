"""What the web view shows of a `BridgeState`: its calls and cards as a log, the play so far, the result as a scorer
writes it, and the state a pasted hand record reaches (pure functions of the state, no server)."""

from __future__ import annotations

from bridgerl.core.bridge import CARD_OFFSET, BridgeState
from bridgerl.core.calls import call_name
from bridgerl.core.cards import SEATS, card_name
from bridgerl.core.competitive import contract_text


def actions_log(state: BridgeState) -> list[dict]:
    """Every call and card so far: the seat it was for, the player who chose it (declarer for dummy), the action."""
    log = [{"seat": SEATS[seat], "player": SEATS[seat], "action": int(call), "name": call_name(call)}
           for seat, call in ((s % 4, c) for s, c in enumerate(state.auction.calls, start=state.deal.dealer))]
    if state.play is not None:
        declarer = state.contract.declarer
        for trick in state.play.all_tricks():
            for seat, card in zip(trick.seats, trick.cards):
                player = declarer if seat == (declarer + 2) % 4 else seat
                log.append({"seat": SEATS[seat], "player": SEATS[player], "action": CARD_OFFSET + int(card),
                            "name": card_name(card)})
    return log


def _record_state(deal, record) -> BridgeState:
    """The state after a hand record's calls and cards on ``deal`` (ValueError naming an illegal one)."""
    from bridgerl.core.hand_record import record_actions

    state = BridgeState.start(deal)
    for action in record_actions(record):
        state = state.apply(int(action))
    return state


def _actions(state: BridgeState) -> list[int]:
    """Every call and card of ``state`` in order, as actions."""
    cards = () if state.play is None else state.play.history
    return [*map(int, state.auction.calls), *(CARD_OFFSET + int(card) for card in cards)]


def _action_count(state: BridgeState) -> int:
    return len(state.auction.calls) + (0 if state.play is None else len(state.play.history))


def play_summary(state: BridgeState, over: bool | None = None) -> dict:
    """What the table shows of the play so far: declarer's and the defence's tricks, the seat on lead to the
    trick in progress (none once ``over``: the state's end, or a claim), its cards, and the last completed trick with
    its winner (public information only)."""
    over = state.is_over if over is None else over
    play = state.play
    if play is None:
        return {"tricks": None, "on_lead": None, "trick": [], "last_trick": None}
    current = [{"seat": SEATS[seat], "card": card_name(card)} for seat, card in zip(play.trick.seats, play.trick.cards)]
    last = None
    if play.tricks:
        done = play.tricks[-1]
        last = {"cards": [{"seat": SEATS[seat], "card": card_name(card)} for seat, card in zip(done.seats, done.cards)],
                "winner": SEATS[play.winner_of(len(play.tricks) - 1)], "number": len(play.tricks)}
    return {"tricks": {"declarer": int(play.declarer_tricks), "defence": int(len(play.tricks) - play.declarer_tricks)},
            "on_lead": None if over else SEATS[play.trick.leader], "trick": current, "last_trick": last}


def result_text(state: BridgeState, tricks: int | None = None) -> str:
    """The result as a scorer writes it: "3NT S -4", "4HX W =", "2S N +1", "Passed out" (``tricks``: declarer's
    total when the play ended early)."""
    contract = state.contract
    if contract is None:
        return "Passed out"
    tricks = state.result().tricks if tricks is None else tricks
    over = tricks - contract.level - 6
    return f"{contract_text(contract)} {SEATS[contract.declarer]} {'=' if over == 0 else f'{over:+d}'}"
