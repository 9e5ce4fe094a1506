"""The papers' play examples rebuilt as hand-made endings and proved with the best-defence solver (issue #19).

Frank & Basin (AI 1998, section 7.1, figures 20-22) show strategy fusion and non-locality on one suit, and the
thesis (3.3.6, figure 3.10, table 3.2) a safety play that mean-tricks PIMC misses. The figures are lost in the text
we have, so each position below is built to have the property the prose describes, small enough for
`best_defence_values` (at most four tricks left); docs/play.md shows them as diagrams and says what was adapted.
Every number asserted is derived by hand in the comments next to it.

Each deal is played to its ending by earlier tricks in which the defenders always follow suit (only North and
South discard), so no defender has shown a void and every layout of the defenders' remaining cards is a world.
"""

import math
from collections import defaultdict
from fractions import Fraction

import numpy as np
import pytest

from bridgerl.agents import PIMCAgent
from bridgerl.agents.play.best_defence import best_defence_values
from bridgerl.core import Contract, pbn_to_owner
from bridgerl.core.cards import card_name, parse_card
from bridgerl.core.play import PlayState
from bridgerl.envs import sample_worlds, view_of

EAST, WEST = 1, 3


def cards(text: str) -> set[int]:
    return {parse_card(c) for c in text.split()}


def hands_left(state: PlayState) -> dict[str, set[int]]:
    """Each seat's cards not yet played (a card of the trick in progress counts as played)."""
    played = set(state.history)
    return {"NESW"[seat]: {c for c in range(52) if state.owner[c] == seat and c not in played} for seat in range(4)}


def all_worlds(view) -> np.ndarray:
    """Every layout consistent with the view, each once (the sampler lists them all when there are few)."""
    return sample_worlds(view, 1000, seed=0)


def in_world(state: PlayState, world: np.ndarray) -> PlayState:
    """The same cards played, in another world (the declaring side's cards and the played cards are the same)."""
    return PlayState.start(world, state.contract, state.history)


def holding(state: PlayState, seat: int, of: str) -> str:
    """Which of the cards ``of`` (named, high to low) ``seat`` still holds in ``state``: 'QJ', '9', '-'."""
    left = hands_left(state)["NESW"[seat]]
    return "".join(name[1] for name in of.split() if parse_card(name) in left) or "-"


def makes(state: PlayState, policy, need: int) -> bool:
    """Whether the declaring side, choosing its cards with ``policy`` (a function of what it sees: the play so far
    and its own two hands), reaches ``need`` tricks in this deal against every defence; the defence sees all cards
    (the best-defence model's world-by-world minimum, for one fixed declarer strategy)."""
    if state.declarer_tricks >= need:
        return True
    if state.declarer_tricks + 13 - len(state.tricks) < need:
        return False
    if state.controller % 2 == state.declarer % 2:
        return makes(state.play(policy(state)), policy, need)
    return all(makes(state.play(card), policy, need) for card in state.legal_cards())


def tally(state: PlayState, policy, seat: int, of: str) -> dict[str, int]:
    """Worlds (consistent with the view at ``state``) that ``policy`` makes, by ``seat``'s holding of ``of``."""
    made = defaultdict(int)
    for world in all_worlds(view_of(state)):
        deal = in_world(state, world)
        made[holding(deal, seat, of)] += makes(deal, policy, state.contract.tricks_needed)
    return dict(made)


def by_holding(state: PlayState, seat: int, of: str) -> dict[str, int]:
    """Worlds consistent with the view at ``state``, counted by ``seat``'s holding of ``of``."""
    counts = defaultdict(int)
    for world in all_worlds(view_of(state)):
        counts[holding(in_world(state, world), seat, of)] += 1
    return dict(counts)


def values(view, worlds=None) -> dict[str, Fraction]:
    """best_defence_values by card name, as exact fractions of the worlds."""
    count = len(all_worlds(view) if worlds is None else worlds)
    return {card_name(card): Fraction(round(value * count), count) for card, value in best_defence_values(view).items()}


