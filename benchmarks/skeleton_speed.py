"""The one-skeleton redesign's speed, old code against new, interleaved in one run (issue 23).

    python benchmarks/skeleton_speed.py --old /path/to/clone-of-fac6c75 [--repeats 5] [--what rates|threads|openspiel]

Each measurement runs in a fresh process per repeat, alternating the two source trees
(``PYTHONPATH``), after a warm-up search in that process that compiles (or loads) everything; the
best of the repeats is reported (a noisy 2-core machine: the best is the least disturbed), with the
ratio new / old.

* ``rates``: iterations per second of fixed-seed searches from the empty board (no early stop):
  plain UCT (``ucb1:c=0.5``) on Connect Four and 9x9 Go, and each enhancement on them, with its
  ratio to plain UCT in the same tree;
* ``threads``: 9x9 Go iterations per second with 1 and 2 threads (parallel='tree') for plain UCT,
  RAVE and heuristic priors (the old code refused the last two with threads);
* ``openspiel``: Connect Four through the default path (``search(game, "ucb1")``: the new default
  ``specialize=auto`` takes the specialised loop once it is on disk) against OpenSpiel's C++
  ``MCTSBot`` (one random rollout per iteration, UCT c = sqrt 2), needs ``pip install open_spiel``.

Instruction counts (repeatable whatever the machine does) are what ``--valgrind`` prints: the
plain Connect Four and 9x9 Go searches under ``valgrind --tool=callgrind``, old and new.
A measurement, not a test: nothing here asserts a speed.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: (label, game, spec, search keywords); the enhancements are searched with ucb1:c=0.5 unless given
RATES = [
    ("plain UCT", "connect4", "ucb1:c=0.5", {}),
    ("RAVE", "connect4", "ucb1:c=0.5", {"rave": True}),
    ("heuristic rollouts", "connect4", "ucb1:c=0.5", {"rollout": "heuristic"}),
    ("PUCT heuristic prior", "connect4", "puct:c=1.5", {"prior": "heuristic"}),
    ("transpositions", "connect4", "ucb1:c=0.5", {"transpositions": True}),
    ("plain UCT", "go", "ucb1:c=0.5", {}),
    ("RAVE", "go", "ucb1:c=0.5", {"rave": True}),
    ("GRAVE (ref 50)", "go", "ucb1:c=0.5", {"grave_ref": 50}),
    ("RAVE + heuristic", "go", "ucb1:c=0.5", {"rave": True, "rollout": "heuristic"}),
    ("widening k=2 (prior)", "go", "ucb1:c=0.5", {"widen_k": 2.0, "prior": "heuristic"}),
    ("transpositions", "go", "ucb1:c=0.5", {"transpositions": True}),
]
ITERATIONS = {"connect4": 100_000, "go": 20_000}

_CHILD = r"""
import json, sys, time
from treepolicies import search
from treepolicies.games import make_game
game, spec, kw, n, repeats = json.loads(sys.argv[1])
g = make_game(game)
search(g, spec, iterations=200, seed=0, **kw)  # compile / load before timing
best = 0.0
for r in range(repeats):
    res = search(g, spec, iterations=n, seed=r + 1, early_stop=False, **kw)
    best = max(best, res.iterations / res.elapsed)
print(json.dumps(best))
"""


def _rate(tree, game, spec, kw, n, repeats=1):
    env = {**os.environ, "PYTHONPATH": tree}
    out = subprocess.run([sys.executable, "-c", _CHILD, json.dumps([game, spec, kw, n, repeats])], cwd=tree, env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _interleaved(old, new, game, spec, kw, n, repeats):
    """Best of ``repeats`` fresh processes each, alternating the trees; (old, new) it/s."""
    best = {"old": 0.0, "new": 0.0}
    for _ in range(repeats):
        for name, tree in (("old", old), ("new", new)):
            if tree is None:
                continue
            try:
                best[name] = max(best[name], _rate(tree, game, spec, kw, n))
            except subprocess.CalledProcessError as exc:  # the old code refuses the combination
                best[name] = float("nan") if "does not combine" in exc.stderr else best[name]
    return best["old"], best["new"]


def rates(args):
    print(f"iterations/s, best of {args.repeats} fresh processes each (Connect Four {ITERATIONS['connect4']}, "
          f"9x9 Go {ITERATIONS['go']} iterations a search)")
    print(f"{'game':9s} {'search':22s} {'old':>9s} {'new':>9s} {'new/old':>8s} {'old/plain':>9s} {'new/plain':>9s}")
    plain = {}
    for label, game, spec, kw in RATES:
        o, n = _interleaved(args.old, HERE, game, spec, kw, ITERATIONS[game], args.repeats)
        if label == "plain UCT":
            plain[game] = (o, n)
        po, pn = plain[game]
        print(f"{game:9s} {label:22s} {o:9.0f} {n:9.0f} {n / o:8.3f} {o / po:9.3f} {n / pn:9.3f}", flush=True)


def threads(args):
    print(f"9x9 Go, {ITERATIONS['go']} iterations, iterations/s with 1 and 2 threads (parallel='tree'), best of "
          f"{args.repeats}; nan: refused")
    print(f"{'search':22s} {'tree':>5s} {'1 thread':>9s} {'2 threads':>9s} {'speed-up':>9s}")
    for label, kw in (("plain UCT", {}), ("RAVE", {"rave": True}), ("heuristic priors", {"prior": "heuristic"}),
                      ("RAVE + priors", {"rave": True, "prior": "heuristic"})):
        for name, tree in (("old", args.old), ("new", HERE)):
            one, two = 0.0, 0.0
            for _ in range(args.repeats):
                one = max(one, _interleaved(None, tree, "go", "ucb1:c=0.5", kw, ITERATIONS["go"], 1)[1])
                r2 = _interleaved(None, tree, "go", "ucb1:c=0.5", {**kw, "threads": 2}, ITERATIONS["go"], 1)[1]
                two = max(two, r2) if r2 == r2 else float("nan")
            print(f"{label:22s} {name:>5s} {one:9.0f} {two:9.0f} {two / one:9.2f}", flush=True)


_OPENSPIEL = r"""
import json, math, sys, time
import pyspiel
n, repeats = json.loads(sys.argv[1])
game = pyspiel.load_game("connect_four")
best = 0.0
for r in range(repeats):
    bot = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, r), math.sqrt(2.0), n, 4000, False, r, False)
    state = game.new_initial_state()
    t = time.perf_counter()
    bot.step(state)
    best = max(best, n / (time.perf_counter() - t))
