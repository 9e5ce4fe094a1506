"""An independent par solver for the tests: minimax over the auction game of the thesis Appendix ("Par Result").

The sides take turns to outbid (any higher contract, declared by their better declarer) or to let the last
contract stand; a contract that goes down is doubled. The dealer's side has the first chance to bid.
Scores come from endplay's ``Contract.score``, not from bridgerl.
"""

from functools import lru_cache

from endplay.types import Contract as EContract, Denom, Penalty, Player, Vul

_DENOMS = [Denom.clubs, Denom.diamonds, Denom.hearts, Denom.spades, Denom.nt]


def _score(level, strain, declarer, tricks, vul_flags):
    penalty = Penalty.passed if tricks >= level + 6 else Penalty.doubled
    contract = EContract(level=level, denom=_DENOMS[strain], declarer=Player(declarer), penalty=penalty,
                         result=tricks - level - 6)
    return contract.score(Vul.both if vul_flags[declarer % 2] else Vul.none)


def reference_par(dd, vul_flags, dealer):
    """NS par score. dd[seat][strain] tricks, vul_flags = (ns_vulnerable, ew_vulnerable)."""
    sign = (1, -1)

    def settle(bid, side):
        strain, level = bid % 5, bid // 5 + 1
        declarer = side if dd[side][strain] >= dd[side + 2][strain] else side + 2
        return sign[side] * _score(level, strain, declarer, dd[declarer][strain], vul_flags)

    def better(side, a, b):  # the value ``side`` prefers, in NS points
        return max(a, b) if side == 0 else min(a, b)

    @lru_cache(maxsize=None)
    def after_bid(bid, side):
        other = 1 - side
        value = settle(bid, side)
        for higher in range(bid + 1, 35):
            value = better(other, value, after_bid(higher, other))
        return value

    def best_opening(side):
        value = None
        for bid in range(35):
            v = after_bid(bid, side)
            value = v if value is None else better(side, value, v)
        return value

    d, o = dealer % 2, 1 - dealer % 2
    fourth = better(o, 0, best_opening(o))
    third = better(d, fourth, best_opening(d))
    second = better(o, third, best_opening(o))
    return better(d, second, best_opening(d))
