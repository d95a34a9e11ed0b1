"""Policies defined outside the package, the way a user writes them (loaded by tests/test_plugins.py
with ``bandits.load_plugin`` and by ``banditree ... --plugin tests/plugin_policies.py``).

* ``t_ucb1tuned``: UCB1-Tuned (Auer, Cesa-Bianchi & Fischer 2002), an index policy:
      U_i = w_i + sqrt((ln t / t_i) * min(1/4, V_i)),  V_i = Q_i / t_i - w_i^2 + sqrt(2 ln t / t_i)
  (Q_i the sum of squared rewards), times a parameter c (default 1).
* ``t_bestucb``: an index policy with per-arm state: B_i + c sqrt(ln t / t_i), B_i the best reward
  of arm i so far, kept in ``arm_state`` by its ``on_record`` and read by the index's seventh
  parameter.
* ``t_etc``: explore-then-commit, a stateful policy: pull every arm ``m`` times in index order
  (counted in its own per-arm state), then commit for good to the arm with the highest mean
  (first one on ties), kept in its per-bandit state.
* ``t_scipy_ucb``: an index policy numba cannot compile (it calls scipy): w_i + c * erfinv(1 - 1/t)
  / sqrt(t_i), run as plain Python after a notice.
"""
import math

import numba
import numpy as np
import scipy.special

import bandits
from bandits.stats import COUNT, MEAN, SUMSQ


@bandits.index_policy("t_ucb1tuned", c=bandits.Param(1.0, low=0.0, doc="scale of the bonus"))
@numba.njit
def ucb1_tuned(stats, i, t, params, state):
    n, w = stats[COUNT, i], stats[MEAN, i]
    lt = math.log(t)
    v = stats[SUMSQ, i] / n - w * w + math.sqrt(2.0 * lt / n)
    return w + params[0] * math.sqrt(lt / n * min(0.25, v))


@numba.njit
def _best_init(params, state, arm_state, valid):
    for i in range(arm_state.shape[1]):
        arm_state[0, i] = -np.inf  # no reward seen yet


@numba.njit
def _best_record(params, state, arm_state, stats, arm, reward):
    arm_state[0, arm] = max(arm_state[0, arm], reward)


# an index that reads per-arm state (a seventh parameter) kept by on_record: the best reward seen
# on the arm plus a UCB1 bonus, B_i + c sqrt(ln t / t_i) (nothing the shared statistics hold)
@bandits.index_policy("t_bestucb", init=_best_init, on_record=_best_record, arm_state_width=1, c=0.5)
@numba.njit
def best_ucb(stats, i, t, params, state, prepared, arm_state):
    return arm_state[0, i] + params[0] * math.sqrt(math.log(t) / stats[COUNT, i])


@numba.njit
def _etc_init(params, state, arm_state, valid):
    state[0] = -1.0  # no commitment yet
    for i in range(arm_state.shape[1]):
        arm_state[0, i] = 0.0


@numba.njit
def _etc_select(params, state, arm_state, stats, valid, t, rng, work):
    m = params[0]
    for i in range(arm_state.shape[1]):
        if valid[i] and arm_state[0, i] < m:
            return i
    if state[0] < 0.0 or not valid[int(state[0])]:
        best, arm = -np.inf, 0
        for i in range(arm_state.shape[1]):
            if valid[i] and stats[MEAN, i] > best:
                best, arm = stats[MEAN, i], i
        state[0] = arm
    return int(state[0])


@numba.njit
def _etc_record(params, state, arm_state, stats, arm, reward):
    arm_state[0, arm] += 1.0


ETC = bandits.stateful_policy("t_etc", select=_etc_select, init=_etc_init, on_record=_etc_record,
                              state_width=1, arm_state_width=1, m=bandits.Param(3, low=1))


@bandits.index_policy("t_scipy_ucb", c=1.0)
def scipy_ucb(stats, i, t, params, state):
    return stats[MEAN, i] + params[0] * scipy.special.erfinv(1.0 - 1.0 / (t + 1.0)) / math.sqrt(stats[COUNT, i])
