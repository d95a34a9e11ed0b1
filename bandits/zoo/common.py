"""Small compiled helpers the zoo's stateful policies share (written with the public bandits.rng).

    best_of(work, valid, rng)      argmax of work over the valid arms, exact ties uniformly at random
    best_surviving(active, valid, means, counts, rng, work)   the recommendation rule
    draw_from(work, valid, total, rng)   an arm drawn with probability work[i] / total (valid arms)
    exp_weights(values, scale, valid, cache, state, at, work)   Boltzmann weights, exponentials cached
    count_valid(valid)             number of valid arms

The rule every library policy follows, "an untried arm first, ties at random", is written by a
policy as +inf scores for its untried arms before :func:`best_of`.
"""
from __future__ import annotations

import math

import numba as nb
import numpy as np

from bandits.rng import randint, uniform


@nb.njit(cache=True)
def best_of(work, valid, rng):
    """Index of the largest work[i] among valid arms (NaN counts as -inf), exact ties at random;
    uniformly random among the valid arms when all of them score -inf."""
    best = -np.inf
    for i in range(work.shape[0]):
        if not valid[i] or work[i] != work[i]:
            work[i] = -np.inf
        elif work[i] > best:
            best = work[i]
    if best == -np.inf:
        for i in range(work.shape[0]):
            work[i] = 0.0 if valid[i] else -np.inf
        best = 0.0
    ties = 0
    for i in range(work.shape[0]):
        if work[i] == best:
            ties += 1
    j = randint(rng, ties) if ties > 1 else 0
    for i in range(work.shape[0]):
        if work[i] == best:
            if j == 0:
                return i
            j -= 1
    return -1  # pragma: no cover (ties >= 1)


@nb.njit(cache=True)
def draw_from(work, valid, total, rng):
    """An arm i drawn with probability work[i] / total over the valid arms (work >= 0, total their sum)."""
    u = uniform(rng) * total
    last = -1
    for i in range(work.shape[0]):
        if valid[i]:
            last = i
            u -= work[i]
            if u < 0.0:
                return i
    return last  # rounding: the last valid arm


@nb.njit(cache=True)
def exp_weights(values, scale, valid, cache, state, at, work):
    """Boltzmann weights work[i] = exp(scale values[i] - ref) of the valid arms (0 for the others);
    returns their sum.  (Softmax: values the means, scale 1 / tau; Exp3: the log-weights, scale 1;
    Exp3-IX: the loss estimates, scale -eta.)

    The exponentials are cached, as a stateful policy may (bandits.kernels): ``cache`` is a (2, K)
    view of the policy's arm state, cache[0, i] arm i's weight and cache[1, i] the value it is for;
    state[at] holds the shift ref and state[at + 1] the scale.  A selection computes exp only for
    the arms whose value changed (on a testbed one per play: the pulled arm's); when the largest
    scale * value lies more than 20 from ref (or the scale changed) ref is set to it and every
    weight computed again, so no weight overflows and the largest lies in [e^-20, e^20].  Start
    with cache[1] and state[at] NaN (:func:`reset_exp_weights`).
    """
    top = -math.inf
    for i in range(values.shape[0]):  # (branch-free: SIMD)
        top = max(top, scale * values[i] if valid[i] else -math.inf)
    ref = state[at]
    if not (abs(top - ref) <= 20.0) or state[at + 1] != scale:  # (NaN ref: not set yet)
        ref = top
        state[at] = top
        state[at + 1] = scale
        for i in range(values.shape[0]):
            cache[1, i] = math.nan
    for i in range(values.shape[0]):  # the exponentials of the values that changed
        if valid[i] and cache[1, i] != values[i]:
            cache[0, i] = math.exp(scale * values[i] - ref)
            cache[1, i] = values[i]
    total = 0.0
    for i in range(values.shape[0]):  # (branch-free: SIMD)
        w = cache[0, i] if valid[i] else 0.0
        work[i] = w
        total += w
    return total


@nb.njit(cache=True)
def reset_exp_weights(cache, state, at):
    """No weight cached yet (:func:`exp_weights`)."""
    for i in range(cache.shape[1]):
        cache[1, i] = math.nan
    state[at] = math.nan
    state[at + 1] = math.nan


@nb.njit(cache=True)
def count_valid(valid):
    """Number of valid arms."""
    k = 0
    for i in range(valid.shape[0]):
        if valid[i]:
            k += 1
    return k


