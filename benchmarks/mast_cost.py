"""Where MAST's playout time goes on 9x9 Go (one core): MAST against variants of itself.

    PYTHONPATH=. python benchmarks/mast_cost.py [--playouts 2000] [--repeats 15]

Each variant is MAST (``treepolicies.mcts.playout_policies``) with one part replaced, registered
as a user registers a playout policy (``playout_policy``), so the difference of its rate from
MAST's is what that part costs:

* ``mast_noexp``: the update stores Q / tau + 1 instead of exp(Q / tau) (no exponential a ply);
* ``mast_noupdate``: no update at all (the statistics stay at their start, every move's E equal);
* ``mast_keepall``: ``accept`` keeps every candidate (no uniform, no test, no refusal);
* ``mast_floor``: both of the last two: the candidate path alone (the game's draw and play, ply by
  ply, through the one playout loop).

Rates are playouts a second from the empty board (the compiled loop of ``playout_speed.py``),
each the best of ``--repeats`` short interleaved runs (on a noisy machine the least disturbed
run), and the rate over the random rollout's best (the issue's target for MAST: 0.70).  The
variants draw other playouts than MAST (``mast_noupdate`` and ``mast_floor`` uniform ones), but
as long ones: the plies a playout are printed.  A measurement, not a test.
"""
from __future__ import annotations

import argparse
import inspect
import os
import sys
import time

import numba as nb
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import playout_speed  # noqa: E402  (its compiled loop; registers ``defer``)

from bandits.rng import stream_state  # noqa: E402
from treepolicies.games.go import Go  # noqa: E402
from treepolicies.mcts import playout_policies as pp  # noqa: E402
from treepolicies.mcts.calls import game_key, rollout_key  # noqa: E402
from treepolicies.mcts.options import SearchOptions  # noqa: E402
from treepolicies.mcts.playouts import make_playout, playout_policy  # noqa: E402


@nb.njit(cache=True, _nrt=False)
def _keep_all(stats, params, codes, plies, k, mover, c, rng, buf, tries):
    return 1


@nb.njit(cache=True, _nrt=False)
def _no_update(stats, params, codes, plies, start, k, who, value, buf):
    pass


def _without_exp():
    """``mast_update`` with E = Q / tau + 1 (positive, increasing in Q) in place of exp(Q / tau):
    made from its source, so it stays MAST's update but for that one expression."""
    source = inspect.getsource(pp.mast_update.py_func)
    body = source[source.index("def "):].replace("def mast_update(", "def _update_no_exp(", 1)
    edited = body.replace("math.exp(stats[i + 1] / stats[i] / tau)", "stats[i + 1] / stats[i] / tau + 1.0")
    if edited == body:
        raise RuntimeError("mast_update no longer computes math.exp(stats[i + 1] / stats[i] / tau): edit mast_cost.py")
    namespace = dict(vars(pp))
    exec(edited, namespace)
    return nb.njit(_nrt=False)(namespace["_update_no_exp"])


_update_no_exp = _without_exp()


_MAST = dict(choose=pp.mast_choose, init=pp.mast_init, propose=pp.mast_propose,
             size=lambda codes, params: 10 * codes + 5, scratch=lambda codes, params: 2 * codes,
             tau=pp._TAU, epsilon=pp._EPS, q0=pp._Q0)
VARIANTS = {"mast_noexp": (_update_no_exp, pp.mast_accept), "mast_noupdate": (_no_update, pp.mast_accept),
            "mast_keepall": (pp.mast_update, _keep_all), "mast_floor": (_no_update, _keep_all)}
for _name, (_update, _accept) in VARIANTS.items():
    playout_policy(_name, update=_update, accept=_accept, doc=f"benchmarks/mast_cost.py: {_name}", **_MAST)


def best_rates(specs, playouts, repeats):
    """spec -> (best playouts/s, plies a playout) over ``repeats`` interleaved runs."""
    game = Go(9)
    gkey, rkey = game_key(game.kernels), rollout_key(game.rollouts["random"])
    plies = np.empty(4 * game.max_plies + 8, np.int64)
    runs = {}
    for spec in specs:
        opts, pkey = SearchOptions().array(), ""
        if spec != "random":
            bound = make_playout(spec)
            pkey = bound.key_for(game.move_check, game.move_draw)
            opts = np.concatenate([opts, bound.block(game.move_codes, game.max_moves)])
        run = playout_speed._loop(pkey, gkey, rkey)
        run(game.state, 1000, stream_state(1, 0, 0), plies, opts)  # compile; the statistics learn first
        runs[spec] = (run, opts)
    best = {spec: (0.0, 0.0) for spec in specs}
    for rep in range(repeats):
        for spec, (run, opts) in runs.items():
            t0 = time.perf_counter()
            total = run(game.state, playouts, stream_state(rep + 2, 0, 0), plies, opts)
            rate = playouts / (time.perf_counter() - t0)
            if rate > best[spec][0]:
                best[spec] = (rate, total / playouts)
    return best


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--playouts", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=15)
    a = ap.parse_args(argv)
    specs = ["random", "mast", *VARIANTS]
    best = best_rates(specs, a.playouts, a.repeats)
    print(f"9x9 Go, playouts from the empty board, {a.playouts} a run, best of {a.repeats} interleaved runs")
    print(f"{'rollout':<16} {'playouts/s':>11} {'plies':>7} {'/ random':>9}")
    for spec in specs:
        rate, length = best[spec]
        print(f"{spec:<16} {rate:>11.0f} {length:>7.1f} {rate / best['random'][0]:>9.3f}")


if __name__ == "__main__":
    main()
