"""Gumbel MuZero's policies (Danihelka, Guez, Schrittwieser & Silver 2022, "Policy improvement by
planning with Gumbel", ICLR; DeepMind's mctx ``gumbel_muzero_policy``): ``gumbel`` at the root,
``gumbelq`` inside the tree.

Notation for one node with K valid arms (children): N_i visits of arm i, Q_i its mean reward (for
the player choosing here), p_i its prior probability (the PRIOR row a search shows its policies
with priors on: a game's prior kernel or an evaluator; 1/K without one), logits l_i = log p_i.

Completed Q (section 4, appendix D; mctx ``qtransform_completed_by_mix_value``)::

    v_mix  = (v_hat + sum_b N_b  *  sum_{b: N_b > 0} p_b Q_b / sum_{b: N_b > 0} p_b) / (1 + sum_b N_b)
    q_i    = Q_i if N_i > 0 else v_mix
    q_i    = (q_i - min_b q_b) / max(max_b q_b - min_b q_b, 1e-8)            (rescaled, as mctx)
    sigma_i = (c_visit + max_b N_b) * c_scale * q_i

v_hat is the node's own value estimate, which MuZero takes from its network.  [OURS] A search with
playouts has no separate estimate: v_hat = the visit-weighted mean of the children,
sum_b N_b Q_b / sum_b N_b, and ``v0`` (1/2: nothing known) before any visit.

``gumbel`` (the root; Algorithm 2, "sequential halving with Gumbel")::

    at its first selection draw g_i ~ Gumbel(0, 1) for every arm (from the search's stream)
    m' = min(m, K); the n-th simulation through the root (n = sum_b N_b) may only take arms with
    N_i = V(m', T, n), the visit count mctx's get_table_of_considered_visits gives:
        phases of m', m'/2, ... (at least 2) arms; a phase of c arms gives each
        e = max(1, floor(T / (ceil(log2 m') c))) visits, one round of c at a time
    among those, the argmax of g_i + l_i + sigma_i (ties at random)

so the first m' simulations visit the top-m' arms by g + l (Gumbel-top-m sampling without
replacement), and each later phase keeps the better half by g + l + sigma.  Past the budget T
the phases of two arms go on.  [OURS] Should no arm have N_i = V (a reused tree, or arms the
solver proved), the arms with N_i < V are taken instead, and failing those all valid arms.
Recommendation (``Policy.recommend``; a search's ``final="recommend"``): among the arms with the
most visits, the argmax of g_i + l_i + sigma_i.

``gumbelq`` (the interior; section 5, equation 14; mctx ``gumbel_muzero_interior_action_selection``)::

    pi'_i = softmax(l + sigma)_i        argmax_i  pi'_i - N_i / (1 + sum_b N_b)     (ties at random)

a deterministic choice whose visit distribution tracks the improved policy pi'.

Defaults: m = 16, c_visit = 50, c_scale = 1 (the paper's; mctx's gumbel_muzero_policy defaults
to c_scale = 0.1).  ``horizon`` is the budget T, bound to the search's iterations when unset.
Written through the public plugin interface (:func:`bandits.stateful_policy` with its
``recommend=`` kernel), as a user's policy is.
"""
from __future__ import annotations

import math

import numba as nb
import numpy as np

import bandits
from bandits.rng import randint, uniform
from bandits.stats import COUNT, MEAN, PRIOR

_G = 0         # arm_state row: the Gumbel draw g_i
_DRAWN = 0     # state column: 1.0 once the draws are made
_LOW_LOGIT = -1e9
_TINY = 1e-30  # smallest prior probability (mctx: the float's smallest normal number)


