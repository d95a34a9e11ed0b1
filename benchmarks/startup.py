"""First-run cost: what a new user waits for, with numba's cache empty ("cold") and then filled ("warm").

    python benchmarks/startup.py                    # first search of each built-in game, cold and warm
    python benchmarks/startup.py --figures          # + `banditree figures` at full size, cold and warm
    python benchmarks/startup.py --suite            # + the whole test suite, cold and warm (minutes)

Every measurement runs in a new process with ``NUMBA_CACHE_DIR`` pointing at a folder of its own:
empty for the cold run (as on a fresh clone), the same folder again for the warm run.  Your own
numba cache is not touched.  Reported: wall time of the whole process (interpreter start, imports,
compilation or cache loading, the work).

Targets on the 2-core reference machine (issue "open core"): first 1000-iteration search in a new
process <= 30 s cold and <= 1.5 s warm for every built-in game; ``banditree figures`` at full size
<= 90 s cold and <= 25 s warm; the test suite from a fresh clone <= 5 minutes.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GAMES = ("tictactoe", "connect4", "go", "nogo")

_SEARCH = """
from treepolicies import make_game, search
r = search(make_game({game!r}), {policy!r}, iterations=1000, seed=0, early_stop=False)
assert r.iterations == 1000
"""


def timed(command, cache_dir: str, cwd: str = ROOT) -> float:
    """Wall seconds of ``command`` in a new process with numba's cache in ``cache_dir``."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir, "PYTHONPATH": ROOT}
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return elapsed


def cold_and_warm(command, label: str, cwd: str = ROOT) -> None:
    with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
        cold = timed(command, cache, cwd)
        warm = timed(command, cache, cwd)
    print(f"{label:52s}{cold:10.1f}{warm:10.2f}", flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=GAMES)
    parser.add_argument("--policy", default="ucb1", help="node policy of the searches (default ucb1)")
    parser.add_argument("--figures", action="store_true", help="also time `banditree figures` at full size")
    parser.add_argument("--suite", action="store_true", help="also time the whole test suite (several minutes)")
    args = parser.parse_args(argv)

    print(f"{'new process, seconds of wall time':52s}{'cold':>10s}{'warm':>10s}")
    for game in args.games:
        code = _SEARCH.format(game=game, policy=args.policy)
        cold_and_warm([sys.executable, "-c", code], f"first 1000-iteration search, {game} ({args.policy})")
    if args.figures:
        with tempfile.TemporaryDirectory() as out:
            n = iter(range(2))
            with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
                times = [timed([sys.executable, "-m", "testbeds.cli", "figures", "--out",
                                os.path.join(out, f"fig{next(n)}"), "--no-progress"], cache) for _ in range(2)]
        print(f"{'banditree figures (2000 tasks, K = 60, 10 000 plays)':52s}{times[0]:10.1f}{times[1]:10.2f}", flush=True)
    if args.suite:
        cold_and_warm([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider"], "test suite (python -m pytest)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
