"""Run bandit policies on a testbed: a compiled loop over tasks x plays, chunked over processes.

For policy p, task i (best mean m*_i, gaps g_i(a) = m*_i - m_i(a)) and plays s = 1..H with chosen
arms A_s and received rewards X_s, the per-task curves are (Liu & Tsuruoka, 2015, Figure 1;
Lattimore & Szepesvari, 2020, section 4.5)::

    regret          R_i(t) = sum_{s<=t} (m*_i - X_s)       (optimal mean minus *received* reward)
    pseudo-regret   P_i(t) = sum_{s<=t} g_i(A_s)           (sum of the gaps of the chosen arms)
    optimal action  O_i(t) = 1 if g_i(A_t) = 0 else 0      (reported in %)
    reward          X_i(t)                                 (reward of play t)

and the result at play t is the mean over the n tasks with its standard error
sd_i(.) / sqrt(n) (sample standard deviation across tasks).  The compiled loop adds, per play,
the sum and the sum of squares of each quantity over tasks into a (H, NACC) accumulator, so memory
is O(tasks x arms + horizon) per policy and a horizon of 10**6 fits.

Randomness: rewards are common random numbers of the testbed (:mod:`testbeds.testbed`), and the
policy's own randomness (ties, Thompson draws) in task i comes from the stream
``bandits.rng.stream_state(seed, i, 1)``, and the ties of its recommendation at the horizon
(``Policy.recommend``) from the stream ``(seed, i, 2)``, whatever the policy's position in the
list: two identical policies give identical curves.  Tasks are cut into chunks of ``chunk_tasks`` (independent of
``workers``); chunk sums are added in chunk order, so the numbers are bit-identical for any number
of worker processes.
"""
from __future__ import annotations

import concurrent.futures
import contextlib
import os
from typing import Any, Sequence

import numba as nb
import numpy as np

from bandits import Policy, make_policy, new_stats
from bandits.kernels import init_row, record_row, select_row
from bandits.policy import BanditBatch
from bandits.compiling import track
from bandits.registry import policy_key
from bandits.rng import Stream, counter_key, keyed_normal, stream_state
from bandits.stats import COUNT
from bandits.borrow import borrowed
from testbeds._spawn import run_here_instead
from testbeds.results import METRICS, TestbedResult
from testbeds.testbed import WALK_DRAW, Testbed, draw_reward

__all__ = ["run_testbed", "chunk_runner", "compile_runner", "compile_runners", "uses_fused", "CHUNK_TASKS", "MAX_TRACE",
           "FUSED_PLAYS"]

#: Default number of tasks per chunk (the unit of work of a worker process; fixes the summation order).
CHUNK_TASKS = 50
#: Largest policies x tasks x plays for which ``trace=True`` is allowed.
MAX_TRACE = 10_000_000
#: ``fused=None`` fuses a policy into the loop when tasks x horizon is at least this (:func:`uses_fused`)
FUSED_PLAYS = 1_000_000

# accumulator columns: sums over tasks of each per-task quantity and of its square
_R, _R2, _P, _P2, _O, _X, _X2 = range(7)
NACC = 8  # one spare column keeps a play's row at 64 bytes (one cache line)


