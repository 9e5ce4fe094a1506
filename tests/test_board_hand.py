"""Dealer and vulnerability by board (table A.5), cards and PBN, hand features."""

import numpy as np
import pytest
from endplay.types import Vul

from bridgerl.core import (card_name, dealer_for_board, hcp, is_balanced, is_balanced_lengths, is_vulnerable, owner_to_pbn, parse_card,
                           parse_seat, pbn_to_owner, suit_lengths, vul_for_board)
from bridgerl.core.dd import vul_to_endplay

EXAMPLE = "N:6.JT72.AQ8642.72 QJ753.K53.3.AK98 K82.864.KJT75.53 AT94.AQ9.9.QJT64"


def test_table_a5():
    expected = {"none": [1, 8, 11, 14], "NS": [2, 5, 12, 15], "EW": [3, 6, 9, 16], "both": [4, 7, 10, 13]}
    for vul, boards in expected.items():
        for board in boards:
            assert vul_for_board(board) == vul and vul_for_board(board + 16) == vul
    for board in range(1, 65):
        assert dealer_for_board(board) == (board - 1) % 4
        assert vul_to_endplay(vul_for_board(board)) == Vul.from_board(board)
    assert is_vulnerable("NS", 2) and not is_vulnerable("NS", 3) and is_vulnerable("both", 1)
    with pytest.raises(ValueError, match="board number"):
        vul_for_board(0)


def test_pbn_round_trip_and_errors():
    owner = pbn_to_owner(EXAMPLE)
    assert owner_to_pbn(owner) == EXAMPLE
    assert (pbn_to_owner("E:" + " ".join(EXAMPLE[2:].split()[1:] + EXAMPLE[2:].split()[:1])) == owner).all()
    assert owner[parse_card("SA")] == 3 and owner[parse_card("C2")] == 0 and card_name(51) == "SA"
    with pytest.raises(ValueError, match="appears twice"):
        pbn_to_owner("N:AA.JT72.AQ8642.72 QJ753.K53.3.AK98 K82.864.KJT75.53 T94.AQ9.9.QJT64")
    with pytest.raises(ValueError, match="expected 4 hands"):
        pbn_to_owner("N:6.JT72.AQ8642.72")
    with pytest.raises(ValueError, match="not a rank"):
        pbn_to_owner("N:6.JZ72.AQ8642.72 QJ753.K53.3.AK98 K82.864.KJT75.53 AT94.AQ9.9.QJT64")
    with pytest.raises(ValueError, match="not a seat"):
        parse_seat("Q")


def test_hand_features():
    owner = pbn_to_owner(EXAMPLE)
    assert hcp(owner, 0) == 7 and hcp(owner, 1) == 13 and hcp(owner, 3) == 13
    assert sum(hcp(owner, s) for s in range(4)) == 40
    assert suit_lengths(owner, 0).tolist() == [2, 6, 4, 1]  # clubs, diamonds, hearts, spades
    assert suit_lengths(owner, 3).tolist() == [5, 1, 3, 4]
    balanced = pbn_to_owner("N:AK2.Q32.K432.J32 QJ3.K54.QJ65.Q54 T987.JT9.T9.T987 654.A876.A87.AK6")
    assert is_balanced(balanced, 0) and is_balanced(balanced, 1) and is_balanced(balanced, 3)
    assert is_balanced(balanced, 2)  # 4-3-2-4
    assert is_balanced(owner, 2) and not is_balanced(owner, 0) and not is_balanced(owner, 1)  # 5-3-3-2, 1-4-6-2
    shapes = {(4, 3, 3, 3): True, (4, 4, 3, 2): True, (5, 3, 3, 2): True, (4, 4, 4, 1): False, (5, 4, 2, 2): False,
              (6, 3, 2, 2): False, (4, 4, 5, 0): False, (7, 2, 2, 2): False, (6, 3, 3, 1): False}
    for shape, expected in shapes.items():
        assert bool(is_balanced_lengths(np.array(shape))) is expected, shape
    batch = np.stack([owner, balanced])
    assert hcp(batch, np.array([0, 0])).tolist() == [7, 13]
