"""Par and constructive par on 1,000 bundled deals against independent computations."""

import itertools

import numpy as np
import pytest
from endplay.types import Contract as EContract, Denom, Player, Vul

from bridgerl.core import (VULS, constructive_par, constructive_par_contract, is_vulnerable, load_dataset,
                           par_score, pbn_to_owner, score)
from bridgerl.core.dd import solve_dd_table
from reference_par import reference_par

DENOMS = [Denom.clubs, Denom.diamonds, Denom.hearts, Denom.spades, Denom.nt]
DEALS = 1000


@pytest.fixture(scope="module")
def tables():
    return load_dataset("test").dd[:DEALS]


def _brute_constructive_par(dd, side, vulnerable):
    """Best undoubled score of any contract by either player of ``side``, or 0: scored by endplay."""
    best = 0
    for level, strain, declarer in itertools.product(range(1, 8), range(5), (side, side + 2)):
        contract = EContract(level=level, denom=DENOMS[strain], declarer=Player(declarer),
                             result=int(dd[declarer, strain]) - level - 6)
        best = max(best, contract.score(Vul.both if vulnerable else Vul.none))
    return best


def test_constructive_par_matches_brute_force(tables):
    rng = np.random.default_rng(0)
    sides = rng.integers(0, 2, DEALS)
    vulnerable = rng.integers(0, 2, DEALS).astype(bool)
    batch = constructive_par(tables, sides, vulnerable)
    for i in range(DEALS):
        expected = _brute_constructive_par(tables[i], int(sides[i]), bool(vulnerable[i]))
        assert batch[i] == expected
        assert constructive_par(tables[i], int(sides[i]), bool(vulnerable[i])) == expected
        contract = constructive_par_contract(tables[i], int(sides[i]), bool(vulnerable[i]))
        if expected == 0:
            assert contract is None
        else:
            tricks = int(tables[i, contract.declarer, contract.strain])
            assert score(contract.level, contract.strain, 0, bool(vulnerable[i]), tricks) == expected


def test_par_matches_independent_minimax(tables):
    rng = np.random.default_rng(1)
    for i in range(DEALS):
        vul, dealer = VULS[int(rng.integers(4))], int(rng.integers(4))
        expected = reference_par(tables[i].tolist(), (is_vulnerable(vul, 0), is_vulnerable(vul, 1)), dealer)
        assert par_score(tables[i], vul, dealer) == expected, (i, vul, dealer)


def test_par_examples_by_hand():
    # NS make 10 tricks in hearts, EW 9 in clubs, nobody vulnerable: EW save in 5C doubled, down 2 (Appendix).
    dd = np.zeros((4, 5), dtype=np.uint8)
    dd[[0, 2], 2] = 10
    dd[[1, 3], 0] = 9
    dd[[1, 3], 2] = 3
    dd[[0, 2], 0] = 4
    assert par_score(dd, "none", 0) == 300  # NS view: +300 beats -420 for EW
    assert constructive_par(dd, 0, False) == 420 and constructive_par(dd, 1, False) == 110
    # nobody can make anything: par and constructive par are 0
    assert par_score(np.full((4, 5), 6, dtype=np.uint8), "both", 2) == 0
    assert constructive_par(np.full((4, 5), 6, dtype=np.uint8), 1, True) == 0


def test_dd_table_orientation():
    # Each player holds one whole suit: N spades, E hearts, S diamonds, W clubs. Checks the strain conversion.
    owner = pbn_to_owner("N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432")
    dd = solve_dd_table(owner)
    assert dd[0, 3] == 13 and dd[1, 2] == 13 and dd[2, 1] == 13 and dd[3, 0] == 13  # N spades, E hearts, ...
    assert dd[0, 0] == 0 and (dd[:, 4] == 0).all()  # in NT the opening leader cashes a whole suit