@nb.njit(cache=True, inline="always")
def _play_chunk(pk, params, state, arm_state, stats, means, env_code, env_seed, reward_sd, walk_sd,
                seed, task0, horizon, acc, trace_arms, trace_rewards):
    """Run one policy on tasks task0 .. task0 + C - 1 for ``horizon`` plays each; add into ``acc``.

    pk, params: the policy, as bandits.kernels' row functions take it (its key as a compile-time
    string: its kernels compiled into this loop, a loop per policy; or its PolicyKernels: one loop
    for every policy, the policy called through function values; reach either through
    :func:`chunk_runner`), and Policy.params.  state (C, S),
    arm_state (C, A, K), stats (C, NSTAT, K): fresh policy state and statistics.  means (C, K):
    arm means of these tasks.  acc (horizon, NACC): per-play sums over tasks (added to).
    trace_arms / trace_rewards: (C, horizon) arrays to record every play, or (0, 0) for none.
    walk_sd > 0: a non-stationary testbed (testbeds.testbed.NonStationaryTestbed): after every
    play each mean takes a N(0, walk_sd^2) step (common random numbers: the step of arm a after
    play h is walk_sd * counter_normal(env_seed, task, WALK_DRAW + a, h)); the gaps, the regret
    and the optimal action are against the current best arm, and ``means`` ends at the last means.
    """
    n_tasks, n_arms = means.shape
    valid = np.ones(n_arms, dtype=np.bool_)
    work = np.empty(n_arms)
    keys = np.empty(n_arms, dtype=np.uint64)  # counter_key(env_seed, task, a): hashed once per task
    walk_keys = np.empty(n_arms, dtype=np.uint64)
    drifting = walk_sd > 0.0
    tracing = trace_arms.shape[0] > 0
    for c in range(n_tasks):
        task = task0 + c
        mu = means[c]
        best = mu[0]
        for a in range(1, n_arms):
            best = max(best, mu[a])
        for a in range(n_arms):
            keys[a] = counter_key(env_seed, task, a)
            walk_keys[a] = counter_key(env_seed, task, WALK_DRAW + a)
        rng = stream_state(seed, task, 1)
        st, s_row, a_row = stats[c], state[c], arm_state[c]
        init_row(pk, params, s_row, a_row, valid)
        cum_r = 0.0
        cum_p = 0.0
        for h in range(horizon):
            arm = select_row(pk, params, s_row, a_row, st, valid, h, rng, work)
            if arm < 0 or arm >= n_arms:
                raise ValueError("the policy kernel returned no valid arm")
            x = draw_reward(env_code, keys[arm], np.int64(st[COUNT, arm]), mu[arm], reward_sd)
            record_row(pk, params, s_row, a_row, st, arm, x)
            gap = best - mu[arm]
            cum_r += best - x
            cum_p += gap
            acc[h, _R] += cum_r  # (no row view here: a view costs a reference count per play)
            acc[h, _R2] += cum_r * cum_r
            acc[h, _P] += cum_p
            acc[h, _P2] += cum_p * cum_p
            if gap == 0.0:
                acc[h, _O] += 1.0
            acc[h, _X] += x
            acc[h, _X2] += x * x
            if tracing:
                trace_arms[c, h] = arm
                trace_rewards[c, h] = x
            if drifting:  # every mean takes its random-walk step; the best arm may change
                best = -np.inf
                for a in range(n_arms):
                    mu[a] += walk_sd * keyed_normal(walk_keys[a], h)
                    best = max(best, mu[a])


def _fresh(policy: Policy, n: int, k: int):
    """Zeroed policy state (n, S), per-arm state (n, A, K) and statistics (n, NSTAT, K)."""
    return (np.zeros((n, max(1, policy.state_width))), np.zeros((n, max(1, policy.arm_state_width), k)),
            new_stats(n, k))


def _make_chunk_runner(key: str, cache: bool):
    # cached on disk per policy key (numba keys closures by their constants); numpy's error model,
    # which index policies are compiled with (bandits.index: a division by zero gives inf or nan)
    @nb.njit(cache=cache, error_model="numpy")
    def run_chunk(params, state, arm_state, stats, means, env_code, env_seed, reward_sd, walk_sd, seed, task0,
                  horizon, acc, trace_arms, trace_rewards):
        _play_chunk(key, borrowed(params), borrowed(state), borrowed(arm_state), borrowed(stats), borrowed(means),
                    env_code, env_seed, reward_sd, walk_sd, seed, task0, horizon, borrowed(acc), borrowed(trace_arms),
                    borrowed(trace_rewards))
    return track(run_chunk) if cache else run_chunk


@nb.njit(cache=True, error_model="numpy")
def _run_chunk_shared(pk, params, state, arm_state, stats, means, env_code, env_seed, reward_sd, walk_sd, seed,
                      task0, horizon, acc, trace_arms, trace_rewards):
    """The loop every policy shares: the policy ``pk`` (PolicyKernels) called through function values."""
    _play_chunk(pk, borrowed(params), borrowed(state), borrowed(arm_state), borrowed(stats), borrowed(means),
                env_code, env_seed, reward_sd, walk_sd, seed, task0, horizon, borrowed(acc), borrowed(trace_arms),
                borrowed(trace_rewards))