# ---------------------------------------------------------------------------------------------------------------
# Frank & Basin figures 20-22, rebuilt. 3NT by South; declarer has won 5 of the first 9 tricks and needs all four
# that are left. South is on lead (the position one round earlier, "figure 22"):
#
#                 North  S K T 4  H A
#     West  S 9 8  H 6 5          East  S Q J  H 4 3
#                 South  S A 3 2  H 2
#
# Declarer cashes the spade ace and East drops an honour ("figure 20", three tricks left, South to lead again):
# the jack and the nine are the only spades out, with the four low hearts.
FIG22_DEAL = pbn_to_owner("N:KT54.AT987.AT62. QJ.J43.J73.AQT54 A7632.K2.Q84.872 98.Q65.K95.KJ963")
FIG22_PLAY = ("C3 S5 C4 C2 C5 C7 C6 H9 C8 C9 H8 CT CQ S7 CJ H7 CA S6 CK D2 D3 D4 D5 D6 DT D7 D8 D9 DA DJ DQ DK "
              "HT HJ HK HQ").split()
FIRST_ROUND = ["SA", "S8", "S4", "SQ"]  # South's ace, West's eight, North's four, East's queen


def fig22() -> PlayState:
    return PlayState.start(FIG22_DEAL, Contract.parse("3NT S"), FIG22_PLAY)


def fig20() -> PlayState:
    return PlayState.start(FIG22_DEAL, Contract.parse("3NT S"), FIG22_PLAY + FIRST_ROUND)


