"""The testbed runner: regret bookkeeping, log T regret of UCB1, determinism, common random numbers."""
import math

import numpy as np
import pytest

from bandits import make_policy
from bandits.rng import Stream, counter_normal, counter_uniform
from testbeds.runner import run_testbed
from testbeds.testbed import BernoulliTestbed, GaussianTestbed, NonStationaryTestbed


def _resimulate(spec, tb, horizon, seed):
    """Arms and rewards of every task, played through the public batch API one task at a time.

    Independent of the runner's loop: B = 1 batches, policy randomness Stream(seed, task, 1) (the
    runner's documented stream), rewards mean + sd * counter_normal(testbed seed, task, arm, j)
    (Gaussian) or 1 if counter_uniform(testbed seed, task, arm, j) < mean else 0 (Bernoulli).  The
    batch API dispatches on the policy kind at run time, while the runner compiles a loop for each
    kind, so this also pins every policy's specialised loop to the shared kernels.
    """
    policy = make_policy(spec).bind(horizon)
    arms = np.zeros((tb.n_tasks, horizon), dtype=np.int64)
    rewards = np.zeros((tb.n_tasks, horizon))
    for i in range(tb.n_tasks):
        batch = policy.init(1, tb.n_arms)
        stream = Stream(seed, i, 1)
        for h in range(horizon):
            a = int(policy.select(batch, stream)[0])
            j = int(batch.counts[0, a])
            if isinstance(tb, BernoulliTestbed):
                x = 1.0 if counter_uniform(tb.seed, i, a, j) < tb.means[i, a] else 0.0
            else:
                x = tb.means[i, a] + tb.reward_sd * counter_normal(tb.seed, i, a, j)
            policy.update(batch, np.array([a]), np.array([x]))
            arms[i, h], rewards[i, h] = a, x
    return arms, rewards


@pytest.mark.parametrize("spec", [
    "ucb1", "thompson:prior=gaussian", "iucb", "miucb:episodic=true", "miucb:r=none", "miucb:r=T/t",
    "klucb:family=gaussian", "egreedy:epsilon=0.2", "bernoulli/klucb", "bernoulli/thompson"])
def test_bookkeeping_matches_a_numpy_recomputation(spec):
    # 3 tasks x 4 arms x 50 plays: re-simulate, then compute every curve with plain numpy.
    # Every policy kind appears (each has its own compiled runner loop).
    if spec.startswith("bernoulli/"):
        spec, tb = spec.split("/")[1], BernoulliTestbed(3, 4, seed=21)
    else:
        tb = GaussianTestbed(3, 4, reward_sd=0.7, seed=21)
    horizon, seed = 50, 4
    result = run_testbed([spec], tb, horizon, seed=seed, progress=False, trace=True)
    arms, rewards = _resimulate(spec, tb, horizon, seed)
    np.testing.assert_array_equal(result.trace["arms"][0], arms)
    np.testing.assert_array_equal(result.trace["rewards"][0], rewards)

    best = tb.means.max(axis=1, keepdims=True)                     # (3, 1)
    chosen = np.take_along_axis(tb.means, arms, axis=1)            # (3, 50) means of chosen arms
    per_task = {
        "regret": np.cumsum(best - rewards, axis=1),               # optimal mean minus received reward
        "pseudo_regret": np.cumsum(best - chosen, axis=1),         # sum of gaps of chosen arms
        "optimal_pct": 100.0 * (chosen == best),
        "avg_reward": rewards,
    }
    for name, values in per_task.items():
        np.testing.assert_allclose(result.curves[name][0], values.mean(axis=0), rtol=1e-12, atol=1e-12)
        se = values.std(axis=0, ddof=1) / math.sqrt(3)
        np.testing.assert_allclose(result.curves[name + "_se"][0], se, rtol=1e-9, atol=1e-9)