_CHUNK_RUNNERS: dict[str, Any] = {}


def uses_fused(fused: "bool | None", n_tasks: int, horizon: int) -> bool:
    """Whether a run fuses each policy into its own loop: ``fused`` when given, else whether the
    run is long enough (n_tasks x horizon >= FUSED_PLAYS) for the fused loop's speed (1.5-2.5x per
    play on the paper's testbed) to repay its compilation (5-15 s per policy, once per machine)."""
    return bool(fused) if fused is not None else n_tasks * horizon >= FUSED_PLAYS


def chunk_runner(policy: Policy, fused: bool = True):
    """The compiled chunk loop of ``policy`` as a function of (params, state, ...) (the arguments of
    :func:`_play_chunk` after ``pk``): with ``fused``, :func:`_play_chunk` with the policy's kernels
    compiled in (made once per policy, cached on disk); otherwise the one shared loop, called with
    the policy's function values (nothing compiled for the policy but its own kernels)."""
    if not fused:
        kernels = policy.kernels
        return lambda *args: _run_chunk_shared(kernels, *args)
    key, python = policy_key(policy)
    if key not in _CHUNK_RUNNERS:
        _CHUNK_RUNNERS[key] = _make_chunk_runner(key, cache=not python)
    return _CHUNK_RUNNERS[key]


def _empty_call(policy: Policy, n_arms: int) -> tuple:
    """Arguments of a chunk loop call that plays nothing (zero tasks): compiles or loads the loop."""
    state, arm_state, stats = _fresh(policy, 0, n_arms)
    return (policy.params, state, arm_state, stats, np.zeros((0, n_arms)), 0, 0, 1.0, 0.0, 0, 0, 1,
            np.zeros((1, NACC)), np.zeros((0, 0), dtype=np.int64), np.zeros((0, 0)))


def compile_runner(policy: Policy, n_arms: int, fused: bool = True) -> None:
    """Compile (or load from the disk cache) the policy's testbed loop, saying so if it takes a while."""
    from bandits.compiling import notice

    runner = chunk_runner(policy, fused)
    what = f"the testbed loop for policy {policy.name!r}" if fused else "the testbed loop shared by every policy"
    with notice(what):
        runner(*_empty_call(policy, n_arms))


def _fused_ready(policy: Policy, n_arms: int) -> bool:
    """Whether the policy's fused loop is compiled in this process or on numba's disk cache (then
    loaded, not compiled); a policy compiled without a disk cache (a Python-defined one) is not."""
    import numba

    from bandits.compiling import load_cached

    key, python = policy_key(policy)
    if python:
        return False
    runner = chunk_runner(policy, True)
    sig = tuple(numba.typeof(a) for a in _empty_call(policy, n_arms))
    return sig in runner.overloads or load_cached(runner, sig)


def compile_runners(policies: Sequence[Policy], n_arms: int, fused: bool, pool=None, processes: int = 1) -> None:
    """Compile (or load) every policy's loop before a run: in this process, or, with a process
    ``pool`` of ``processes`` >= 2 and fused loops not yet on disk, those loops in the pool's
    processes at once (each loop compiles in one process and is written to numba's disk cache,
    from which every process then loads it): the nine fused loops of ``banditree figures`` took
    85 s compiled one after another on a 2-core machine."""
    from bandits.compiling import say

    if pool is None or processes < 2 or not fused:
        for policy in policies:
            compile_runner(policy, n_arms, fused)
        return
    todo = [policy for policy in policies if not _fused_ready(policy, n_arms)]
    if len(todo) < 2:
        for policy in todo:
            compile_runner(policy, n_arms, fused)
        return
    say(f"compiling the testbed loops of {len(todo)} policies, {processes} at a time (first run only, cached on "
        f"disk afterwards) ...")
    for future in [pool.submit(compile_runner, policy, n_arms, fused) for policy in todo]:
        future.result()