print(json.dumps(best))
"""


def openspiel(args):
    n = ITERATIONS["connect4"]
    spec = "ucb1:c=1.4142135623730951"
    ours_old, ours_new, cpp = 0.0, 0.0, 0.0
    for _ in range(args.repeats):
        out = subprocess.run([sys.executable, "-c", _OPENSPIEL, json.dumps([n, 1])], capture_output=True, text=True,
                             check=True)
        cpp = max(cpp, json.loads(out.stdout.strip().splitlines()[-1]))
        o, w = _interleaved(args.old, HERE, "connect4", spec, {}, n, 1)
        ours_old, ours_new = max(ours_old, o), max(ours_new, w)
    print(f"Connect Four, {n} iterations from the empty board, UCT c = sqrt 2, default search keywords, best of "
          f"{args.repeats}")
    print(f"OpenSpiel C++ MCTSBot {cpp:9.0f} it/s")
    print(f"old default path      {ours_old:9.0f} it/s  {ours_old / cpp:5.2f}x")
    print(f"new default path      {ours_new:9.0f} it/s  {ours_new / cpp:5.2f}x")


_VALGRIND = r"""
import sys
from treepolicies import search
from treepolicies.games import make_game
game, n = sys.argv[1], int(sys.argv[2])
g = make_game(game)
search(g, "ucb1:c=0.5", iterations=200, seed=0, specialize=False)
search(g, "ucb1:c=0.5", iterations=n, seed=1, early_stop=False, specialize=False)
"""


def valgrind(args):
    """Instructions of a plain search (minus those of the 200-iteration warm-up alone), old and new.

    valgrind reports a CPU of its own, so numba's disk cache (keyed by the CPU) would miss and the
    whole loop compile under valgrind (hours): every run here compiles for the generic CPU
    (``NUMBA_CPU_NAME=generic``) into a cache of its own, filled by one run outside valgrind first,
    and callgrind counts only inside the search loop (``--toggle-collect``)."""
    print("instructions (valgrind callgrind) of a plain ucb1:c=0.5 search, the shared loop, minus the warm-up")
    loops = {"old": "*compiled6_build*", "new": "*loops12_make_single*"}
    for game, n in (("connect4", 20_000), ("go", 5_000)):
        counts = {}
        for name, tree in (("old", args.old), ("new", HERE)):
            totals = []
            script = _VALGRIND if name == "new" else _VALGRIND.replace(", specialize=False", "")
            with tempfile.TemporaryDirectory() as cache:
                env = {**os.environ, "PYTHONPATH": tree, "NUMBA_CPU_NAME": "generic", "NUMBA_CACHE_DIR": cache}
                subprocess.run([sys.executable, "-c", script, game, "1"], cwd=tree, env=env, check=True,
                               capture_output=True)
                for iters in (n, 1):
                    out = os.path.join(cache, "cg.out")
                    proc = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                                           f"--toggle-collect={loops[name]}", sys.executable, "-c", script, game,
                                           str(iters)], cwd=tree, env=env, capture_output=True, text=True)
                    m = re.search(r"Collected : (\d+)", proc.stderr)
                    totals.append(int(m.group(1)))
            counts[name] = totals[0] - totals[1]
            if totals[0] == 0:
                raise SystemExit(f"callgrind counted nothing inside {loops[name]!r} in the {name} code ({tree}): "
                                 "that pattern names no compiled function there (numba's mangled names)")
        print(f"{game:9s} {n} iterations: old {counts['old'] / 1e6:.1f} M, new {counts['new'] / 1e6:.1f} M, "
              f"new/old {counts['new'] / counts['old']:.4f}", flush=True)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--old", required=True, help="a checkout of the code before the redesign (fac6c75)")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--what", choices=("rates", "threads", "openspiel", "valgrind", "all"), default="all")
    args = p.parse_args(argv)
    args.old = os.path.abspath(args.old)
    for what in (("rates", "threads", "openspiel", "valgrind") if args.what == "all" else (args.what,)):
        {"rates": rates, "threads": threads, "openspiel": openspiel, "valgrind": valgrind}[what](args)
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
