"""Bandit testbeds: many random K-armed tasks whose rewards are common random numbers.

A testbed is the environment of an experiment: ``n_tasks`` independent K-armed bandits, each with
fixed arm means, and a reward rule.  Everything is a pure function of the testbed's ``seed``:

    mean of arm a in task i        m[i, a] = f(seed, i, a, MEAN_DRAW)
    reward of the j-th pull        X(i, a, j) = g(seed, i, a, j)        (j = 0, 1, 2, ...)

with ``f``/``g`` built on the counter-based draws of :mod:`bandits.rng` (``counter_normal``,
``counter_uniform``).  So the rewards are *common random numbers*: the j-th pull of arm a in task i
returns the same reward whichever policy makes it, and policy comparisons are paired.  Draw index
``MEAN_DRAW = 2**62`` is reserved for the arm means (no arm is pulled 2**62 times).

* :class:`GaussianTestbed` (Sutton & Barto, 2018, section 2.3; Liu & Tsuruoka, 2015, Figures 1-2
  with K = 60): ``m[i, a] ~ N(0, mean_sd^2)``, ``X = m[i, a] + reward_sd * Z``, Z ~ N(0, 1).
* :class:`BernoulliTestbed`: ``m[i, a] ~ U(0, 1)``, ``X = 1 if U < m[i, a] else 0``, U ~ U(0, 1)
  (the uniform prior on Bernoulli means, as in Chapelle & Li, 2011, and Kaufmann et al., 2012).
* :class:`NonStationaryTestbed` (Sutton & Barto, 2018, exercise 2.5): all means start equal and
  after every play each takes an independent N(0, walk_sd^2) random-walk step (walk_sd = 0.01),
  ``X = m[i, a](t) + reward_sd * Z``; regret, gaps and optimal action are against the current best
  arm.  The step of arm a after play h is ``walk_sd * counter_normal(seed, i, WALK_DRAW + a, h)``.

Both accept explicit ``means`` instead (shape (K,) shared by all tasks, or (n_tasks, K)), e.g. a
two-armed Bernoulli bandit with a known gap.  The compiled runner (:mod:`testbeds.runner`) reads
``env_code``, ``means``, ``reward_sd`` and ``seed`` and draws rewards with :func:`draw_reward`, hashing
``(seed, i, a)`` once per task and arm (``bandits.rng.counter_key``).
"""
from __future__ import annotations

import math
from typing import Any

import numba as nb
import numpy as np

from bandits.rng import counter_key, counter_normal, counter_uniform, keyed_normal, keyed_uniform

__all__ = ["GaussianTestbed", "BernoulliTestbed", "NonStationaryTestbed", "Testbed", "make_testbed",
           "draw_reward", "ENVIRONMENTS", "GAUSSIAN", "BERNOULLI", "MEAN_DRAW", "WALK_DRAW"]

GAUSSIAN, BERNOULLI = 0, 1
MEAN_DRAW = 2**62
#: arm index offset of the random-walk draws of the non-stationary testbed (no testbed has 2**40 arms)
WALK_DRAW = 2**40


@nb.njit(cache=True, inline="always")
def draw_reward(env_code, key, j, mean, reward_sd):
    """Reward of the j-th pull (j from 0) of an arm: the testbed's reward rule.

    key = bandits.rng.counter_key(seed, task, arm), so that

    GAUSSIAN: mean + reward_sd * counter_normal(seed, task, arm, j)
    BERNOULLI: 1.0 if counter_uniform(seed, task, arm, j) < mean else 0.0
    """
    if env_code == GAUSSIAN:
        return mean + reward_sd * keyed_normal(key, j)
    return 1.0 if keyed_uniform(key, j) < mean else 0.0


@nb.njit(cache=True)
def _counter_grid(kind, seed, n_tasks, n_arms, j):
    """(n_tasks, n_arms) array of counter_normal (kind 0) or counter_uniform (kind 1) at draw j."""
    out = np.empty((n_tasks, n_arms))
    for i in range(n_tasks):
        for a in range(n_arms):
            out[i, a] = counter_normal(seed, i, a, j) if kind == 0 else counter_uniform(seed, i, a, j)
    return out


