"""MCTS iterations per second from the empty board: UCT and Mi-UCT on tic-tac-toe and Connect Four.

    python benchmarks/search_speed.py [--iterations 100000] [--repeats 5]

Our searches run compiled (treepolicies.mcts.calls), with the loop that serves every policy and with
one compiled for the policy (``specialize=True``), without early stopping, one search of
``--iterations`` per repeat (after a warm-up that compiles); the median rate is printed.  When the
optional ``open_spiel`` package is importable, OpenSpiel's C++ MCTS bot (``pyspiel.MCTSBot``, one
random rollout per iteration, UCT c = sqrt 2, no solver) runs the same number of iterations on the
same games in the same run, and its Python bot (``open_spiel.python.algorithms.mcts``) a smaller
number (``--python-iterations``); the last column is our rate over OpenSpiel's C++ rate.
Then the enhancements (docs/enhancements.md) on Connect Four and 9x9 Go, in the same run: UCT
(``ucb1:c=0.5``) plain, with RAVE, GRAVE, heuristic rollouts and RAVE + heuristic rollouts,
iterations per second (``--enhancement-iterations`` per search) and their ratio to plain UCT, and
the memory per node with and without the AMAF statistics.
A measurement, not a test: nothing here asserts a speed.
"""
from __future__ import annotations

import argparse
import math
import statistics
import time

from treepolicies import ConnectFour, TicTacToe, search
from treepolicies.games.go import Go
from treepolicies.mcts.dag import dag_bytes_per_row
from treepolicies.mcts.tree import bytes_per_node

GAMES = {"tictactoe": (TicTacToe, "tic_tac_toe"), "connect4": (ConnectFour, "connect_four")}
POLICIES = {"UCT": f"ucb1:c={math.sqrt(2.0)!r}", "Mi-UCT": "miucb:episodic=true"}
#: search keywords of each row: the loop that serves every policy, and one compiled for the policy
VARIANTS = {"": {}, " (specialize)": {"specialize": True}}
#: the enhancement rows: search keywords beside plain UCT
ENHANCEMENTS = {"plain UCT": {}, "RAVE": {"rave": True}, "GRAVE (ref 50)": {"grave_ref": 50},
                "heuristic rollouts": {"rollout": "heuristic"},
                "RAVE + heuristic": {"rave": True, "rollout": "heuristic"},
                "FPU parent - 0.1": {"fpu_reduction": 0.1},
                "widening k=2 (prior)": {"widen_k": 2.0, "prior": "heuristic"},
                "PUCT uniform": {"spec": "puct:c=1.5"},
                "PUCT heuristic prior": {"spec": "puct:c=1.5", "prior": "heuristic"},
                "transpositions": {"transpositions": True}}


def ours(game_cls, spec, iterations, repeats, **options):
    search(game_cls(), spec, iterations=100, seed=0, **options)  # compile
    rates = []
    for r in range(repeats):
        result = search(game_cls(), spec, iterations=iterations, seed=r + 1, early_stop=False, **options)
        rates.append(result.iterations / result.elapsed)
    return statistics.median(rates)


def openspiel_cpp(name, iterations, repeats):
    import pyspiel

    game = pyspiel.load_game(name)
    rates = []
    for r in range(repeats):
        bot = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, r), math.sqrt(2.0), iterations, 4000,
                              False, r, False)
        state = game.new_initial_state()
        t0 = time.perf_counter()
        bot.step(state)
        rates.append(iterations / (time.perf_counter() - t0))
    return statistics.median(rates)


