"""The hand record: a deal with the auction and the play that people (or agents) had at the table, checked when it
is made, replayed into the whole-deal game of `bridge` and made from a game (`bridgerl.core.records` reads and writes
them as PBN and LIN).

A `HandRecord` holds the deal (``owner``), the board's number, dealer and vulnerability, the calls (0 Pass, 1 X,
2 XX, 3 + bid) and the cards (suit * 13 + rank) in the order they were made, and ``claimed``: declarer's total
tricks when the record ends with a claim or a result before all 52 cards were played. Every record is checked when
it is made: the calls must be legal in turn from the dealer, the cards must be played by the right seat from its
hand, following suit, and only after the auction has ended in a contract. A record may stop part-way (an auction or
a play not finished). A bad record raises ValueError in one line naming the file, the board and the problem.

A *traveller* record tells the contract and the result but not the auction (a scorer's traveller, a PBN board with
Contract, Declarer and Result tags and no Auction section): ``traveller=True``, no calls, ``final`` the contract
(None: passed out); its cards, if any, are checked against that contract. `replay` refuses it (there is no auction
to replay).

``replay(record, upto)`` gives the `BridgeState` after the first ``upto`` actions (calls then cards, the 90-action
ids of `bridge`: calls 0..37, card c -> 38 + c); ``record_of(state)`` turns a game back into a record.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .auction import Auction
from .board import parse_vul
from .bridge import CARD_OFFSET, BridgeState
from .calls import call_name
from .cards import NUM_CARDS, SEAT_NAMES, SEATS, card_name, parse_seat, validate_owner
from .contract import Contract
from .play import PlayState

SUIT_NAMES = ("club", "diamond", "heart", "spade")
_UNKNOWN = ("", "?")


def _where(source: str) -> str:
    """'records.pbn board 3' for the source 'records.pbn:3'."""
    head, sep, tail = source.rpartition(":")
    return f"{head} board {tail}" if sep and tail.isdigit() and head else source


@dataclass(frozen=True, eq=False)
class HandRecord:
    """One board as it was played: see the module docstring. Equality compares everything but ``source``."""

    board: int
    dealer: int
    vul: str
    owner: np.ndarray                      # uint8[52]: seat 0-3 (N, E, S, W) holding each card
    calls: tuple[int, ...] = ()            # 0 Pass, 1 X, 2 XX, 3 + bid
    cards: tuple[int, ...] = ()            # card ids in play order
    claimed: int | None = None             # declarer's total tricks after a claim / result with fewer than 52 cards
    names: dict = field(default_factory=dict)  # seat letter -> player name, for the seats a file names
    event: str | None = None
    source: str = "<record>"               # 'file:board', for messages
    traveller: bool = False                # the contract and result are told without the auction
    final: Contract | None = None          # a traveller's contract (None: passed out)

    def __post_init__(self):
        where = _where(self.source)
        owner = np.array(self.owner, dtype=np.int64)
        try:
            validate_owner(owner)
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
        owner = owner.astype(np.uint8)
        owner.setflags(write=False)
        set_ = object.__setattr__
        set_(self, "owner", owner)
        try:
            if int(self.board) < 1:
                raise ValueError(f"board number {self.board} must be 1 or more")
            set_(self, "board", int(self.board))
            set_(self, "dealer", parse_seat(self.dealer))
            set_(self, "vul", parse_vul(self.vul))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{where}: {exc}") from None
        set_(self, "calls", tuple(int(c) for c in self.calls))
        set_(self, "cards", tuple(int(c) for c in self.cards))
        set_(self, "claimed", None if self.claimed is None else int(self.claimed))
        set_(self, "names", {SEATS[parse_seat(k)]: str(v) for k, v in dict(self.names or {}).items()})
        set_(self, "traveller", bool(self.traveller))
        try:
            if self.traveller and self.calls:
                raise ValueError("a traveller record tells the contract without the auction: it has no calls")
            if self.final is not None and not self.traveller:
                raise ValueError("only a traveller record gives its contract (final); others take it from the calls")
            if self.final is not None and not isinstance(self.final, Contract):
                raise ValueError(f"final must be a Contract or None, got {self.final!r}")
            _check(self)
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None

    def __eq__(self, other) -> bool:
        if not isinstance(other, HandRecord):
            return NotImplemented
        return (self.board, self.dealer, self.vul, self.calls, self.cards, self.claimed, self.names, self.event,
                self.traveller, self.final) == (
            other.board, other.dealer, other.vul, other.calls, other.cards, other.claimed, other.names,
            other.event, other.traveller, other.final) and np.array_equal(self.owner, other.owner)

    __hash__ = None

    def __repr__(self) -> str:
        told = f"traveller={self.final.name if self.final else 'Pass'}, " if self.traveller else ""
        return (f"HandRecord(board={self.board}, dealer={SEATS[self.dealer]}, vul={self.vul}, {told}"
                f"calls=[{' '.join(call_name(c) for c in self.calls)}], cards={len(self.cards)}, "
                f"claimed={self.claimed}, source={self.source!r})")

    # -- what the record says -------------------------------------------------------------------------------------
    @property
    def auction(self) -> Auction:
        return Auction.from_calls(self.dealer, self.calls)

    @property
    def auction_over(self) -> bool:
        """The auction has ended (a traveller's has: its contract is told)."""
        return self.traveller or self.auction.is_over

    @property
    def passed_out(self) -> bool:
        return self.auction_over and self.contract is None

    @property
    def contract(self) -> Contract | None:
        """The final contract; None for a pass-out or an auction that is not over (see `auction_over`)."""
        if self.traveller:
            return self.final
        auction = self.auction
        return auction.contract() if auction.is_over else None

    @property
    def play_state(self) -> PlayState | None:
        """The play so far (None without a contract)."""
        contract = self.contract
        return None if contract is None else PlayState.start(self.owner, contract, self.cards)

    @property
    def tricks(self) -> int | None:
        """Declarer's tricks when the record tells them: all 13 tricks played, or a claim / result; 0 for a
        pass-out; None otherwise."""
        if not self.auction_over:
            return None
        if self.contract is None:
            return 0
        if self.claimed is not None:
            return self.claimed
        play = self.play_state
        return play.declarer_tricks if play.is_over else None


def _auction_of(dealer: int, calls) -> Auction:
    """The auction of ``calls`` from ``dealer``; ValueError naming the first illegal call."""
    auction = Auction(dealer)
    for call in calls:
        if auction.is_over:
            raise ValueError(f"call {_call_text(call)} after the end of the auction ({auction})")
        if not auction.is_legal(call):
            seat = SEAT_NAMES[auction.to_act]
            after = f"after {auction}" if auction.calls else "as the first call"
            raise ValueError(f"illegal call {_call_text(call)} by {seat} {after}")
        auction = auction.add(call)
    return auction


def _check(record: HandRecord) -> None:
    """Raise ValueError naming the first problem of the record's calls, cards and claim."""
    auction = _auction_of(record.dealer, record.calls)
    if not record.cards and record.claimed is None:
        return
    what = f"card {_card_text(record.cards[0])}" if record.cards else f"a claim of {record.claimed} tricks"
    if not record.auction_over:
        raise ValueError(f"{what} before the end of the auction ({auction})")
    if record.contract is None:
        raise ValueError(f"{what} on a passed-out board")
    play = PlayState.start(record.owner, record.contract)
    for card in record.cards:
        play = _play(play, card)
    if record.claimed is not None:
        if play.is_over:
            raise ValueError(f"a claim of {record.claimed} tricks after all 13 tricks were played")
        done, won = len(play.tricks), play.declarer_tricks
        if not won <= record.claimed <= won + 13 - done:
            raise ValueError(f"a claim of {record.claimed} tricks is impossible: declarer has won {won} of the "
                             f"{done} tricks played")


def _call_text(call: int) -> str:
    try:
        return call_name(call)
    except ValueError:
        return f"#{call} (not a call id 0..37)"


def _card_text(card: int) -> str:
    return card_name(card) if 0 <= card < NUM_CARDS else f"#{card} (not a card id 0..51)"


def _play(play: PlayState, card: int) -> PlayState:
    """``play.play(card)`` with the problem told as a bridge player would."""
    trick = len(play.tricks) + 1
    if not 0 <= card < NUM_CARDS:
        raise ValueError(f"card #{card} is not a card id 0..51 (trick {trick})")
    if play.is_over:
        raise ValueError(f"card {card_name(card)} after the 13th trick")
    seat = play.to_play
    name = SEAT_NAMES[seat]
    if not play.hands[seat] >> card & 1:
        if int(play.owner[card]) == seat:
            raise ValueError(f"card {card_name(card)} by {name} was already played (trick {trick})")
        raise ValueError(f"card {card_name(card)} is not in {name}'s hand (trick {trick}, "
                         f"{SEAT_NAMES[int(play.owner[card])]} holds it)")
    if not play.legal_mask_bits() >> card & 1:
        led = play.trick.led_suit
        held = " ".join(card_name(c) for c in play.legal_cards())
        raise ValueError(f"revoke at trick {trick}: {name} plays {card_name(card)} on a {SUIT_NAMES[led]} lead "
                         f"while holding {held}")
    return play.play(card)


# -- actions and replay ------------------------------------------------------------------------------------------
def record_actions(record: HandRecord) -> list[int]:
    """The record's moves as the 90 actions of `bridge`: the calls, then 38 + card for each card."""
    return list(record.calls) + [CARD_OFFSET + card for card in record.cards]


def replay(record: HandRecord, upto: int | None = None, play: str = "agents", dd=None) -> BridgeState:
    """The game after the first ``upto`` actions of ``record`` (calls, then cards; None: all of them).

    The deal is a `CompetitiveDeal` of the record's deal, dealer, vulnerability and board (``index`` None), with
    the DD table ``dd`` when given, else solved with DDS. With ``play="double_dummy"`` the game ends with the
    auction, so ``upto`` counts calls only (None: all the calls)."""
    from .competitive import CompetitiveDeal
    from .dd import solve_dd_table

    if record.traveller:
        raise ValueError(f"{_where(record.source)} is a traveller's result ({record.final.name if record.final else 'Pass'}"
                         " with no auction): there is no game to replay")
    actions = record_actions(record)
    available = len(record.calls) if play == "double_dummy" else len(actions)
    if upto is None:
        upto = available
    elif isinstance(upto, bool) or not isinstance(upto, (int, np.integer)) or not 0 <= int(upto) <= available:
        extra = " (with play='double_dummy' the game ends with the auction)" if play == "double_dummy" else ""
        raise ValueError(f"upto {upto!r} is outside 0..{available}: {_where(record.source)} has "
                         f"{len(record.calls)} calls and {len(record.cards)} cards{extra}")
    table = solve_dd_table(record.owner) if dd is None else np.asarray(dd)
    if table.shape != (4, 5):
        raise ValueError(f"a DD table has shape (4, 5), got {table.shape}")
    deal = CompetitiveDeal(record.owner, table, record.dealer, record.vul, record.board, None)
    state = BridgeState.start(deal, play)
    for action in actions[:int(upto)]:
        state = state.apply(action)
    return state


def record_of(state: BridgeState, board: int | None = None, names=None, event: str | None = None) -> HandRecord:
    """The record of a game (finished or not). ``names``: a dict seat -> name or four names N, E, S, W. A game
    played with ``play="double_dummy"`` records its DD tricks as ``claimed``."""
    deal = state.deal
    cards = state.play.history if state.play is not None else ()
    claimed = None
    if state.play is None and state.is_over and state.contract is not None:
        claimed = state.result().tricks
    if names is not None and not isinstance(names, dict):
        names = list(names)
        if len(names) != 4:
            raise ValueError(f"names: expected a dict seat -> name or four names (N, E, S, W), got {len(names)}")
        names = dict(zip(SEATS, names))
    board = deal.board if board is None else int(board)
    return HandRecord(board, deal.dealer, deal.vul, deal.owner, state.auction.calls, cards, claimed,
                      {k: v for k, v in (names or {}).items() if v}, event, f"<game>:{board}")


__all__ = ["HandRecord", "record_actions", "record_of", "replay"]
