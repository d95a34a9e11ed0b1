"""PUCT, the node policy of AlphaGo Zero and AlphaZero (Silver et al. 2017, 2018; after Rosin 2011).

    score_i = Q_i + c * P_i * sqrt(N) / (1 + n_i)

Q_i: mean reward of child i (for an unvisited child: the first-play urgency a search hands over in
its FIRST row, if finite, else ``q0``, 0 by default as in AlphaZero's pseudocode); P_i: its prior
probability (the PRIOR row of a search's view: a game's prior kernel or an evaluator; uniform 1/K
without one, e.g. on a testbed); N = t, the node's visits; n_i the child's.  The argmax, ties at
random, over the valid arms.  Unlike the index policies, unvisited children are *not* taken first:
their exploration term ranks them by prior, which is the point of PUCT.

Written through the public plugin interface (``bandits.stateful_policy``), as a user would.
Reference: D. Silver et al., "Mastering the game of Go without human knowledge", Nature 550 (2017);
C. D. Rosin, "Multi-armed bandits with episode context", AMAI 61 (2011).
"""
from __future__ import annotations

import math

import numba as nb
import numpy as np

from bandits.registry import Param, stateful_policy
from bandits.rng import randint
from bandits.stats import COUNT, FIRST, MEAN, PRIOR


@nb.njit(cache=True, error_model="numpy")
def select(params, state, arm_state, stats, valid, t, rng, work):
    """The PUCT argmax (module docstring); params = [c, q0]; scores left in ``work``."""
    c, q0 = params[0], params[1]
    k = stats.shape[1]
    with_prior = stats.shape[0] > PRIOR
    with_first = stats.shape[0] > FIRST
    root = math.sqrt(max(t, 0.0))
    best, arm, ties = -np.inf, -1, 0
    for i in range(k):
        if not valid[i]:
            work[i] = -np.inf
            continue
        n = stats[COUNT, i]
        p = stats[PRIOR, i] if with_prior else 1.0 / k
        if n > 0.0:
            q = stats[MEAN, i]
        elif with_first and math.isfinite(stats[FIRST, i]):
            q = stats[FIRST, i]
        else:
            q = q0
        s = q + c * p * root / (1.0 + n)
        if s != s:
            s = -np.inf
        work[i] = s
        if arm < 0 or s > best:
            best, arm, ties = s, i, 1
        elif s == best:
            ties += 1
            if randint(rng, ties) == 0:
                arm = i
    return arm


PUCT = stateful_policy("puct", select=select,
                       c=Param(1.5, low=0.0, high=1e6, doc="exploration constant c of c P sqrt(N) / (1 + n)"),
                       q0=Param(0.0, low=0.0, high=1.0, doc="Q of an unvisited child when the search gives no FPU"),
                       doc="PUCT: Q + c P sqrt(N) / (1 + n) (AlphaZero), priors from the search")