def _check_int(name: str, value: Any, low: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


def _check_positive(name: str, value: Any) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return float(value)


class Testbed:
    """Common part of the testbeds: sizes, seed, the (n_tasks, n_arms) arm means and the reward rule.

    Attributes
    ----------
    n_tasks, n_arms, seed : int
    means : (n_tasks, n_arms) float64 array, read-only
    env_code : int (GAUSSIAN or BERNOULLI), used by the compiled runner
    reward_sd : float (0 for Bernoulli, unused)
    """

    env: str = ""
    env_code: int = -1
    reward_sd: float = 0.0
    #: s.d. of the means' random-walk step after every play (0: fixed means)
    walk_sd: float = 0.0
    #: rewards in [0, 1] (a policy built for them, e.g. thompson:prior=beta, is refused otherwise)
    bounded_rewards: bool = False

    def __init__(self, n_tasks: int, n_arms: int, seed: int, means: Any = None):
        self.n_tasks = _check_int("n_tasks", n_tasks, 1)
        self.n_arms = _check_int("n_arms", n_arms, 1)
        self.seed = _check_int("seed", seed, 0)
        self._given_means = means is not None
        if means is None:
            grid = self._draw_means()
        else:
            grid = self._check_means(means)
        grid.setflags(write=False)
        self.means = grid

    # -- subclass hooks ------------------------------------------------------------------------
    def _draw_means(self) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _check_mean_range(self, grid: np.ndarray) -> None:
        pass

    def _check_means(self, means: Any) -> np.ndarray:
        arr = np.asarray(means, dtype=np.float64)
        if arr.ndim == 1:
            arr = np.broadcast_to(arr, (self.n_tasks, arr.shape[0]))
        if arr.shape != (self.n_tasks, self.n_arms):
            raise ValueError(f"means must have shape ({self.n_arms},) or ({self.n_tasks}, {self.n_arms}), "
                             f"got {np.shape(means)}")
        if not np.all(np.isfinite(arr)):
            raise ValueError("means must be finite numbers")
        self._check_mean_range(arr)
        return np.ascontiguousarray(arr, dtype=np.float64).copy()

    # -- derived quantities --------------------------------------------------------------------
    @property
    def best_means(self) -> np.ndarray:
        """(n_tasks,) mean of each task's best arm."""
        return self.means.max(axis=1)

    @property
    def gaps(self) -> np.ndarray:
        """(n_tasks, n_arms) suboptimality gaps best_mean - mean (0 for an optimal arm)."""
        return self.best_means[:, None] - self.means

    def reward(self, task: int, arm: int, j: int) -> float:
        """Reward of the j-th pull (j from 0) of ``arm`` in ``task`` (the same for every policy)."""
        task = _check_int("task", task, 0)
        arm = _check_int("arm", arm, 0)
        j = _check_int("j", j, 0)
        if task >= self.n_tasks:
            raise ValueError(f"task must lie in 0..{self.n_tasks - 1}, got {task}")
        if arm >= self.n_arms:
            raise ValueError(f"arm must lie in 0..{self.n_arms - 1}, got {arm}")
        key = np.uint64(counter_key(self.seed, task, arm))
        return float(draw_reward(self.env_code, key, j, self.means[task, arm], self.reward_sd))

    def config(self) -> dict:
        """JSON-ready description (the results manifest records it)."""
        out = {"env": self.env, "n_tasks": self.n_tasks, "n_arms": self.n_arms, "seed": self.seed}
        out.update(self._extra_config())
        if self._given_means:
            out["means"] = self.means.tolist() if self.n_tasks * self.n_arms <= 10_000 else "given (not recorded: too large)"
            if (self.means == self.means[0]).all():  # one bandit for every task (the KL-UCB paper's scenarios)
                out["arm_means"] = self.means[0].tolist()
        return out

    def _extra_config(self) -> dict:
        return {}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.config().items() if k not in ("env", "means"))
        return f"{type(self).__name__}({args})"