@pytest.mark.slow  # (statistical, 2 * 10^7 plays: the slow tier and CI's part of it)
def test_ucb1_regret_grows_like_log_t_on_two_bernoulli_arms():
    # Two arms with means 0.6 and 0.4 (gap D = 0.2), 200 tasks, T = 10^5, pseudo-regret
    # P(t) = D * E[pulls of the worse arm] (the received-reward regret has noise sqrt(t)/sqrt(200),
    # as large as the regret itself here).
    #  * Upper: Auer, Cesa-Bianchi & Fischer (2002), Theorem 1: P(t) <= 8 ln t / D + (1 + pi^2/3) D.
    #  * Lower: Lai & Robbins (1985): P(t) / ln t >= D / kl(0.4, 0.6) asymptotically, with
    #    kl(0.4, 0.6) = 0.4 ln(0.4/0.6) + 0.6 ln(0.6/0.4) = 0.0811, so slope >= 2.47.
    #  * Log shape: with P(t) ~ a + b ln t every decade adds the same amount b ln 10; so the ratio of
    #    the increments over [10^4, 10^5] and [10^3, 10^4] is 1 (sqrt t growth gives 3.16, linear 10).
    #    Measured (seed 0): increments 36.0 and 36.3 (s.e. of P: 0.5, 1.0, 1.3 at 10^3, 10^4, 10^5), fitted
    #    slope 15.9; tolerance [0.8, 1.25] on the ratio.
    gap = 0.2
    tb = BernoulliTestbed(200, 2, seed=0, means=[0.6, 0.4])
    result = run_testbed(["ucb1"], tb, 100_000, seed=0, progress=False)
    p, se = result.curves["pseudo_regret"][0], result.curves["pseudo_regret_se"][0]
    for t in (10, 100, 1000, 10_000, 100_000):
        assert p[t - 1] <= 8 * math.log(t) / gap + (1 + math.pi ** 2 / 3) * gap + 4 * se[t - 1]
    ratio = (p[99_999] - p[9_999]) / (p[9_999] - p[999])
    assert 0.8 <= ratio <= 1.25, ratio
    t = np.arange(1000, 100_001)
    slope = np.polyfit(np.log(t), p[t - 1], 1)[0]
    kl = 0.4 * math.log(0.4 / 0.6) + 0.6 * math.log(0.6 / 0.4)
    assert gap / kl <= slope <= 8 / gap, slope
    # the received-reward regret agrees with the pseudo-regret within its noise
    assert abs(result.curves["regret"][0, -1] - p[-1]) < 4 * result.curves["regret_se"][0, -1]


def test_worker_count_does_not_change_a_single_bit():
    tb = GaussianTestbed(23, 5, seed=3)
    specs = ["ucb1", "thompson:prior=gaussian", "iucb:episodic=true"]
    one = run_testbed(specs, tb, 200, seed=9, workers=1, chunk_tasks=4, progress=False)
    two = run_testbed(specs, tb, 200, seed=9, workers=2, chunk_tasks=4, progress=False)
    for name in one.curves:
        assert np.array_equal(one.curves[name], two.curves[name], equal_nan=True), name
    assert one.diagnostics == two.diagnostics
    again = run_testbed(specs, tb, 200, seed=9, workers=1, chunk_tasks=4, progress=False)
    for name in one.curves:
        assert np.array_equal(one.curves[name], again.curves[name], equal_nan=True), name
    other_seed = run_testbed(["thompson:prior=gaussian"], tb, 200, seed=10, chunk_tasks=4, progress=False)
    assert not np.array_equal(other_seed.curves["regret"][0], one.curves["regret"][1])


def test_identical_policies_give_identical_curves_wherever_they_are_listed():
    tb = GaussianTestbed(6, 7, seed=1)
    both = run_testbed(["thompson:prior=gaussian", "ucb1", "thompson:prior=gaussian"], tb, 120, seed=2,
                       labels=["a", "b", "c"], progress=False)
    alone = run_testbed(["thompson:prior=gaussian"], tb, 120, seed=2, progress=False)
    for name in both.curves:
        assert np.array_equal(both.curves[name][0], both.curves[name][2], equal_nan=True)
        assert np.array_equal(both.curves[name][0], alone.curves[name][0], equal_nan=True)


