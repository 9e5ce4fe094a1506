"""Evaluation against constructive par and in duplicate matches (`docs/evaluation.md`)."""
