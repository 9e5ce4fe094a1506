"""Duplicate scoring against endplay on every combination, and IMPs at every edge of the scale."""

import itertools

import numpy as np
import pytest
from endplay.types import Contract as EContract, Denom, Penalty, Player, Vul

from bridgerl.core import IMP_EDGES, SCORE_TABLE, imps, score

DENOMS = [Denom.clubs, Denom.diamonds, Denom.hearts, Denom.spades, Denom.nt]
PENALTIES = [Penalty.passed, Penalty.doubled, Penalty.redoubled]


def test_score_equals_endplay_on_every_combination():
    checked = 0
    for level, strain, penalty, vul, tricks in itertools.product(range(1, 8), range(5), range(3), (False, True),
                                                                 range(14)):
        for declarer in Player:
            expected = EContract(level=level, denom=DENOMS[strain], declarer=declarer, penalty=PENALTIES[penalty],
                                 result=tricks - level - 6).score(Vul.both if vul else Vul.none)
            assert score(level, strain, penalty, vul, tricks) == expected, (level, strain, penalty, vul, tricks)
            assert SCORE_TABLE[(level - 1) * 5 + strain, penalty, int(vul), tricks] == expected
            checked += 1
    assert checked == 7 * 5 * 3 * 2 * 14 * 4


@pytest.mark.parametrize("args, expected", [
    ((4, 3, 0, False, 10), 420), ((4, 3, 0, True, 10), 620),      # thesis table A.3
    ((3, 3, 0, False, 9), 140), ((3, 2, 0, True, 10), 170),
    ((2, 3, 1, False, 8), 470), ((2, 3, 1, True, 8), 670),
    ((1, 0, 2, False, 8), 430), ((1, 0, 2, True, 8), 630),
    ((2, 4, 0, False, 9), 150), ((3, 4, 0, False, 9), 400),
    ((6, 2, 0, True, 12), 1430), ((7, 4, 0, False, 13), 1520),
    ((4, 3, 1, False, 6), -800), ((4, 3, 1, True, 6), -1100),     # table A.4
    ((4, 3, 2, True, 6), -2200), ((4, 3, 0, True, 8), -200),
    ((7, 4, 1, False, 0), -3500),
])
def test_score_examples(args, expected):
    assert score(*args) == expected


def test_score_rejects_impossible_input():
    with pytest.raises(ValueError, match="tricks"):
        score(1, 0, 0, False, 14)
    with pytest.raises(ValueError, match="level"):
        score(8, 0, 0, False, 13)


TABLE_A8 = [(0, 10, 0), (20, 40, 1), (50, 80, 2), (90, 120, 3), (130, 160, 4), (170, 210, 5), (220, 260, 6),
            (270, 310, 7), (320, 360, 8), (370, 420, 9), (430, 490, 10), (500, 590, 11), (600, 740, 12),
            (750, 890, 13), (900, 1090, 14), (1100, 1290, 15), (1300, 1490, 16), (1500, 1740, 17),
            (1750, 1990, 18), (2000, 2240, 19), (2250, 2490, 20), (2500, 2990, 21), (3000, 3490, 22),
            (3500, 3990, 23)]


@pytest.mark.parametrize("low, high, expected", TABLE_A8)
def test_imps_at_both_edges_of_every_band(low, high, expected):
    for diff in (low, high):
        assert imps(diff) == expected
        assert imps(-diff) == -expected


def test_imps_top_of_scale_and_arrays():
    assert imps(4000) == 24 and imps(7600) == 24 and imps(-4000) == -24
    diffs = np.array([-4000, -10, 0, 20, 3990])
    assert imps(diffs).tolist() == [-24, 0, 0, 1, 23]
    assert len(IMP_EDGES) == 24
