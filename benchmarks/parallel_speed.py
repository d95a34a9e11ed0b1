"""Iterations per second of parallel MCTS (docs/parallel.md): 1 and 2 threads (``--threads``), each
mode (tree, root, leaf), 9x9 Go and Connect Four, in one run.

    python benchmarks/parallel_speed.py [--threads 1,2] [--repeats 5] [--go-iterations 20000]
                                        [--c4-iterations 200000] [--policy ucb1:c=0.5]

Every search starts from the empty board, without early stopping, after a warm-up that compiles
(or loads) everything.  The configurations are interleaved: each repeat runs every (game, mode,
threads) once, in turn, so that a change in the machine's load hits them all alike; the median rate
of each and its ratio to the single-threaded search (threads=1: the plain loop) of the same game
are printed.  The machine is measured too: the load average (``os.getloadavg``) before and after,
and a control, the same compiled busy loop (no shared memory) run in 1 thread and in each thread
count at once, whose ratio is the parallel speed-up the machine offers at that moment (a busy
shared machine may offer none).  Each search's process CPU time is measured too: iterations per
CPU second over the single-threaded search's is the parallel *efficiency* (locks, waiting and
spinning cost CPU time), and threads x efficiency a projection of the ratio on idle cores, labelled
as such.  A measurement, not a test: nothing here asserts a speed.
"""
from __future__ import annotations

import argparse
import os
import statistics
import threading
import time

import numba as nb

from treepolicies import search
from treepolicies.games import make_game

MODES = ("tree", "root", "leaf")


@nb.njit(nogil=True, cache=True)
def _busy(n):
    x = 0.0
    for i in range(n):
        x += (i % 7) * 0.5
    return x


def control(threads: int, n: int = 100_000_000) -> float:
    """The speed-up of ``threads`` copies of an independent compiled loop over one (the machine's offer)."""
    _busy(10)
    t0 = time.perf_counter()
    _busy(n)
    one = time.perf_counter() - t0
    t0 = time.perf_counter()
    ts = [threading.Thread(target=_busy, args=(n,)) for _ in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return threads * one / (time.perf_counter() - t0)


def rate(game, policy, iterations, threads, mode) -> tuple:
    """(iterations per wall-clock second, iterations per CPU second of the whole process)."""
    cpu = time.process_time()
    wall = time.perf_counter()
    r = search(game, policy, iterations=iterations, seed=0, early_stop=False, threads=threads, parallel=mode)
    cpu = time.process_time() - cpu
    wall = time.perf_counter() - wall
    return r.iterations / r.elapsed, r.iterations / cpu, cpu / wall


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", default="1,2", help="thread counts, comma-separated (default 1,2)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--go-iterations", type=int, default=20000)
    ap.add_argument("--c4-iterations", type=int, default=200000)
    ap.add_argument("--policy", default="ucb1:c=0.5")
    ap.add_argument("--games", default="go,connect4")
    args = ap.parse_args(argv)
    counts = sorted({int(x) for x in args.threads.split(",")} | {1})
    games = {"go": (make_game("go", size=9), args.go_iterations),
             "connect4": (make_game("connect4"), args.c4_iterations)}
    games = {k: v for k, v in games.items() if k in args.games.split(",")}
    configs = [(g, mode, t) for g in games for t in counts for mode in (MODES if t > 1 else ("-",))]
    load0 = os.getloadavg()
    print(f"cores {os.cpu_count()}, load average before: {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}")
    for g, (game, n) in games.items():  # warm-up: compile or load every loop
        for mode in MODES:
            search(game, args.policy, iterations=min(n, 2000), seed=0, threads=max(counts), parallel=mode)
        search(game, args.policy, iterations=min(n, 2000), seed=0)
    rates = {c: [] for c in configs}
    cpu_rates = {c: [] for c in configs}
    cores = {c: [] for c in configs}
    controls = {t: [] for t in counts if t > 1}
    for rep in range(args.repeats):
        for t in controls:
            controls[t].append(control(t))
        for c in configs:
            g, mode, t = c
            game, n = games[g]
            wall, cpu, used = rate(game, args.policy, n, t, mode if t > 1 else "tree")
            cores[c].append(used)
            rates[c].append(wall)
            cpu_rates[c].append(cpu)
    load1 = os.getloadavg()
    print(f"load average after: {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}; {args.repeats} interleaved repeats, "
          f"policy {args.policy}")
    for t, xs in controls.items():
        print(f"control (independent busy loops, {t} threads / 1): median {statistics.median(xs):.2f}x "
              f"(min {min(xs):.2f}, max {max(xs):.2f})")
    print("ratio: it/s over the single-threaded search's in the same repeat (median); efficiency: iterations per "
          "CPU second (all threads) over the single-threaded search's; projected: threads x efficiency, the "
          "ratio on that many idle cores if the CPU time stayed as measured (a projection, not a measurement)")
    print("cores: CPU seconds per wall-clock second of the search (the cores it actually got)")
    print(f"{'game':10} {'mode':5} {'threads':>7} {'it/s (median)':>14} {'ratio':>6} {'cores':>5} {'efficiency':>10} "
          f"{'projected':>9}  ratios per repeat")
    for g in games:
        base = rates[(g, "-", 1)]
        cbase = cpu_rates[(g, "-", 1)]
        for c in configs:
            if c[0] != g:
                continue
            _, mode, t = c
            per = [x / b for x, b in zip(rates[c], base)]
            eff = statistics.median(x / b for x, b in zip(cpu_rates[c], cbase))
            print(f"{g:10} {mode:5} {t:7d} {statistics.median(rates[c]):14.0f} {statistics.median(per):6.2f} "
                  f"{statistics.median(cores[c]):5.2f} {eff:10.2f} {t * eff:9.2f}  " + " ".join(f"{x:.2f}" for x in per))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
