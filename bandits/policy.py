"""The arm-selection interface every policy implements, on a batch of B independent K-armed bandits.

A :class:`Policy` is an immutable configuration (name, parameters).  Its compiled kernels
(``policy.kernels``, a :class:`bandits.kernels.PolicyKernels` made from the class's
``kernel_spec`` by :mod:`bandits.registry`) are passed as values to every compiled loop, so a
testbed (all B bandits per play) and a search tree (one node = one bandit per step) run the same
code.  Per-bandit data is a
:class:`BanditBatch`:

    stats      (B, NSTAT, K) float64   per-arm statistics, one row per statistic (:mod:`bandits.stats`)
    valid      (B, K) bool             which arms exist (padding for bandits with fewer arms)
    t          (B,) int64              pulls so far of each bandit
    state      (B, S) float64          the policy's per-bandit state (e.g. Delta, deadlines)
    arm_state  (B, A, K) float64       the policy's per-arm state, one row per field (e.g. improved
                                       UCB's episode counts)

Per-arm arrays are field-major (a row per field, a column per arm) so that a selection's loop over
the arms reads contiguous memory and compiles to SIMD code.

Usage::

    policy = bandits.make_policy("ucb1:c=2")
    batch = policy.init(n_bandits=4, n_arms=10)
    arms = policy.select(batch, rng)          # (B,) arm per bandit
    policy.update(batch, arms, rewards)       # record the rewards
"""
from __future__ import annotations

import dataclasses
import math
from typing import Any, ClassVar

import numpy as np

from bandits.stats import COUNT, MEAN, new_stats

__all__ = ["Policy", "BanditBatch"]


@dataclasses.dataclass
class BanditBatch:
    """Statistics and policy state of B bandits (shapes in the module docstring)."""

    stats: np.ndarray
    valid: np.ndarray
    t: np.ndarray
    state: np.ndarray
    arm_state: np.ndarray

    @property
    def n_bandits(self) -> int:
        return self.stats.shape[0]

    @property
    def n_arms(self) -> int:
        return self.stats.shape[2]

    @property
    def counts(self) -> np.ndarray:
        """(B, K) pulls per arm (a copy, as int64)."""
        return self.stats[:, COUNT, :].astype(np.int64)

    @property
    def means(self) -> np.ndarray:
        """(B, K) mean reward per arm (0 where an arm is untried)."""
        return self.stats[:, MEAN, :].copy()


