"""JAX lookups shared by the JAX envs: scores and IMPs read from the core's tables."""

from __future__ import annotations

import jax.numpy as jnp

from bridgerl.core import IMP_EDGES, SCORE_TABLE

_SCORES = jnp.asarray(SCORE_TABLE)
_EDGES = jnp.asarray(IMP_EDGES)


def score(bid, penalty, vulnerable, tricks):
    """Declaring side's score from `bridgerl.core.SCORE_TABLE`."""
    return _SCORES[bid, penalty, vulnerable.astype(jnp.int32), tricks]


def imps(difference):
    """Signed IMPs from `bridgerl.core.IMP_EDGES`."""
    magnitude = jnp.searchsorted(_EDGES, jnp.abs(difference), side="right")
    return jnp.sign(difference) * magnitude
