"""Contracts (thesis 2.1.4)."""

from __future__ import annotations

from dataclasses import dataclass

from .cards import SEATS, STRAINS, parse_seat, parse_strain

UNDOUBLED, DOUBLED, REDOUBLED = 0, 1, 2
PENALTY_NAMES = ("", "X", "XX")


@dataclass(frozen=True)
class Contract:
    """A final contract: level 1-7, strain 0-4, penalty 0/1/2, declarer seat 0-3."""

    level: int
    strain: int
    penalty: int = UNDOUBLED
    declarer: int = 0

    def __post_init__(self):
        if not 1 <= self.level <= 7:
            raise ValueError(f"contract level {self.level} is outside 1..7")
        if not 0 <= self.strain <= 4:
            raise ValueError(f"contract strain {self.strain} is outside 0..4 (C, D, H, S, NT)")
        if self.penalty not in (0, 1, 2):
            raise ValueError(f"contract penalty {self.penalty} must be 0 (none), 1 (X) or 2 (XX)")
        if not 0 <= self.declarer <= 3:
            raise ValueError(f"declarer {self.declarer} is outside 0..3 (N, E, S, W)")

    @property
    def bid(self) -> int:
        return (self.level - 1) * 5 + self.strain

    @property
    def tricks_needed(self) -> int:
        return self.level + 6

    @property
    def name(self) -> str:
        """'4S', '3NTX', '6HXX' (without the declarer)."""
        return f"{self.level}{STRAINS[self.strain]}{PENALTY_NAMES[self.penalty]}"

    def __str__(self) -> str:
        return f"{self.name} {SEATS[self.declarer]}"

    @staticmethod
    def name_of(contract: "Contract | None") -> str:
        """The contract's name, or 'Pass' for a pass-out (None)."""
        return "Pass" if contract is None else contract.name

    @classmethod
    def parse(cls, text: str, declarer: int | str | None = None) -> "Contract":
        """Parse '3NT', '4SX', '6HXX' or '4S N' (declarer letter may follow, or be passed)."""
        parts = text.strip().upper().split()
        if not parts or len(parts) > 2:
            raise ValueError(f"not a contract: {text!r} (expected e.g. '3NT', '4SX', '6HXX N')")
        body = parts[0]
        penalty = UNDOUBLED
        if body.endswith("XX"):
            penalty, body = REDOUBLED, body[:-2]
        elif body.endswith("X"):
            penalty, body = DOUBLED, body[:-1]
        if len(body) < 2 or body[0] not in "1234567":
            raise ValueError(f"not a contract: {text!r} (expected e.g. '3NT', '4SX', '6HXX N')")
        strain = parse_strain(body[1:])
        seat = parts[1] if len(parts) == 2 else declarer
        return cls(int(body[0]), strain, penalty, parse_seat(seat) if seat is not None else 0)