def test_an_arm_returns_the_same_reward_sequence_whichever_policy_pulls_it():
    tb = GaussianTestbed(4, 5, seed=8)
    result = run_testbed(["ucb1", "thompson:prior=gaussian", "egreedy:epsilon=0.5"], tb, 80, seed=0,
                         progress=False, trace=True)
    arms, rewards = result.trace["arms"], result.trace["rewards"]
    assert not np.array_equal(arms[0], arms[1])  # the policies do play differently
    for i in range(tb.n_tasks):
        for a in range(tb.n_arms):
            expected = [tb.reward(i, a, j) for j in range(80)]
            for p in range(3):
                got = rewards[p, i][arms[p, i] == a]
                np.testing.assert_array_equal(got, expected[:len(got)])


def test_improved_ucb_diagnostics_are_summed_over_tasks():
    # Episodic improved UCB over 300 plays starts episodes at t = 0 (T = 2), 2 (T = 4), 4 (T = 16),
    # 16 (T = 256) and 256 (T = 65536): 5 episodes per task, 5 * 7 = 35 in all.
    tb = GaussianTestbed(7, 3, seed=0)
    result = run_testbed(["iucb:episodic=true"], tb, 300, progress=False)
    assert result.diagnostics[0]["episodes"] == 35.0
    assert result.diagnostics[0]["fallback_plays"] >= 0.0


def test_horizon_is_bound_and_one_task_has_no_standard_error():
    tb = GaussianTestbed(1, 3, seed=0)
    result = run_testbed(["iucb", "miucb"], tb, 40, progress=False)
    assert [make_policy(s).horizon for s in result.specs] == [40, 40]
    assert result.curves["regret"].shape == (2, 40)
    assert np.isnan(result.curves["regret_se"]).all()


@pytest.mark.parametrize("kwargs, message", [
    (dict(horizon=0), "horizon must be an integer >= 1, got 0"),
    (dict(horizon=-5), "horizon must be an integer >= 1, got -5"),
    (dict(seed=-1), "seed must be an integer >= 0"),
    (dict(workers=0), "workers must be an integer >= 1, got 0"),
    (dict(policies=["ucb2"]), "unknown policy 'ucb2'.*valid policies: ucb1"),
    (dict(policies=["ucb1:d=2"]), "unknown parameter 'd' for policy 'ucb1'; valid parameters: c"),
    (dict(policies=["ucb1:c=-1"]), "c must be >= 0"),
    (dict(policies=[]), "policies must name at least one policy"),
    (dict(policies=["ucb1", "ucb1"]), "labels must be unique"),
    (dict(testbed="gaussian"), "testbed must be a GaussianTestbed or BernoulliTestbed"),
    (dict(trace=True, horizon=10_000_000), "trace=True needs"),
    (dict(fused="yes"), "fused must be True, False or None"),
])
def test_bad_input_names_the_argument(kwargs, message):
    args = dict(policies=["ucb1"], testbed=GaussianTestbed(2, 2), horizon=10, seed=0, progress=False)
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        run_testbed(**args)


# The policies cover the kernels' three parts: an index (ucb1), rounds with a state (miucb),
# random draws (thompson), per-arm state updated on record (ducb, egreedy:alpha).  Each fused loop
# compiles for 10-30 s on a fresh clone, so the default tier checks ucb1 and the slow tier (CI's
# part of it: tests/ci_slow.txt) all five.
_FUSED_SETS = [pytest.param(["ucb1", "ucb1:c=0.3"], id="index"),
               pytest.param(["ucb1", "miucb", "thompson:prior=gaussian", "ducb:gamma=0.9", "egreedy:alpha=0.1"],
                            id="all-parts", marks=pytest.mark.slow)]