class GaussianTestbed(Testbed):
    """Gaussian testbed: m[i, a] ~ N(0, mean_sd^2), rewards ~ N(m[i, a], reward_sd^2).

    Sutton & Barto's 10-armed testbed (2018, section 2.3) with any K; with K = 60, mean_sd =
    reward_sd = 1 it is the testbed of Liu & Tsuruoka (2015), Figures 1-2.

    Parameters
    ----------
    n_tasks, n_arms : int >= 1
    mean_sd : float > 0, default 1
    reward_sd : float > 0, default 1
    seed : int >= 0, default 0
    means : optional (n_arms,) or (n_tasks, n_arms) array of arm means replacing the random draw.
    """

    env = "gaussian"
    env_code = GAUSSIAN

    def __init__(self, n_tasks: int, n_arms: int, mean_sd: float = 1.0, reward_sd: float = 1.0,
                 seed: int = 0, means: Any = None):
        self.mean_sd = _check_positive("mean_sd", mean_sd)
        self.reward_sd = _check_positive("reward_sd", reward_sd)
        super().__init__(n_tasks, n_arms, seed, means)

    def _draw_means(self) -> np.ndarray:
        return self.mean_sd * _counter_grid(0, self.seed, self.n_tasks, self.n_arms, MEAN_DRAW)

    def _extra_config(self) -> dict:
        return {"mean_sd": self.mean_sd, "reward_sd": self.reward_sd}


class BernoulliTestbed(Testbed):
    """Bernoulli testbed: m[i, a] ~ U(0, 1), rewards 1 with probability m[i, a], else 0.

    Parameters
    ----------
    n_tasks, n_arms : int >= 1
    seed : int >= 0, default 0
    means : optional (n_arms,) or (n_tasks, n_arms) array of arm means in [0, 1].
    """

    env = "bernoulli"
    env_code = BERNOULLI
    bounded_rewards = True

    def __init__(self, n_tasks: int, n_arms: int, seed: int = 0, means: Any = None):
        super().__init__(n_tasks, n_arms, seed, means)

    def _draw_means(self) -> np.ndarray:
        return _counter_grid(1, self.seed, self.n_tasks, self.n_arms, MEAN_DRAW)

    def _check_mean_range(self, grid: np.ndarray) -> None:
        if grid.min() < 0.0 or grid.max() > 1.0:
            raise ValueError(f"Bernoulli means must lie in [0, 1], got {grid.min():g}..{grid.max():g}")


class NonStationaryTestbed(Testbed):
    """Sutton & Barto's non-stationary testbed (2018, exercise 2.5): equal means that drift.

    m[i, a](0) = start for every arm; after every play each mean adds walk_sd * N(0, 1)
    (independent across arms, tasks and plays; common random numbers, so every policy meets the
    same walk); rewards ~ N(m[i, a](t), reward_sd^2).  The runner measures regret against the best
    current mean.  ``means`` holds the starting means.

    Parameters
    ----------
    n_tasks, n_arms : int >= 1 (the book: 10 arms, 10 000 steps)
    walk_sd : float > 0, default 0.01
    reward_sd : float > 0, default 1
    start : float, default 0 (the common starting mean)
    seed : int >= 0, default 0
    """

    env = "nonstationary"
    env_code = GAUSSIAN

    def __init__(self, n_tasks: int, n_arms: int = 10, walk_sd: float = 0.01, reward_sd: float = 1.0,
                 start: float = 0.0, seed: int = 0):
        self.walk_sd = _check_positive("walk_sd", walk_sd)
        self.reward_sd = _check_positive("reward_sd", reward_sd)
        if isinstance(start, bool) or not isinstance(start, (int, float, np.integer, np.floating)) \
                or not math.isfinite(start):
            raise ValueError(f"start must be a finite number, got {start!r}")
        self.start = float(start)
        super().__init__(n_tasks, n_arms, seed, None)

    def _draw_means(self) -> np.ndarray:
        return np.full((self.n_tasks, self.n_arms), self.start)

    def _extra_config(self) -> dict:
        return {"walk_sd": self.walk_sd, "reward_sd": self.reward_sd, "start": self.start}

    def reward(self, task: int, arm: int, j: int) -> float:
        raise ValueError("a non-stationary testbed's reward depends on the play, not only on the pull: "
                         "run it with run_testbed(..., trace=True)")


ENVIRONMENTS = {"gaussian": GaussianTestbed, "bernoulli": BernoulliTestbed, "nonstationary": NonStationaryTestbed}


def make_testbed(env: str, n_tasks: int, n_arms: int, seed: int = 0, **options: Any) -> Testbed:
    """The testbed called ``env`` ("gaussian", "bernoulli" or "nonstationary") with the given sizes and options."""
    if env not in ENVIRONMENTS:
        raise ValueError(f"env must be one of {', '.join(ENVIRONMENTS)}; got {env!r}")
    return ENVIRONMENTS[env](n_tasks=n_tasks, n_arms=n_arms, seed=seed, **options)
