"""Bidding evaluations: against constructive par (`uncontested`), in duplicate (`competitive`), cross tables,
exploitability, a system's fidelity to its agreements, the thesis' pass-failure mode (`docs/evaluation.md`)."""