def ending_line(after_east_honour: str):
    """Declarer's strategy from figure 22: cash the ace, then lead a low spade towards K T; North covers an honour
    from West with the king, and when no honour shows from West it plays ``after_east_honour`` ('ST': finesse
    West for the missing honour, 'SK': play for the drop) if East dropped one under the ace, else the king. Later
    North cashes the king, the heart ace, then the ten; South follows low."""
    spade_ace, honours = parse_card("SA"), cards("SQ SJ")

    def policy(state: PlayState) -> int:
        trick, legal = state.trick.cards, state.legal_cards()
        if state.to_play == 2 and not trick:  # South leads: the ace, else a low spade
            return spade_ace if spade_ace in legal else min(c for c in legal if c // 13 == 3)
        if state.to_play == 0 and trick:  # North follows
            if len(state.tricks) == 9:
                return min(legal)  # under the ace: the four
            if trick[1] in honours:  # West plays an honour: cover
                return parse_card("SK")
            east_dropped = state.tricks[9].cards[3] in honours  # the first round: S, W, N, E
            return parse_card(after_east_honour if east_dropped else "SK")
        if state.to_play == 0:  # North leads
            for name in ("SK", "HA", "ST"):
                if parse_card(name) in legal:
                    return parse_card(name)
        return min(legal)  # South follows low

    return policy


FINESSE, DROP = ending_line("ST"), ending_line("SK")


def test_the_positions_are_the_diagrams():
    for state, left, worlds in ((fig22(), {"N": "SK ST S4 HA", "S": "SA S3 S2 H2"}, 70),
                                (fig20(), {"N": "SK ST HA", "S": "S3 S2 H2"}, 20)):
        view = view_of(state)
        assert {seat: hands_left(state)[seat] for seat in "NS"} == {seat: cards(c) for seat, c in left.items()}
        assert not view.voids[[EAST, WEST]].any()  # the defenders have followed suit throughout
        east_cards = 13 - len(state.tricks)  # East holds that many of the unseen cards, West the rest
        assert len(all_worlds(view)) == worlds == math.comb(len(view.unseen_cards()), east_cards)
        assert view.tricks_needed - view.tricks_won == 13 - len(state.tricks)  # every trick left is needed


def test_fig20_21_strategy_fusion():
    """Figure 20 with South to lead: the per-world table (figure 21) of the two ways to guess after a low spade.

    East holds (of J 9) | worlds | finesse the ten | play for the drop (king)
    J 9                 |   4    |        -        |        -       (J guarded behind K T: lost on any line)
    J                   |   6    |        -        |        +       (the king drops East's singleton jack)
    9                   |   6    |        +        |        +       (West's jack is his last spade: it must show)
    -  (West J 9)       |   4    |        +        |        -       (West plays the nine; the ten holds)
    total of 20         |        |       10        |       12

    (East has 3 of the 6 unseen cards: with k of the J and 9 he has 3-k of the four hearts, C(4, 3-k) worlds.)
    No strategy takes both the 'J' and the '-' worlds, so the best share is 12/20 (the drop); leading the heart to
    the ace and cashing the king drops a singleton jack the same 12 ways without a guess. Double dummy a low spade
    wins every world but 'J 9' (each other world has its right guess): PIMC rates it 16/20, the heart 12/20."""
    state = fig20()
    view = view_of(state)
    assert by_holding(state, EAST, "SJ S9") == {"J9": 4, "J": 6, "9": 6, "-": 4}
    assert tally(state, FINESSE, EAST, "SJ S9") == {"J9": 0, "J": 0, "9": 6, "-": 4}
    assert tally(state, DROP, EAST, "SJ S9") == {"J9": 0, "J": 6, "9": 6, "-": 0}
    assert values(view) == {"S2": Fraction(12, 20), "S3": Fraction(12, 20), "H2": Fraction(12, 20)}

    worlds = all_worlds(view)
    pimc = PIMCAgent(objective="make", seed=0)
    made = pimc.card_values(view, worlds)
    assert made[parse_card("S3")] == made[parse_card("S2")] == pytest.approx(16 / 20)  # strategy fusion
    assert made[parse_card("H2")] == pytest.approx(12 / 20)
    assert PIMCAgent(worlds=100, objective="make", seed=0).act(view) == parse_card("S2")  # the guess, at 0.8


def test_fig22_non_locality():
    """Figure 22, one round earlier: East's honour under the ace is a choice only when he holds both.

    East holds (of Q J 9 8)                      | worlds | finesse after East's honour | drop after it
    Q or J alone                                 |  4+4   |             +               |      -
    Q J (doubleton)                              |   6    |             -               |      +
    9 8, or an honour and a spot (Q9 Q8 J9 J8)   |  6+24  |             +               |      +
    -, 9, 8, J98, Q98, QJ8, QJ9, QJ98            |   26   |             -               |      -
    total of 70                                  |        |            38               |     36

    (A holding of k of the four spades comes with 4-k of the four hearts: C(4, 4-k) worlds. '9 8' and the
    honour-and-spot holdings leave West's honour his last spade by round two, so it falls or is covered; in the 26
    an honour stays guarded behind North's K T, or West holds both honours with a spot: lost on any line.)
    With the Q J doubleton East drops whichever honour the declarer's plan mishandles, so the drop must be played
    after both honours to win those 6 worlds, and then loses the 8 singletons: the best share is (30 + 8)/70.
    Judged from figure 20 alone (uniform over its 20 worlds) the drop is better, 12 to 10: East has three places
    for the jack to West's two, so after West's nine, 6 worlds have the jack with East and 4 with West. From
    figure 22 the finesse is right (restricted choice): counting figure 20's worlds alike treats the 6 where East
    had Q J as if the queen were forced, but there East chose it, and would have dropped the jack against the
    drop; the value of the play after the queen depends on the play after the jack, elsewhere in the tree."""
    before = fig22()
    assert by_holding(before, EAST, "SQ SJ S9 S8") == {
        "-": 1, "9": 4, "8": 4, "Q": 4, "J": 4, "98": 6, "Q9": 6, "Q8": 6, "J9": 6, "J8": 6, "QJ": 6,
        "Q98": 4, "J98": 4, "QJ9": 4, "QJ8": 4, "QJ98": 1}
    assert tally(before, FINESSE, EAST, "SQ SJ S9 S8") == {
        "-": 0, "9": 0, "8": 0, "Q": 4, "J": 4, "98": 6, "Q9": 6, "Q8": 6, "J9": 6, "J8": 6, "QJ": 0,
        "Q98": 0, "J98": 0, "QJ9": 0, "QJ8": 0, "QJ98": 0}
    assert tally(before, DROP, EAST, "SQ SJ S9 S8") == {
        "-": 0, "9": 0, "8": 0, "Q": 0, "J": 0, "98": 6, "Q9": 6, "Q8": 6, "J9": 6, "J8": 6, "QJ": 6,
        "Q98": 0, "J98": 0, "QJ9": 0, "QJ8": 0, "QJ98": 0}
    before_values = values(view_of(before))
    assert before_values["SA"] == Fraction(38, 70) == max(before_values.values())  # the finesse is optimal

    # the guess itself, at figure 20 after the low spade and West's nine: worlds 6 (East J) to 4 (West J)
    guess = PlayState.start(FIG22_DEAL, Contract.parse("3NT S"), FIG22_PLAY + FIRST_ROUND + ["S3", "S9"])
    assert values(view_of(guess)) == {"SK": Fraction(6, 10), "ST": Fraction(4, 10)}


# ---------------------------------------------------------------------------------------------------------------
# Thesis figure 3.10 / table 3.2, rebuilt: 3NT by South, declarer has won 6 of the first 9 tricks and needs 3 of
# the last 4. South has led the spade three and West followed with the four; North (dummy) to play:
#
#                 North  S A Q  H A K
#     West  (3 cards)              East  (4 cards)
#                 South  H 2  D 3 2        unseen: S K 9 8 7 6, D K, H 5
#
# The ace guarantees 3 tricks (ace, heart ace and king; the queen loses to the king at the end). The queen
# (a finesse) takes 4 when West holds the king, but when East does he wins it and cashes the diamond king if he
# holds it too. East always holds at least two spades (only two unseen cards are not spades), so the king never
# falls under the ace: the safe line's result is 3 in every world, like the thesis' low diamond (9.0 +- 0.0).
SAFETY_DEAL = pbn_to_owner("N:AQ2.AKQ83.A954.5 J96.954.KT6.QJ82 53.T62.J732.A963 KT874.J7.Q8.KT74")
SAFETY_PLAY = ("C4 C5 C2 C3 D9 D6 D7 D8 DA DT DJ DQ H8 H4 H6 H7 HQ H9 HT HJ S2 SJ S5 ST C8 C6 C7 H3 CJ C9 CT D5 "
               "CQ CA CK D4 S3 S4").split()


def test_thesis_fig310_safety_play():
    """East holds (of the unseen 7, 4 cards; West 3) | worlds | spade queen | spade ace
    K with West                                     | C(6,2) = 15 |  4  |  3
    K with East, D K with West                      | C(5,3) = 10 |  3  |  3   (East wins the king, no entry)
    K and D K with East                             | C(5,2) = 10 |  2  |  3   (East cashes the diamond: one down)

    Mean tricks: queen (15*4 + 10*3 + 10*2)/35 = 22/7 = 3.143, ace 3. The queen's sample deviation (ddof 1):
    sum of squares 15*16 + 10*9 + 10*4 - 35*(22/7)^2 = 170/7 over 34 = 5/7, sigma = 0.845; mean - sigma = 2.298
    < 3 - 0. Best defence: the ace makes in all 35 worlds, the queen in 25 (all but the 10 where East has both
    kings). Mean tricks plays the queen; the sigma goal (both reach the 3 needed) plays the ace."""
    state = PlayState.start(SAFETY_DEAL, Contract.parse("3NT S"), SAFETY_PLAY)
    view = view_of(state)
    assert hands_left(state)["N"] == cards("SA SQ HA HK") and hands_left(state)["S"] == cards("H2 D3 D2")
    assert not view.voids[[EAST, WEST]].any()
    worlds = all_worlds(view)
    assert len(worlds) == 35 and view.tricks_needed - view.tricks_won == 3
    queen, ace = parse_card("SQ"), parse_card("SA")
    assert sorted(view.legal) == sorted([queen, ace])

    dd = {}  # per world, the double-dummy tricks of each card (the PIMC agent with that world alone)
    for world in worlds:
        deal = in_world(state, world)
        key = ("K with West" if deal.owner[parse_card("SK")] == WEST
               else "both kings East" if deal.owner[parse_card("DK")] == EAST else "K East, D K West")
        tricks = PIMCAgent(seed=0).card_values(view, world[None])
        dd.setdefault(key, []).append((tricks[queen], tricks[ace]))
    assert {key: (len(v), set(v)) for key, v in dd.items()} == {
        "K with West": (15, {(4, 3)}), "K East, D K West": (10, {(3, 3)}), "both kings East": (10, {(2, 3)})}

    assert values(view) == {"SQ": Fraction(25, 35), "SA": Fraction(35, 35)}
    mean = PIMCAgent(seed=0).card_values(view, worlds)
    assert mean[queen] == pytest.approx(22 / 7) and mean[ace] == pytest.approx(3.0)
    sigma = PIMCAgent(seed=0, goal="sigma").card_values(view, worlds)
    assert sigma[queen] == pytest.approx(22 / 7 - math.sqrt(5 / 7)) and sigma[ace] == pytest.approx(3.0)
    # the agents sampling 100 worlds get all 35 (each once), so they decide on exactly these numbers
    assert len(PIMCAgent(worlds=100, seed=0).sample(view)) == 35
    assert PIMCAgent(worlds=100, seed=0).act(view) == queen
    assert PIMCAgent(worlds=100, seed=0, goal="sigma").act(view) == ace
