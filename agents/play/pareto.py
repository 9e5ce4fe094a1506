"""Pareto fronts of 0/1 outcome vectors (αμ paper, sections 3 and 4.3-4.7).

A vector is an int bitmask over possible worlds: bit w set = the contract is made in world w. All vectors of one
front share the node's set of valid worlds. ``a`` dominates ``b`` when a >= b in every world (``b & ~a == 0``).
"""

from __future__ import annotations


def dominates(a: int, b: int) -> bool:
    """a >= b in every world."""
    return b & ~a == 0


def insert(front: list[int], vector: int) -> list[int]:
    """The front with ``vector`` added: unchanged if some member dominates it, else without the members it
    dominates."""
    if any(dominates(member, vector) for member in front):
        return front
    return [member for member in front if not dominates(vector, member)] + [vector]


def reduce(vectors) -> list[int]:
    """The non-dominated vectors (each once)."""
    front: list[int] = []
    for vector in sorted(set(vectors), key=lambda v: -v.bit_count()):
        front = insert(front, vector)
    return front


def union(a: list[int], b: list[int]) -> list[int]:
    """Max node: Max may pick any member of either front."""
    for vector in b:
        a = insert(a, vector)
    return a


def min_product(a: list[int], b: list[int]) -> list[int]:
    """Min node: world by world minimum of every pair (one member of each front), reduced (paper algorithm 4)."""
    return reduce(x & y for x in a for y in b)


def front_leq(a: list[int], b: list[int]) -> bool:
    """a <= b: every member of ``a`` is dominated by a member of ``b`` (paper algorithm 5)."""
    return all(any(dominates(y, x) for y in b) for x in a)


def score(front: list[int], valid: int) -> float:
    """Best mean outcome over the valid worlds among the front's vectors (0 for an empty front)."""
    count = valid.bit_count()
    if not front or count == 0:
        return 0.0
    return max(v.bit_count() for v in front) / count