def _chunk_job(policy: Policy, means: np.ndarray, env_code: int, env_seed: int, reward_sd: float,
               walk_sd: float, seed: int, task0: int, horizon: int, trace: bool, fused: bool = True):
    """One unit of work (runs in a worker process): accumulator, summed diagnostics, trace, and
    the sums over tasks of the recommendation's simple regret, its square and the wrong ones."""
    n, k = means.shape
    state, arm_state, stats = _fresh(policy, n, k)
    acc = np.zeros((horizon, NACC))
    if trace:
        t_arms = np.zeros((n, horizon), dtype=np.int64)
        t_rewards = np.zeros((n, horizon))
    else:
        t_arms, t_rewards = np.zeros((0, 0), dtype=np.int64), np.zeros((0, 0))
    chunk_runner(policy, fused)(policy.params, state, arm_state, stats, means, env_code, env_seed,
                                reward_sd, walk_sd, seed, task0, horizon, acc, t_arms, t_rewards)
    batch = BanditBatch(stats=stats, valid=np.ones((n, k), dtype=np.bool_),
                        t=np.full(n, horizon, dtype=np.int64), state=state, arm_state=arm_state)
    diagnostics = {key: float(np.sum(value)) for key, value in policy.diagnostics(batch).items()}
    # best-arm identification: the arm each task recommends at the end, against the (last) means;
    # task i's ties come from the stream (seed, i, 2), whatever chunk it is in
    chosen = np.array([policy.recommend(_row(batch, c), Stream(seed, task0 + c, 2))[0] for c in range(n)],
                      dtype=np.int64)
    simple = means.max(axis=1) - means[np.arange(n), chosen]
    rec = np.array([simple.sum(), (simple * simple).sum(), float(np.count_nonzero(simple > 0.0))])
    return acc, diagnostics, ((t_arms, t_rewards) if trace else None), rec


def _row(batch: BanditBatch, c: int) -> BanditBatch:
    """Bandit ``c`` of ``batch`` as a batch of one (views)."""
    return BanditBatch(stats=batch.stats[c:c + 1], valid=batch.valid[c:c + 1], t=batch.t[c:c + 1],
                       state=batch.state[c:c + 1], arm_state=batch.arm_state[c:c + 1])