@nb.njit(cache=True)
def considered_visit(m, budget, n):
    """V(m, T, n): the visit count an arm must have to take the n-th simulation (n = 0, 1, ...) of
    sequential halving over m arms with budget T (module docstring; mctx's
    get_sequence_of_considered_visits(m, T)[n], continued past T).  m <= 1: n."""
    if m <= 1:
        return n
    log2max = math.ceil(math.log2(m))
    c, base, start = m, 0, 0
    while True:
        e = max(1, int(budget / (log2max * c)))
        if n < start + e * c:
            return base + (n - start) // c
        start += e * c
        base += e
        c = max(2, c // 2)


@nb.njit(cache=True)
def _prior(stats, valid, i, k_valid):
    if stats.shape[0] > PRIOR:
        return max(stats[PRIOR, i], _TINY)
    return 1.0 / k_valid


@nb.njit(cache=True)
def sigma_completed_q(c_visit, c_scale, v0, stats, valid, out):
    """out[i] = sigma_i of the completed, rescaled Q (module docstring) for the valid arms (-inf for
    the others); returns the number of valid arms."""
    k = stats.shape[1]
    k_valid = 0
    for i in range(k):
        if valid[i]:
            k_valid += 1
    total, top, sum_nq, sum_p, sum_pq = 0.0, 0.0, 0.0, 0.0, 0.0
    for i in range(k):
        if valid[i]:
            n = stats[COUNT, i]
            total += n
            top = max(top, n)
            if n > 0.0:
                q = stats[MEAN, i]
                p = _prior(stats, valid, i, k_valid)
                sum_nq += n * q
                sum_p += p
                sum_pq += p * q
    v_hat = sum_nq / total if total > 0.0 else v0
    mixed = (v_hat + total * sum_pq / sum_p) / (1.0 + total) if sum_p > 0.0 else v_hat
    lo, hi = math.inf, -math.inf
    for i in range(k):
        if valid[i]:
            q = stats[MEAN, i] if stats[COUNT, i] > 0.0 else mixed
            out[i] = q
            lo = min(lo, q)
            hi = max(hi, q)
        else:
            out[i] = -math.inf
    scale = (c_visit + top) * c_scale / max(hi - lo, 1e-8)
    for i in range(k):
        if valid[i]:
            out[i] = (out[i] - lo) * scale
    return k_valid


@nb.njit(cache=True)
def _draw(arm_state, k, rng):
    for i in range(k):
        u = max(uniform(rng), 1e-300)
        arm_state[_G, i] = -math.log(-math.log(u))


@nb.njit(cache=True)
def _best_score(arm_state, stats, valid, work, rng, mode, target):
    """argmax of g + l + sigma (sigma in work) over the valid arms with N == target (mode 0), N <
    target (mode 1) or any (mode 2), ties at random; -1 when no arm qualifies."""
    k = stats.shape[1]
    k_valid = 0
    for i in range(k):
        if valid[i]:
            k_valid += 1
    best, arm, ties = -math.inf, -1, 0
    for i in range(k):
        if not valid[i]:
            continue
        n = stats[COUNT, i]
        if (mode == 0 and n != target) or (mode == 1 and n >= target):
            continue
        s = max(_LOW_LOGIT, arm_state[_G, i] + math.log(_prior(stats, valid, i, k_valid)) + work[i])
        if arm < 0 or s > best:
            best, arm, ties = s, i, 1
        elif s == best:
            ties += 1
            if randint(rng, ties) == 0:
                arm = i
    return arm


@nb.njit(cache=True)
def gumbel_init(params, state, arm_state, valid):
    """No draws yet (they are made at the first selection, from the search's stream)."""
    state[_DRAWN] = 0.0
    for i in range(arm_state.shape[1]):
        arm_state[_G, i] = 0.0


@nb.njit(cache=True)
def gumbel_select(params, state, arm_state, stats, valid, t, rng, work):
    """Sequential halving with Gumbel (module docstring); params = [T, m, c_visit, c_scale, v0]."""
    k = stats.shape[1]
    if state[_DRAWN] == 0.0:
        _draw(arm_state, k, rng)
        state[_DRAWN] = 1.0
    k_valid = sigma_completed_q(params[2], params[3], params[4], stats, valid, work)
    if k_valid == 0:
        return -1
    n = 0
    for i in range(k):
        if valid[i]:
            n += int(stats[COUNT, i])
    target = considered_visit(min(int(params[1]), k_valid), params[0], n)
    for mode in range(3):
        arm = _best_score(arm_state, stats, valid, work, rng, mode, target)
        if arm >= 0:
            return arm
    return -1  # pragma: no cover (k_valid > 0)


@nb.njit(cache=True)
def gumbel_recommend(params, state, arm_state, stats, valid, rng, out):
    """out[b]: among bandit b's most visited valid arms, the argmax of g + l + sigma."""
    work = np.empty(valid.shape[1])
    for b in range(valid.shape[0]):
        if state[b, _DRAWN] == 0.0:
            _draw(arm_state[b], valid.shape[1], rng)
        sigma_completed_q(params[2], params[3], params[4], stats[b], valid[b], work)
        top = -1.0
        for i in range(valid.shape[1]):
            if valid[b, i]:
                top = max(top, stats[b, COUNT, i])
        out[b] = _best_score(arm_state[b], stats[b], valid[b], work, rng, 0, top)


Gumbel = bandits.stateful_policy(
    "gumbel", select=gumbel_select, init=gumbel_init, recommend=gumbel_recommend, state_width=1, arm_state_width=1,
    horizon=bandits.Param(None, doc="the budget T of the halving schedule (bound to the search's iterations)"),
    m=bandits.Param(16, low=1, high=1e6, doc="max_considered: the arms sampled by Gumbel-top-m"),
    c_visit=bandits.Param(50.0, low=0.0, high=1e9, doc="c_visit of sigma = (c_visit + max N) c_scale q"),
    c_scale=bandits.Param(1.0, low=0.0, high=1e9, doc="c_scale of sigma (mctx's default is 0.1)"),
    v0=bandits.Param(0.5, low=0.0, high=1.0, doc="[OURS] the node value v_hat before any visit"),
    doc="Gumbel MuZero's root (Danihelka et al. 2022): Gumbel-top-m sampling and sequential halving on "
        "g + logits + sigma(completed Q); recommends the best of the most visited arms")


@nb.njit(cache=True)
def gumbelq_select(params, state, arm_state, stats, valid, t, rng, work):
    """argmax softmax(l + sigma)_i - N_i / (1 + sum N) (module docstring); params = [c_visit, c_scale, v0]."""
    k = stats.shape[1]
    k_valid = sigma_completed_q(params[0], params[1], params[2], stats, valid, work)
    if k_valid == 0:
        return -1
    top, total = -math.inf, 0.0
    for i in range(k):
        if valid[i]:
            work[i] += math.log(_prior(stats, valid, i, k_valid))
            top = max(top, work[i])
            total += stats[COUNT, i]
    z = 0.0
    for i in range(k):
        if valid[i]:
            work[i] = math.exp(work[i] - top)
            z += work[i]
    best, arm, ties = -math.inf, -1, 0
    for i in range(k):
        if not valid[i]:
            continue
        s = work[i] / z - stats[COUNT, i] / (1.0 + total)
        if arm < 0 or s > best:
            best, arm, ties = s, i, 1
        elif s == best:
            ties += 1
            if randint(rng, ties) == 0:
                arm = i
    return arm


GumbelQ = bandits.stateful_policy(
    "gumbelq", select=gumbelq_select,
    c_visit=bandits.Param(50.0, low=0.0, high=1e9, doc="c_visit of sigma = (c_visit + max N) c_scale q"),
    c_scale=bandits.Param(1.0, low=0.0, high=1e9, doc="c_scale of sigma (mctx's default is 0.1)"),
    v0=bandits.Param(0.5, low=0.0, high=1.0, doc="[OURS] the node value v_hat before any visit"),
    doc="Gumbel MuZero's interior selection (Danihelka et al. 2022): argmax softmax(logits + sigma(completed "
        "Q)) - N / (1 + sum N)")
