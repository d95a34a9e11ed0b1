"""Prior knowledge as equivalent experience (``prior_visits = n0``): a child as its node's policy sees it.

Gelly & Silver (ICML 2007, "Combining online and offline knowledge in UCT", section 5) initialise a
new child's value and count from a heuristic, Q(s, a) = Q_prior(s, a) and n(s, a) = n_prior(s, a),
"equivalent experience": the number of simulations the heuristic is worth.  Their heuristic MC-RAVE
(AIJ 175, 2011, section 6) initialises the AMAF value and count the same way.  Here the heuristic
is the child's prior P_j (the game's prior kernel, a leaf evaluator's, or 1/n when uniform), turned
into a value by its odds against the uniform prior [ours: the mapping]:

    Q0_j = n P_j / (1 + n P_j)        n = the node's children; P_j = 1/n gives 1/2 (the even-game prior)

and the child's statistics as the policy sees them are those of n0 more results of mean Q0_j
[ours: counted as Bernoulli results, so SUMSQ gains n0 Q0 as SUM does]:

    COUNT' = COUNT + n0,  SUM' = SUM + n0 Q0,  SUMSQ' = SUMSQ + n0 Q0,
    MEAN' = SUM' / COUNT',  ISQRT' = 1 / sqrt(COUNT').

With RAVE the AMAF statistics the child blends gain the same n0 results of mean Q0 before the blend
(treepolicies.mcts.amaf: Q_AMAF' = (AMAF_W + n0 Q0) / (AMAF_N + n0), and the mse schedule's n and n~
are the primed counts).  So with n0 > 0 no child is untried for the policy: an index policy ranks a
new child by its prior (and, with RAVE, by its AMAF value) instead of trying every child once.  The
tree's own statistics never change: backups, the final move (most visits) and the node's visits t
that UCB1's ln t reads count real iterations only.  0 (the default) shows the children as they are.
"""
from __future__ import annotations

import math

import numba as nb

from bandits.stats import COUNT, ISQRT, MEAN, NSTAT, SUM, SUMSQ
from treepolicies.mcts.options import O_PRIOR, O_PVIS

__all__ = ["prior_value", "child_rows"]


@nb.njit(cache=True, inline="always")
def prior_value(tree, c, n, opts):
    """Q0 of child row ``c`` of a node with ``n`` children: n P / (1 + n P), P = tree.prior[c] when
    the tree keeps priors and the search uses them, else 1/n (Q0 = 1/2)."""
    if opts[O_PRIOR] > 0.0 and tree.prior.shape[0] == tree.parent.shape[0]:
        odds = n * tree.prior[c]
    else:
        odds = 1.0
    return odds / (1.0 + odds)


@nb.njit(cache=True, inline="always")
def child_rows(tree, c, j, n, opts, view):
    """view[:NSTAT, j] = child row ``c``'s statistics (its node has ``n`` children) with the n0 =
    opts[O_PVIS] results of mean Q0 added (module docstring); returns (n0, Q0), (0, 0) when off."""
    stats = tree.stats
    for i in range(NSTAT):
        view[i, j] = stats[i, c]
    n0 = opts[O_PVIS]
    if n0 <= 0.0:
        return 0.0, 0.0
    q0 = prior_value(tree, c, n, opts)
    cnt = view[COUNT, j] + n0
    total = view[SUM, j] + n0 * q0
    view[COUNT, j] = cnt
    view[SUM, j] = total
    view[SUMSQ, j] += n0 * q0
    view[MEAN, j] = total / cnt
    view[ISQRT, j] = 1.0 / math.sqrt(cnt)
    return n0, q0