def _check_int(name: str, value: Any, low: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


def _prepare_policies(policies, labels, horizon):
    if isinstance(policies, (str, Policy)):
        policies = [policies]
    policies = list(policies)
    if not policies:
        raise ValueError("policies must name at least one policy, e.g. ['ucb1']")
    bound, default_labels = [], []
    for item in policies:
        if not isinstance(item, (str, Policy)):
            raise ValueError(f"policies must be spec strings or bandits.Policy objects, got {type(item).__name__}")
        policy = make_policy(item)
        short = policy.horizon_short_of(horizon)
        if short is not None:
            shown = item.strip() if isinstance(item, str) else policy.spec
            raise ValueError(f"policy {shown!r} has horizon={short}, shorter than the {horizon} plays per task "
                             f"(--horizon): it would run past its horizon; drop horizon= from the spec "
                             f"(it is then given the run's horizon) or make it at least {horizon}")
        policy = policy.bind(horizon)
        if policy.needs_horizon:  # pragma: no cover - bind always settles it for the built-in policies
            raise ValueError(f"policy {policy.spec!r} still needs a horizon after bind({horizon})")
        bound.append(policy)
        default_labels.append(item if isinstance(item, str) else item.spec)
    if labels is None:
        labels = default_labels
    labels = [str(x) for x in labels]
    if len(labels) != len(bound):
        raise ValueError(f"labels must give one name per policy ({len(bound)}), got {len(labels)}")
    if len(set(labels)) != len(labels):
        dup = sorted({x for x in labels if labels.count(x) > 1})
        raise ValueError(f"labels must be unique, {dup} repeats; pass labels=[...] to tell policies apart")
    return bound, labels


def _check_reward_model(policies, testbed) -> None:
    """ValueError (one line) for a policy built for rewards in [0, 1] on a testbed whose rewards are
    unbounded: a Beta posterior or a Bernoulli KL fed Gaussian rewards runs, silently, another policy."""
    if getattr(testbed, "bounded_rewards", True):
        return
    for policy in policies:
        if getattr(policy, "bounded_rewards", False):
            raise ValueError(
                f"policy {policy.spec!r} models rewards in [0, 1] (a Beta posterior or a Bernoulli KL), but the "
                f"{testbed.env} testbed's rewards are unbounded; use its Gaussian form (klucb:family=gaussian, "
                "thompson:prior=gaussian, bayesucb:prior=gaussian) or a Bernoulli testbed (--env bernoulli)")


def _recommendation(sums: np.ndarray, n: int) -> dict[str, float]:
    """Mean simple regret of the recommended arms and the probability of a wrong one (a suboptimal
    arm), with standard errors, from their sums over n tasks."""
    mean = sums[0] / n
    p = sums[2] / n
    if n < 2:
        return {"simple_regret": mean, "simple_regret_se": float("nan"), "p_error": p, "p_error_se": float("nan")}
    var = max(sums[1] - n * mean * mean, 0.0) / (n - 1)
    return {"simple_regret": float(mean), "simple_regret_se": float(np.sqrt(var / n)), "p_error": float(p),
            "p_error_se": float(np.sqrt(p * (1.0 - p) / (n - 1)))}


def _finish(acc: np.ndarray, n: int) -> dict[str, np.ndarray]:
    """Means over n tasks and their standard errors from per-play sums (acc: (H, NACC))."""

    def mean_se(s, s2):
        mean = s / n
        if n < 2:
            return mean, np.full_like(mean, np.nan)
        var = np.maximum(s2 - n * mean * mean, 0.0) / (n - 1)
        return mean, np.sqrt(var / n)

    out = {}
    out["regret"], out["regret_se"] = mean_se(acc[:, _R], acc[:, _R2])
    out["pseudo_regret"], out["pseudo_regret_se"] = mean_se(acc[:, _P], acc[:, _P2])
    p, p_se = mean_se(acc[:, _O], acc[:, _O])  # an indicator equals its square
    out["optimal_pct"], out["optimal_pct_se"] = 100.0 * p, 100.0 * p_se
    out["avg_reward"], out["avg_reward_se"] = mean_se(acc[:, _X], acc[:, _X2])
    return out


def _run_jobs(pool, jobs, job_args, absorb, bar, window, chunk_tasks, n, horizon, saved=lambda p, start: None):
    """Submit the jobs to ``pool``, absorbing results strictly in job order (at most ``window`` pending),
    ``absorb(p, start, outcome)``; a job whose outcome ``saved(p, start)`` returns (a checkpoint) is not
    submitted."""
    pending: list = []
    for index, (p, start) in enumerate(jobs):
        outcome = saved(p, start)
        if outcome is None:
            future = pool.submit(_chunk_job, *job_args(p, start))
        else:
            future = concurrent.futures.Future()
            future.set_result(outcome)
        pending.append((p, start, future))
        while len(pending) > window or (index == len(jobs) - 1 and pending):
            q, q_start, future = pending.pop(0)
            absorb(q, q_start, future.result())
            bar.update(min(chunk_tasks, n - q_start) * horizon)


def run_testbed(policies: "Sequence[str | Policy] | str | Policy", testbed: Testbed, horizon: int,
                seed: int = 0, workers: int = 1, progress: bool = True, labels: Sequence[str] | None = None,
                chunk_tasks: int = CHUNK_TASKS, trace: bool = False,
                executor: concurrent.futures.Executor | None = None,
                checkpoint: "str | os.PathLike | None" = None, keep_checkpoint: bool = False,
                fused: "bool | None" = None) -> TestbedResult:
    """Run every policy on every task of ``testbed`` for ``horizon`` plays; curves averaged over tasks.

    Parameters
    ----------
    policies : spec strings (``"ucb1"``, ``"miucb:r=none,episodic=true"``) or ``bandits.Policy``
        objects; policies that need a known horizon are bound to ``horizon``.
    testbed : a :class:`testbeds.testbed.Testbed` (arm means and common-random-number rewards).
    horizon : int >= 1, plays per task.
    seed : int >= 0, seed of the policies' own randomness (task i uses stream (seed, i, 1)).
    workers : int >= 1, worker processes (1 runs in this process); the numbers do not depend on it.
        A worker exits by itself when this process dies (testbeds.pools), even killed with SIGKILL.
        Workers are started with "spawn", so a script that calls this with workers > 1 needs the
        usual ``if __name__ == "__main__":`` guard (notebooks and the command line need nothing).
    progress : show a tqdm progress bar.
    labels : names of the policies in the results (default: the specs as given); must be unique.
    chunk_tasks : int >= 1, tasks per unit of work; it fixes the summation order (default 50).
    executor : optional ``concurrent.futures`` executor to run the chunks in (e.g. one process pool
        reused for many runs, whose start-up then is paid once); ``workers`` is ignored then.
    trace : also return every chosen arm and reward, ``result.trace = {"arms", "rewards"}`` of shape
        (P, n_tasks, horizon) (small runs only: P x n_tasks x horizon <= MAX_TRACE).
    checkpoint : a folder: every finished chunk is saved there at once and a chunk already saved by
        the same run is loaded instead of computed (:mod:`testbeds.checkpoints`), so an interrupted
        run resumes to bit-identical numbers; the chunk files are removed when the run completes,
        unless ``keep_checkpoint``: then the caller removes them once the results are safely written
        (``ChunkStore.clear``; banditree testbed does after the results folder is swapped in).
        Not with ``trace``.
    fused : True: each policy's kernels compiled into a loop of its own (fastest per play: 1.5-2.5x
        on the paper's testbed; 5-15 s to compile per policy, once per machine, cached on disk);
        False: one loop shared by every policy, which calls the policy through function values
        (compiled once for all policies); None (default): fused when tasks x horizon >=
        FUSED_PLAYS (1 000 000), i.e. for the paper's figures, not for a quick look.  The numbers
        are bit-identical either way.

    Returns
    -------
    TestbedResult with curves (P, horizon) for each metric of ``testbeds.results.METRICS`` and its
    standard error, per-policy diagnostics summed over tasks (e.g. improved UCB's fallback plays),
    the best-arm-identification measures of the arm each policy recommends at the horizon
    (``Policy.recommend``: ``result.recommendation[p]`` = simple regret, probability of a wrong
    arm, with standard errors), and the full configuration.

    A policy built for rewards in [0, 1] (``Policy.bounded_rewards``: thompson:prior=beta,
    klucb:family=bernoulli, bayesucb:prior=beta) on a testbed with unbounded rewards is a
    ValueError, before anything runs.
    """
    if not isinstance(testbed, Testbed):
        raise ValueError(f"testbed must be a GaussianTestbed or BernoulliTestbed (any testbeds.Testbed, e.g. "
                         f"NonStationaryTestbed), got {type(testbed).__name__}")
    horizon = _check_int("horizon", horizon, 1)
    seed = _check_int("seed", seed, 0)
    workers = _check_int("workers", workers, 1)
    chunk_tasks = _check_int("chunk_tasks", chunk_tasks, 1)
    bound, labels = _prepare_policies(policies, labels, horizon)
    _check_reward_model(bound, testbed)
    n = testbed.n_tasks
    if trace and checkpoint is not None:
        raise ValueError("checkpoint and trace=True cannot be combined (traces are not checkpointed)")
    if trace and len(bound) * n * horizon > MAX_TRACE:
        raise ValueError(f"trace=True needs policies x tasks x horizon <= {MAX_TRACE}, got "
                         f"{len(bound) * n * horizon}")

    if fused is not None and not isinstance(fused, (bool, np.bool_)):
        raise ValueError(f"fused must be True, False or None (by the run's size), got {fused!r}")
    fuse = uses_fused(fused, n, horizon)
    starts = list(range(0, n, chunk_tasks))
    jobs = [(p, start) for p in range(len(bound)) for start in starts]

    def job_args(p, start):
        stop = min(start + chunk_tasks, n)
        return (bound[p], np.array(testbed.means[start:stop]), testbed.env_code, testbed.seed,  # (a writable copy)
                testbed.reward_sd, float(getattr(testbed, "walk_sd", 0.0)), seed, start, horizon, trace, fuse)

    curves = {name: np.empty((len(bound), horizon)) for name in METRICS}
    totals: dict[int, np.ndarray] = {}  # per-play sums of the policies still running
    absorbed = [0] * len(bound)
    diagnostics: list[dict[str, float]] = [{} for _ in bound]
    traces = [[] for _ in bound]
    rec_sums = np.zeros((len(bound), 3))

    from testbeds.checkpoints import ChunkStore

    store = None if checkpoint is None else ChunkStore(checkpoint, testbed, horizon, seed, chunk_tasks)
    loaded: set = set()

    def saved(p, start):
        outcome = None if store is None else store.load(bound[p], start)
        if outcome is not None:
            loaded.add((p, start))
        return outcome

    def absorb_job(p, start, outcome):
        if store is not None and (p, start) not in loaded:
            store.save(bound[p], start, outcome)  # (before it counts: Ctrl-C keeps every absorbed chunk)
        absorb(p, outcome)

    def absorb(p, outcome):
        acc, diag, tr, rec = outcome
        rec_sums[p] += rec  # (chunk order, like the curves)
        if p in totals:
            totals[p] += acc  # chunk order: jobs are absorbed in the order they were listed
        else:
            totals[p] = acc
        for key, value in diag.items():
            diagnostics[p][key] = diagnostics[p].get(key, 0.0) + value
        if tr is not None:
            traces[p].append(tr)
        absorbed[p] += 1
        if absorbed[p] == len(starts):  # policy done: its curves, and free its sums
            for name, values in _finish(totals.pop(p), n).items():
                curves[name][p] = values

    from tqdm import tqdm

    # compile (or load) before the progress bar starts: in this process, or with worker processes
    # the fused loops not on disk yet in the workers at once (compile_runners)
    here = executor is None and (workers == 1 or run_here_instead("run_testbed", workers))
    if here:
        compile_runners(bound, testbed.n_arms, fuse)
        with tqdm(total=len(bound) * n * horizon, disable=not progress, unit="task-play", unit_scale=True,
                  desc="testbed", smoothing=0.1) as bar:
            for p, start in jobs:
                outcome = saved(p, start)
                absorb_job(p, start, _chunk_job(*job_args(p, start)) if outcome is None else outcome)
                bar.update(min(chunk_tasks, n - start) * horizon)
    else:
        from testbeds.pools import process_pool

        with contextlib.ExitStack() as stack:
            pool = executor if executor is not None else stack.enter_context(process_pool(workers))
            compile_runners(bound, testbed.n_arms, fuse, pool, max(workers, 2) if executor is not None else workers)
            with tqdm(total=len(bound) * n * horizon, disable=not progress, unit="task-play", unit_scale=True,
                      desc="testbed", smoothing=0.1) as bar:
                _run_jobs(pool, jobs, job_args, absorb_job, bar, 2 * max(workers, 2) if executor is not None
                          else 2 * workers, chunk_tasks, n, horizon, saved)
    if store is not None and not keep_checkpoint:
        store.clear(bound, starts)

    config = {
        "testbed": testbed.config(),
        "horizon": horizon,
        "seed": seed,
        "chunk_tasks": chunk_tasks,
        "policies": [{"label": label, "spec": policy.spec} for label, policy in zip(labels, bound)],
    }
    result = TestbedResult(labels=labels, specs=[p.spec for p in bound], n_tasks=n, curves=curves,
                           diagnostics=diagnostics, config=config,
                           recommendation=[_recommendation(row, n) for row in rec_sums])
    if trace:
        result.trace = {
            "arms": np.stack([np.concatenate([t[0] for t in traces[p]]) for p in range(len(bound))]),
            "rewards": np.stack([np.concatenate([t[1] for t in traces[p]]) for p in range(len(bound))]),
        }
    return result
