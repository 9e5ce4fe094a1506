"""Environments over the rules core: Gymnasium, OpenSpiel, PettingZoo and pure-JAX versions (`docs/envs.md`)."""