@pytest.mark.parametrize("specs", _FUSED_SETS)
@pytest.mark.parametrize("testbed", [GaussianTestbed(n_tasks=7, n_arms=6, seed=3),
                                     NonStationaryTestbed(n_tasks=5, n_arms=4, seed=1)], ids=["gaussian", "walk"])
def test_the_fused_loops_and_the_shared_loop_give_the_same_bits(testbed, specs):
    # The same policy code, compiled into a loop per policy (fused) or called through function
    # values from the one shared loop: every play, curve, diagnostic and recommendation equal.
    fused = run_testbed(specs, testbed, 120, seed=2, progress=False, fused=True, trace=True)
    shared = run_testbed(specs, testbed, 120, seed=2, progress=False, fused=False, trace=True)
    for name in fused.curves:
        np.testing.assert_array_equal(fused.curves[name], shared.curves[name])
    np.testing.assert_array_equal(fused.trace["arms"], shared.trace["arms"])
    np.testing.assert_array_equal(fused.trace["rewards"], shared.trace["rewards"])
    assert fused.diagnostics == shared.diagnostics and fused.recommendation == shared.recommendation
    assert len(set(fused.trace["arms"][:, 0, 60:].sum(axis=1))) > 1  # (the policies do play differently)


def test_the_run_s_size_chooses_the_loop():
    from testbeds.runner import FUSED_PLAYS, uses_fused

    assert uses_fused(None, FUSED_PLAYS // 1000, 1000) and not uses_fused(None, FUSED_PLAYS // 1000 - 1, 1000)
    assert uses_fused(None, 2000, 10_000)  # the paper's figure: a loop per policy
    assert uses_fused(True, 1, 1) and not uses_fused(False, 2000, 10_000)


_PARALLEL_COMPILE = r"""
import json
import numpy as np
from testbeds.runner import _fused_ready, run_testbed
from testbeds.testbed import GaussianTestbed
from bandits import make_policy
tb = GaussianTestbed(6, 4, seed=1)
specs = ["ucb1", "iucb:episodic=true"]
before = [_fused_ready(make_policy(s).bind(50), 4) for s in specs]
r = run_testbed(specs, tb, 50, seed=2, workers=2, chunk_tasks=3, progress=False, fused=True)
print(json.dumps([before, np.asarray(r.curves["regret"]).tolist()]))
"""


@pytest.mark.slow
def test_fused_loops_not_on_disk_compile_in_the_worker_processes(tmp_path):
    # a fresh numba cache: the two fused loops are not on disk, so the run compiles them in its two
    # worker processes at once, says so once, and a second process finds both on disk (loads them)
    # and computes the same curves, equal to a one-process run in this process
    import json
    import os
    import subprocess
    import sys

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"),
           "PYTHONPATH": os.path.dirname(os.path.dirname(os.path.abspath(__file__)))}
    runs = [subprocess.run([sys.executable, "-c", _PARALLEL_COMPILE], env=env, capture_output=True, text=True,
                           timeout=600) for _ in range(2)]
    assert all(r.returncode == 0 for r in runs), runs[0].stderr[-2000:] + runs[1].stderr[-2000:]
    first, second = (json.loads(r.stdout.strip().splitlines()[-1]) for r in runs)
    assert first[0] == [False, False] and second[0] == [True, True]
    assert "compiling the testbed loops of 2 policies, 2 at a time" in runs[0].stderr
    assert "compiling the testbed loops" not in runs[1].stderr
    here = run_testbed(["ucb1", "iucb:episodic=true"], GaussianTestbed(6, 4, seed=1), 50, seed=2, workers=1,
                       chunk_tasks=3, progress=False, fused=True)
    assert first[1] == second[1] == np.asarray(here.curves["regret"]).tolist()