class Policy:
    """Base class: parameters, validation, spec string and the batch entry points.

    Subclasses set ``name`` (the spec name), ``kernel_spec`` (a :class:`bandits.KernelSpec`: the
    compiled functions), ``state_width`` and ``arm_state_width``, implement ``_pack()`` -> list of
    float parameters in the order their kernels read them, and are registered with
    :func:`bandits.register_policy` (docs/plugins.md; :func:`bandits.index_policy` and
    :func:`bandits.stateful_policy` write such a class from the functions alone).
    """

    name: ClassVar[str] = ""
    kernel_spec: ClassVar[Any] = None
    state_width: ClassVar[int] = 0
    arm_state_width: ClassVar[int] = 0
    #: a search tree hands the policy at each non-root node, in state[0], its per-arm state row 0 as
    #: the parent's policy wrote it (a budget passed down: SHOT; bandits.kernels.handed_down)
    hands_down: ClassVar[bool] = False

    def __init__(self, **params: Any):
        self._param_values = dict(params)
        for key, value in params.items():
            object.__setattr__(self, key, value)
        self.params = np.asarray(self._pack(), dtype=np.float64)
        if self.params.size == 0:
            self.params = np.zeros(1)

    # -- configuration -------------------------------------------------------------------------
    def _pack(self) -> list[float]:  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def kernels(self):
        """The compiled kernels (:class:`bandits.kernels.PolicyKernels`), made once per class and process."""
        from bandits.registry import kernels_for

        return kernels_for(type(self), self.instance_kernel_spec())

    def instance_kernel_spec(self):
        """The kernels of this policy: the class's ``kernel_spec``; a subclass whose formula changes
        with a parameter (KL-UCB's family) may return another, so each compiles its own loop."""
        return type(self).kernel_spec

    def __reduce__(self):
        # rebuilt from its spec in another process, after importing what registered the class
        from bandits.registry import origin_of, rebuild_policy

        module, plugin = origin_of(type(self))
        return rebuild_policy, (module, plugin, self.spec)

    @property
    def spec(self) -> str:
        """The spec string that :func:`bandits.make_policy` turns back into this policy."""
        parts = []
        for key, value in self._param_values.items():
            if value is None:
                continue
            if isinstance(value, bool):
                value = "true" if value else "false"
            elif isinstance(value, float):
                value = repr(value)
            parts.append(f"{key}={value}")
        return self.name + (":" + ",".join(parts) if parts else "")

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._param_values.items())
        return f"{type(self).__name__}({args})"

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self._param_values == other._param_values  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self), tuple(sorted(self._param_values.items()))))

    @property
    def needs_horizon(self) -> bool:
        """True when the policy needs a known horizon T that has not been given (see :meth:`bind`)."""
        return False

    def bind(self, horizon: int) -> "Policy":
        """This policy with its horizon set to ``horizon`` where it needs one and has none."""
        return self

    def horizon_short_of(self, plays: int) -> "int | None":
        """This policy's own known horizon T when it is below ``plays`` (the policy would then be
        run past its horizon, where its schedule is undefined), else None.  A policy without a
        ``horizon`` parameter, or with ``horizon`` None (bound later, or episodic), has none."""
        horizon = self._param_values.get("horizon") if hasattr(self, "_param_values") else None
        if isinstance(horizon, (int, np.integer)) and not isinstance(horizon, bool) and horizon < plays:
            return int(horizon)
        return None

    def replace(self, **changes: Any) -> "Policy":
        """A copy with some parameters changed."""
        values = dict(self._param_values)
        values.update(changes)
        return type(self)(**values)

    # -- validation helpers ----------------------------------------------------------------------
    @staticmethod
    def _check_float(name: str, value: Any, low: float | None = None, high: float | None = None,
                     low_open: bool = False) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise ValueError(f"{name} must be a number, got {value!r}")
        value = float(value)
        if not math.isfinite(value):
            raise ValueError(f"{name} must be finite, got {value!r}")
        if low is not None and (value < low or (low_open and value == low)):
            op = ">" if low_open else ">="
            raise ValueError(f"{name} must be {op} {low:g}, got {value!r}")
        if high is not None and value > high:
            raise ValueError(f"{name} must be <= {high:g}, got {value!r}")
        return value

    @staticmethod
    def _check_choice(name: str, value: Any, choices: tuple[str, ...]) -> str:
        if value not in choices:
            raise ValueError(f"{name} must be one of {', '.join(repr(c) for c in choices)}; got {value!r}")
        return value

    @staticmethod
    def _check_bool(name: str, value: Any) -> bool:
        if not isinstance(value, (bool, np.bool_)):
            raise ValueError(f"{name} must be true or false, got {value!r}")
        return bool(value)

    # -- batch entry points -----------------------------------------------------------------------
    def init(self, n_bandits: int, n_arms: int, mask: np.ndarray | None = None) -> BanditBatch:
        """Fresh statistics and policy state for ``n_bandits`` bandits of ``n_arms`` arms.

        mask: optional (n_bandits, n_arms) bool array of valid arms; each bandit needs one.
        """
        from bandits import kernels

        pk = self.kernels
        for name, value in (("n_bandits", n_bandits), ("n_arms", n_arms)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
        if self.needs_horizon:
            raise ValueError(f"{self.name} needs a horizon: give horizon=T or episodic=true (or call .bind(T))")
        if mask is None:
            valid = np.ones((n_bandits, n_arms), dtype=np.bool_)
        else:
            valid = np.asarray(mask)
            if valid.shape != (n_bandits, n_arms) or valid.dtype != np.bool_:
                raise ValueError(f"mask must be a bool array of shape ({n_bandits}, {n_arms}), got "
                                 f"{valid.dtype} {valid.shape}")
            if not valid.any(axis=1).all():
                raise ValueError("mask must leave at least one valid arm in every bandit")
            valid = np.ascontiguousarray(valid)
        batch = BanditBatch(
            stats=new_stats(n_bandits, n_arms),
            valid=valid,
            t=np.zeros(n_bandits, dtype=np.int64),
            state=np.zeros((n_bandits, max(1, self.state_width))),
            arm_state=np.zeros((n_bandits, max(1, self.arm_state_width), n_arms)),
        )
        kernels.init_batch(pk, self.params, batch.state, batch.arm_state, batch.valid)
        return batch

    def select(self, batch: BanditBatch, rng) -> np.ndarray:
        """The arm each bandit pulls next: (B,) int64.

        rng: a :class:`bandits.Stream` or ``numpy.random.Generator`` (advanced by each call), or an
        int seed, which starts the same stream on every call: in a loop pass a Stream or a
        Generator (or a different int per call), or tie-breaking and Thompson draws repeat.
        """
        from bandits import kernels
        from bandits.rng import make_stream

        stream = make_stream(rng)
        out = np.empty(batch.n_bandits, dtype=np.int64)
        kernels.select_batch(self.kernels, self.params, batch.state, batch.arm_state, batch.stats,
                             batch.valid, batch.t, stream.state, out)
        return out

    def update(self, batch: BanditBatch, arms, rewards) -> None:
        """Record that bandit b pulled ``arms[b]`` and received ``rewards[b]`` (both shape (B,))."""
        from bandits import kernels

        arms = np.asarray(arms)
        rewards = np.asarray(rewards, dtype=np.float64)
        b = batch.n_bandits
        if arms.shape != (b,) or not np.issubdtype(arms.dtype, np.integer):
            raise ValueError(f"arms must be an integer array of shape ({b},), got {arms.dtype} {arms.shape}")
        if rewards.shape != (b,):
            raise ValueError(f"rewards must have shape ({b},), got {rewards.shape}")
        if not np.all(np.isfinite(rewards)):
            bad = int(np.flatnonzero(~np.isfinite(rewards))[0])
            raise ValueError(f"rewards must be finite numbers; rewards[{bad}] = {float(rewards[bad])}")
        if np.any((arms < 0) | (arms >= batch.n_arms)):
            raise ValueError(f"arms must lie in 0..{batch.n_arms - 1}, got {arms.min()}..{arms.max()}")
        if not np.all(batch.valid[np.arange(b), arms]):
            bad = int(np.flatnonzero(~batch.valid[np.arange(b), arms])[0])
            raise ValueError(f"arms[{bad}] = {int(arms[bad])} is masked out for bandit {bad}")
        kernels.record_batch(self.kernels, self.params, batch.state, batch.arm_state, batch.stats,
                             batch.t, arms.astype(np.int64), rewards)

    def diagnostics(self, batch: BanditBatch) -> dict[str, np.ndarray]:
        """Policy-specific counters per bandit (empty for most policies)."""
        return {}

    def recommend(self, batch: BanditBatch, rng) -> np.ndarray:
        """The arm each bandit would recommend as the best now: (B,) int64 (best-arm identification).

        Default: the valid arm with the highest empirical mean among the tried ones (a random valid
        arm when none is tried; arm statistics only, so any policy has one), exact ties uniformly
        at random from ``rng`` (a Stream, Generator or int seed, as for :meth:`select`): a tie
        never goes to the lowest index, where the fixed-means testbeds put their best arm
        (:func:`bandits.zoo.common.best_surviving`).  A fixed-budget best-arm policy (successive
        rejects, sequential halving) returns its surviving arm instead.
        """
        from bandits.rng import make_stream
        from bandits.zoo.common import recommend_rows

        out = np.empty(batch.n_bandits, dtype=np.int64)
        recommend_rows(np.ones(batch.stats[:, MEAN, :].shape), batch.valid, batch.stats[:, MEAN, :],
                       batch.stats[:, COUNT, :], make_stream(rng).state, out)
        return out

    @property
    def bounded_rewards(self) -> bool:
        """True when the policy's model needs rewards in [0, 1] (a Beta posterior, a Bernoulli KL):
        a testbed with unbounded (Gaussian) rewards refuses it."""
        return False
