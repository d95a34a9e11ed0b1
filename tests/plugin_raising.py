"""A policy whose select kernel raises after a few plays (loaded by tests/test_kernel_errors.py and by
``banditree ... --plugin tests/plugin_raising.py``): a user's bug, which a search must report."""
import numba

import bandits


@numba.njit
def _select(params, state, arm_state, stats, valid, t, rng, work):
    if t > 3:
        raise ValueError("t_raises: a bug in select")
    return 0


bandits.stateful_policy("t_raises", select=_select, doc="Pulls arm 0, then raises ValueError once t > 3.")
