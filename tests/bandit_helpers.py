"""Small helpers for bandit tests: build one bandit's statistics and call the compiled kernels."""
import numpy as np

from bandits import kernels
from bandits.rng import Stream
from bandits.stats import new_stats, record


def stats_from(pulls):
    """One bandit's (NSTAT, K) statistics from a list of per-arm reward lists."""
    stats = new_stats(len(pulls))
    for arm, rewards in enumerate(pulls):
        for r in rewards:
            record(stats, arm, float(r))
    return stats


def select_once(policy, pulls, t, seed=0, valid=None):
    """(arm, work) for one selection on one bandit with fresh policy state.

    pulls: a list of per-arm reward lists, recorded through the policy (kernels.record_row, arm by
    arm) so that its per-arm state follows; or a ready (NSTAT, K) stats array for policies without
    per-arm state.
    """
    k = pulls.shape[1] if isinstance(pulls, np.ndarray) else len(pulls)
    valid = np.ones(k, dtype=np.bool_) if valid is None else valid
    state = np.zeros(max(1, policy.state_width))
    arm_state = np.zeros((max(1, policy.arm_state_width), k))
    kernels.init_row(policy.kernels, policy.params, state, arm_state, valid)
    if isinstance(pulls, np.ndarray):
        stats = pulls
    else:
        stats = new_stats(k)
        for arm, rewards in enumerate(pulls):
            for r in rewards:
                kernels.record_row(policy.kernels, policy.params, state, arm_state, stats, arm, float(r))
    work = np.full(k, np.nan)
    arm = kernels.select_row(policy.kernels, policy.params, state, arm_state, stats, valid, t,
                             Stream(seed).state, work)
    return arm, work
