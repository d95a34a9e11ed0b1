"""User policies from a file outside the package (tests/plugin_policies.py): testbed, tree, command
line, worker processes, the Python fallback, clear errors, the disk cache and honest clocks."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import bandits
from bandits import make_policy
from bandits.rng import counter_normal
from testbeds.cli import main
from testbeds.runner import run_testbed
from testbeds.testbed import GaussianTestbed
from treepolicies import search
from treepolicies.games import GAMES, make_game

from tests.test_search import check_one_level_tree_is_the_bandit

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PLUGIN = os.path.join(HERE, "plugin_policies.py")
plugin = bandits.load_plugin(PLUGIN)


def _tuned(n, s, q, t, c):
    """UCB1-Tuned in numpy, the formula of plugin_policies.py written again: n pulls, s sums,
    q sums of squares (arrays over the tried arms), t pulls of the bandit."""
    w = s / n
    v = q / n - w * w + np.sqrt(2.0 * np.log(t) / n)
    return w + c * np.sqrt(np.log(t) / n * np.minimum(0.25, v))


def _replay_rewards(tb, task, arms):
    """The testbed's common random numbers for this arm sequence: mean + sd * counter_normal(seed,
    task, arm, j) for the j-th pull of the arm (testbeds.testbed)."""
    pulls = np.zeros(tb.n_arms, dtype=np.int64)
    out = []
    for a in arms:
        out.append(tb.means[task, a] + tb.reward_sd * counter_normal(tb.seed, task, int(a), int(pulls[a])))
        pulls[a] += 1
    return np.array(out)


def test_index_plugin_on_the_testbed_equals_numpy_arm_by_arm():
    tb = GaussianTestbed(n_tasks=3, n_arms=6, seed=5)
    horizon, c = 300, 1.5
    r = run_testbed([f"t_ucb1tuned:c={c}"], tb, horizon=horizon, seed=2, trace=True, progress=False)
    arms, rewards = r.trace["arms"][0], r.trace["rewards"][0]
    regret = np.zeros(horizon)
    for task in range(tb.n_tasks):
        np.testing.assert_array_equal(rewards[task], _replay_rewards(tb, task, arms[task]))
        n, s, q = np.zeros(tb.n_arms), np.zeros(tb.n_arms), np.zeros(tb.n_arms)
        for h, a in enumerate(arms[task]):
            if (n == 0).any():
                assert n[a] == 0  # untried arms first
            else:
                index = _tuned(n, s, q, h, c)
                assert a == int(np.argmax(index))  # (continuous rewards: no ties)
            x = rewards[task, h]
            n[a], s[a], q[a] = n[a] + 1, s[a] + x, q[a] + x * x
        regret += np.cumsum(tb.means[task].max() - rewards[task])
    np.testing.assert_allclose(r.curves["regret"][0], regret / tb.n_tasks, rtol=1e-12, atol=1e-9)


def test_an_index_reading_per_arm_state_on_the_testbed_equals_numpy():
    # t_bestucb (plugin_policies.py): index B_i + c sqrt(ln t / t_i), B_i the best reward of arm i
    # so far, kept by the policy's on_record in arm_state and read through the index's seventh
    # parameter; replayed here from the arms and rewards alone
    tb = GaussianTestbed(n_tasks=3, n_arms=5, seed=8)
    horizon, c = 200, 0.5
    r = run_testbed([f"t_bestucb:c={c}"], tb, horizon=horizon, seed=4, trace=True, progress=False)
    arms, rewards = r.trace["arms"][0], r.trace["rewards"][0]
    differs = 0
    for task in range(tb.n_tasks):
        n, s, best = np.zeros(tb.n_arms), np.zeros(tb.n_arms), np.full(tb.n_arms, -np.inf)
        for h, a in enumerate(arms[task]):
            if (n == 0).any():
                assert n[a] == 0
            else:
                bonus = c * np.sqrt(np.log(h) / n)
                assert a == int(np.argmax(best + bonus))
                differs += a != int(np.argmax(s / n + bonus))
            n[a] += 1
            s[a] += rewards[task, h]
            best[a] = max(best[a], rewards[task, h])
    assert differs > 0  # (the per-arm state matters: the means alone would choose otherwise)


def test_stateful_plugin_on_the_testbed_equals_numpy():
    # explore-then-commit with m = 2 on 4 arms: plays 0,0,1,1,2,2,3,3, then the arm with the best
    # mean of those two pulls (first on ties) for the rest of the horizon.
    tb = GaussianTestbed(n_tasks=4, n_arms=4, seed=9)
    r = run_testbed(["t_etc:m=2"], tb, horizon=40, seed=0, trace=True, progress=False)
    arms = r.trace["arms"][0]
    for task in range(tb.n_tasks):
        explore = np.repeat(np.arange(4), 2)
        np.testing.assert_array_equal(arms[task, :8], explore)
        x = _replay_rewards(tb, task, explore).reshape(4, 2).mean(axis=1)
        assert (arms[task, 8:] == int(np.argmax(x))).all()


@pytest.mark.parametrize("spec", ["t_ucb1tuned:c=0.8", "t_etc:m=5", "t_bestucb:c=0.3"])
def test_one_level_tree_reproduces_the_plugin_bandit(spec):
    check_one_level_tree_is_the_bandit(spec, 300)  # (tests/test_search.py: the tree adds nothing at depth one)


@pytest.mark.parametrize("game_name", sorted(GAMES))
@pytest.mark.parametrize("spec", ["t_ucb1tuned", "t_etc:m=1"])
def test_plugins_run_in_the_tree_on_every_game(game_name, spec):
    game = make_game(game_name)
    result = search(game, spec, iterations=200, seed=3, early_stop=False)
    assert result.move in game.legal_moves()
    assert sorted(result.moves, key=str) == sorted(game.legal_moves(), key=str)
    assert result.iterations == 200 and result.visits.sum() == 200
    assert np.all((result.values >= 0) & (result.values <= 1))


def test_unknown_and_badly_registered_policies_are_clear_errors():
    with pytest.raises(ValueError, match="unknown policy 't_ucb1tunedx'.*valid policies: .*t_ucb1tuned"):
        make_policy("t_ucb1tunedx")
    with pytest.raises(ValueError, match="unknown policy"):
        search(make_game("tictactoe"), "nosuchpolicy", iterations=10)
    with pytest.raises(ValueError, match="unknown parameter 'k' for policy 't_ucb1tuned'; valid parameters: c"):
        make_policy("t_ucb1tuned:k=1")
    with pytest.raises(ValueError, match="c must be >= 0"):
        make_policy("t_ucb1tuned:c=-1")
    with pytest.raises(ValueError, match="already registered"):
        bandits.index_policy("ucb1")(lambda stats, i, t, params, state: 0.0)
    with pytest.raises(ValueError, match="kernel_spec must be a bandits.KernelSpec"):
        class NoKernels(bandits.Policy):
            name = "t_nokernels"
        bandits.register_policy(NoKernels)
    assert "t_nokernels" not in bandits.POLICIES


def test_a_select_kernel_returning_no_arm_is_an_error_not_a_silent_pick():
    import numba

    @numba.njit
    def bad_select(params, state, arm_state, stats, valid, t, rng, work):
        return -1

    bandits.stateful_policy("t_bad", select=bad_select)
    policy = make_policy("t_bad")
    batch = policy.init(2, 3)
    with pytest.raises(ValueError, match="outside 0..K-1"):
        policy.select(batch, 0)
    with pytest.raises(ValueError, match="outside 0..K-1"):
        search(make_game("tictactoe"), "t_bad", iterations=20)


def test_a_policy_numba_cannot_compile_runs_as_python_after_a_notice(capfd, monkeypatch):
    import bandits.registry as registry

    # the notice comes once per process: forget kernels an earlier test built for this class
    kept = {k: v for k, v in registry._KERNELS.items() if k[0].name != "t_scipy_ucb"}
    monkeypatch.setattr(registry, "_KERNELS", kept)
    policy = make_policy("t_scipy_ucb:c=0.5")
    batch = policy.init(1, 3)
    for a, x in ((0, 0.2), (1, 0.9), (2, 0.4), (2, 0.6)):
        policy.update(batch, np.array([a]), np.array([x]))
    arm = policy.select(batch, 0)
    err = capfd.readouterr().err
    assert "numba cannot compile policy 't_scipy_ucb'" in err and "plain Python" in err
    # hand values: t = 4, erfinv(1 - 1/5) = erfinv(0.8) = 0.9061938; means 0.2, 0.9, 0.5 with 1, 1, 2 pulls
    from scipy.special import erfinv
    index = np.array([0.2, 0.9, 0.5]) + 0.5 * erfinv(0.8) / np.sqrt([1.0, 1.0, 2.0])
    assert int(arm[0]) == int(np.argmax(index)) == 1
    result = search(make_game("tictactoe"), "t_scipy_ucb", iterations=60, seed=1, early_stop=False)
    assert result.visits.sum() == 60


def test_command_line_plugins(tmp_path, capsys):
    out = tmp_path / "tb"
    rc = main(["testbed", "--plugin", PLUGIN, "--policy", "t_ucb1tuned:c=1", "--policy", "t_etc:m=2",
               "--tasks", "3", "--arms", "4", "--horizon", "30", "--workers", "1", "--out", str(out),
               "--no-plots", "--no-progress"])
    assert rc == 0
    summary = (out / "summary.csv").read_text()
    assert "t_ucb1tuned:c=1" in summary and "t_etc:m=2" in summary
    rc = main(["match", "--plugin", PLUGIN, "--game", "tictactoe", "--a", "t_etc:m=1", "--b", "random",
               "--playouts", "50", "--games", "2", "--seed", "0", "--no-progress"])
    assert rc == 0
    capsys.readouterr()
    rc = main(["testbed", "--plugin", str(tmp_path / "missing.py"), "--tasks", "2", "--horizon", "5",
               "--out", str(tmp_path / "x")])
    assert rc == 2 and "--plugin" in capsys.readouterr().err


def test_worker_processes_rebuild_a_plugin_policy():
    tb = GaussianTestbed(n_tasks=6, n_arms=5, seed=1)
    one = run_testbed(["t_ucb1tuned", "t_etc:m=2"], tb, horizon=50, seed=0, workers=1, progress=False, chunk_tasks=2)
    two = run_testbed(["t_ucb1tuned", "t_etc:m=2"], tb, horizon=50, seed=0, workers=2, progress=False, chunk_tasks=2)
    for name in one.curves:
        np.testing.assert_array_equal(one.curves[name], two.curves[name])


_SCRIPT = textwrap.dedent("""
    import json, sys
    import bandits
    from bandits.compiling import cache_report
    from testbeds.runner import run_testbed
    from testbeds.testbed import GaussianTestbed
    from treepolicies import alphabeta, search
    from treepolicies.games import GAMES, make_game
    bandits.load_plugin(sys.argv[1])
    run_testbed(["ucb1", "miucb:episodic=true", "t_ucb1tuned", "t_etc"], GaussianTestbed(n_tasks=2, n_arms=4, seed=0),
                horizon=20, progress=False)  # (a small run: the loop every policy shares)
    run_testbed(["ucb1", "t_ucb1tuned"], GaussianTestbed(n_tasks=2, n_arms=4, seed=0), horizon=20, progress=False,
                fused=True)  # (a loop per policy)
    for name in sorted(GAMES):
        for spec in ("ucb1", "t_ucb1tuned"):
            search(make_game(name), spec, iterations=30, seed=0)
    for name in ("tictactoe", "connect4"):
        alphabeta(make_game(name), depth=2)
    print(json.dumps(cache_report()))