def check_horizon(value, name: str = "horizon"):
    """None, or ``value`` as an int >= 1 (ValueError naming ``name`` otherwise)."""
    if value is None:
        return None
    if (isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating))
            or not float(value).is_integer() or value < 1):
        raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    return int(value)


@nb.njit(cache=True)
def drop_lowest(score, active, valid, rng):
    """Mark inactive (active[i] = 0) the eligible arm (active and valid) of the lowest score, ties
    uniformly at random; returns it (-1 if there is none)."""
    low = np.inf
    ties = 0
    for i in range(score.shape[0]):
        if active[i] != 0.0 and valid[i]:
            if score[i] < low:
                low, ties = score[i], 1
            elif score[i] == low:
                ties += 1
    if ties == 0:
        return -1
    j = randint(rng, ties) if ties > 1 else 0
    for i in range(score.shape[0]):
        if active[i] != 0.0 and valid[i] and score[i] == low:
            if j == 0:
                active[i] = 0.0
                return i
            j -= 1
    return -1  # pragma: no cover


_UNTRIED = -1.7976931348623157e308  # the lowest finite float: below every mean (rewards are finite)


@nb.njit(cache=True)
def best_surviving(active, valid, means, counts, rng, work):
    """The recommendation rule of the elimination policies (and ``Policy.recommend``): among the
    eligible arms (``active[i] != 0`` and ``valid[i]``) the one of the highest mean, a tried arm
    (``counts[i] > 0``) before an untried one, exact ties uniformly at random (:func:`best_of`);
    with no eligible arm, the same among the valid arms.  active, means, counts, work: (K,)
    float64 (work: scratch); valid: (K,) bool."""
    k = active.shape[0]
    any_eligible = False
    for i in range(k):
        if active[i] != 0.0 and valid[i]:
            any_eligible = True
    for i in range(k):
        if valid[i] and (active[i] != 0.0 or not any_eligible):
            work[i] = means[i] if counts[i] > 0.0 else _UNTRIED
        else:
            work[i] = -np.inf
    return best_of(work, valid, rng)


@nb.njit(cache=True)
def recommend_rows(active, valid, means, counts, rng, out):
    """out[b] = :func:`best_surviving` of row b (active, means, counts: (B, K) float64; valid:
    (B, K) bool; out: (B,) int64), the ties of every row drawn from the one stream ``rng``."""
    work = np.empty(valid.shape[1])
    for b in range(valid.shape[0]):
        out[b] = best_surviving(active[b], valid[b], means[b], counts[b], rng, work)


class BindsHorizon:
    """Mixin of the zoo's horizon-bound policies (before ``bandits.Policy`` in the bases):
    ``bind(horizon)`` fills an unset horizon with the run's horizon or the search budget when the
    policy's ``needs_horizon`` says it needs one, and returns the policy unchanged otherwise."""

    def bind(self, horizon: int):
        return self.replace(horizon=int(horizon)) if self.needs_horizon else self


class BudgetElimination(BindsHorizon):
    """What successive rejects and sequential halving share: a budget ``horizon`` (their one
    parameter, bound like ``iucb``'s) and the recommendation of the surviving arm."""

    def __init__(self, horizon: int | None = None):
        super().__init__(horizon=check_horizon(horizon))

    def _pack(self):
        return [float(self.horizon or 0)]

    @property
    def needs_horizon(self) -> bool:
        return self.horizon is None

    #: the policy module's compiled ``recommend_rows(params, state, arm_state, stats, valid, rng, out)``
    #: (a staticmethod)
    _recommend_rows = None

    def recommend(self, batch, rng):
        """(B,) the surviving arm: the schedule's eliminations that its samples complete are made
        first (on copies of the state: a budget used exactly ends with its last round's samples
        in and its last elimination not yet made, since eliminations happen in ``select``); then,
        before the budget is spent, the surviving arm of the best mean.  Ties at random from
        ``rng`` (a Stream, Generator or int seed, as for :meth:`select`)."""
        from bandits.rng import make_stream

        out = np.empty(batch.n_bandits, dtype=np.int64)
        self._recommend_rows(self.params, batch.state.copy(), batch.arm_state.copy(), batch.stats, batch.valid,
                             make_stream(rng).state, out)
        return out