def openspiel_python(name, iterations):
    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game(name)
    rng = np.random.RandomState(0)  # OpenSpiel's own API takes a RandomState
    bot = mcts.MCTSBot(game, math.sqrt(2.0), iterations, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    t0 = time.perf_counter()
    bot.step(game.new_initial_state())
    return iterations / (time.perf_counter() - t0)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--iterations", type=int, default=100_000)
    parser.add_argument("--python-iterations", type=int, default=2_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--enhancement-iterations", type=int, default=20_000)
    parser.add_argument("--only-enhancements", action="store_true", help="skip the first table")
    args = parser.parse_args(argv)
    if args.only_enhancements:
        return enhancements(args)
    try:
        import pyspiel  # noqa: F401
        have_openspiel = True
    except ImportError:
        have_openspiel = False
    print(f"MCTS iterations/s from the empty board, {args.iterations} iterations per search, "
          f"median of {args.repeats}")
    header = f"{'game':10s} {'player':21s} {'ours':>10s}"
    if have_openspiel:
        header += f" {'OpenSpiel C++':>14s} {'OpenSpiel Py':>13s} {'ours/C++':>9s}"
    print(header)
    for game_name, (cls, os_name) in GAMES.items():
        cpp = py = None
        if have_openspiel:
            cpp = openspiel_cpp(os_name, args.iterations, args.repeats)
            py = openspiel_python(os_name, args.python_iterations)
        for label, spec in POLICIES.items():
            for suffix, options in VARIANTS.items():
                rate = ours(cls, spec, args.iterations, args.repeats, **options)
                line = f"{game_name:10s} {label + suffix:21s} {rate:10.0f}"
                if have_openspiel:
                    line += f" {cpp:14.0f} {py:13.0f} {rate / cpp:9.2f}"
                print(line, flush=True)
    if not have_openspiel:
        print("(open_spiel not importable: OpenSpiel columns skipped)")
    return enhancements(args)


def enhancements(args) -> int:
    print(f"\nEnhancements, UCT ucb1:c=0.5, {args.enhancement_iterations} iterations per search, "
          f"median of {args.repeats}")
    print(f"{'game':10s} {'search':21s} {'it/s':>10s} {'/ plain':>8s}")
    for game_name, cls in (("connect4", ConnectFour), ("go 9x9", Go)):
        plain = None
        for label, options in ENHANCEMENTS.items():
            options = dict(options)
            spec = options.pop("spec", "ucb1:c=0.5")
            rate = ours(cls, spec, args.enhancement_iterations, args.repeats, **options)
            plain = plain or rate
            print(f"{game_name:10s} {label:21s} {rate:10.0f} {rate / plain:8.2f}", flush=True)
    print(f"memory per node (UCB1): {bytes_per_node(0, 0)} B plain, {bytes_per_node(0, 0, amaf=True)} B with the "
          f"AMAF statistics (RAVE / GRAVE), {bytes_per_node(0, 0, prior=True)} B with priors, "
          f"{bytes_per_node(0, 0) + dag_bytes_per_row()} B per row with transpositions (hash table included)")
    evaluator_rates(args)
    return 0


def evaluator_rates(args) -> None:
    """Evaluator calls and leaves per second on Connect Four, PUCT, batches of 1, 8 and 64 leaves, in
    the tree and on the DAG of ``transpositions=True`` (a constant evaluator: the cost is the
    search's own, not a model's)."""
    import numpy as np

    calls = []

    def flat(states, moves, counts):
        calls.append(len(states))
        return np.ones(moves.shape), np.full(len(states), 0.5)

    n = max(2000, args.enhancement_iterations // 4)
    print(f"\nLeaf evaluator on connect4, PUCT, {n} iterations (constant evaluator)")
    print(f"{'batch':>6s} {'search':>8s} {'leaves/s':>10s} {'calls/s':>10s} {'leaves/call':>12s}")
    for dag in (False, True):
        for batch in (1, 8, 64):
            kw = dict(evaluator=flat, eval_batch=batch, transpositions=dag)
            search(ConnectFour(), "puct:c=1.5", iterations=100, seed=0, **kw)
            rates, crates, per = [], [], []
            for r in range(args.repeats):
                calls.clear()
                res = search(ConnectFour(), "puct:c=1.5", iterations=n, seed=r + 1, early_stop=False, **kw)
                rates.append(res.iterations / res.elapsed)
                crates.append(len(calls) / res.elapsed)
                per.append(sum(calls) / len(calls))
            print(f"{batch:6d} {'DAG' if dag else 'tree':>8s} {statistics.median(rates):10.0f} "
                  f"{statistics.median(crates):10.0f} {statistics.median(per):12.1f}", flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