""")


@pytest.mark.slow  # (a fresh process or an outside program: minutes of the default tier; CI runs it)
def test_a_second_process_finds_every_kernel_in_the_disk_cache():
    def run():
        proc = subprocess.run([sys.executable, "-c", _SCRIPT, PLUGIN], capture_output=True, text=True, cwd=ROOT,
                              env={**os.environ, "PYTHONPATH": ROOT}, timeout=900)
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout.strip().splitlines()[-1])

    run()  # fills the cache where it is still empty
    report = run()
    compiled = {name: e["misses"] for name, e in report.items() if e["misses"]}
    assert compiled == {}
    loaded = " ".join(report)
    assert "loops._make_single.<locals>.single" in loaded  # the games' search loops
    assert "runner._make_chunk_runner.<locals>.run_chunk" in loaded  # the testbed loops, fused
    assert "runner._run_chunk_shared" in loaded  # and shared
    assert "index.make_select.<locals>.select" in loaded  # index policies' kernels, plugins included
    assert "alphabeta._make.<locals>.search" in loaded  # alpha-beta's search, one a game


def test_a_seconds_budget_starts_after_compilation(tmp_path):
    # A policy no process has compiled yet (its source is new), searched with seconds=0.1 in a fresh
    # process: its compilation (about a second) must not eat the budget, so the first search runs
    # a good share of the iterations of the same search repeated warm in that process.  (Had the
    # clock started before compiling, the first search would stop after its first chunk of 64
    # iterations; a tenth of the warm search's thousands leaves room for a loaded machine, where
    # the first search's cache loading and a busy core took it to 0.499 of the warm one.)
    token = f"{os.getpid()}_{abs(hash(str(tmp_path))) % 10**8}"
    path = tmp_path / "fresh_policy.py"
    path.write_text(textwrap.dedent(f"""
        import math, numba, bandits
        from bandits.stats import MEAN, ISQRT
        @bandits.index_policy("t_fresh_{token}", c=1.0)
        @numba.njit
        def fresh(stats, i, t, params, state):
            return stats[MEAN, i] + params[0] * {1.0 + 1e-9 * (hash(token) % 1000)!r} * math.sqrt(math.log(t)) * stats[ISQRT, i]
    """))
    script = textwrap.dedent(f"""
        import bandits
        from treepolicies import search
        from treepolicies.games import make_game
        bandits.load_plugin({str(path)!r})
        first = search(make_game("connect4"), "t_fresh_{token}", seconds=0.1, seed=0)
        warm = search(make_game("connect4"), "t_fresh_{token}", seconds=0.1, seed=0)
        print(first.iterations, warm.iterations, first.elapsed)
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": ROOT}, timeout=600)
    assert proc.returncode == 0, proc.stderr
    first, warm, _ = proc.stdout.split()
    assert int(first) >= int(warm) / 10 and int(warm) > 640


@pytest.mark.parametrize("spec", ["ucb1:c=0.7", "t_etc:m=1"])
def test_a_loop_specialised_for_the_policy_searches_exactly_as_the_shared_loop(spec):
    # specialize=True compiles the policy's code into the game's loop instead of calling it through
    # its function values: the same functions, so the same tree, visit for visit.
    game = make_game("tictactoe")
    game.play(4)
    shared = search(game, spec, iterations=2000, seed=5, early_stop=False)
    own = search(game, spec, iterations=2000, seed=5, early_stop=False, specialize=True)
    assert own.moves == shared.moves and own.move == shared.move
    np.testing.assert_array_equal(own.visits, shared.visits)
    np.testing.assert_array_equal(own.values, shared.values)
    assert own.tree_size == shared.tree_size
