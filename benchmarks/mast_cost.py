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

Rates are playouts a second from the empty board, timed by ``playout_speed.playout_rates`` (its
compiled loop, ``--repeats`` interleaved rounds): the median rate, the median of the rounds'
ratios to the random rollout's rate, and each one's best round over random's best (on a noisy
machine the least disturbed rounds; the issue's target for MAST: 0.70).  The
variants draw other playouts than MAST (``mast_noupdate`` and ``mast_floor`` uniform ones), but
as long ones: the plies a playout are printed.  A measurement, not a test.
"""
from __future__ import annotations

import argparse
import inspect
import os
import sys

import numba as nb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import playout_speed  # noqa: E402  (its compiled loop; registers ``defer``)

from treepolicies.mcts import playout_policies as pp  # noqa: E402
from treepolicies.mcts.playouts import playout_policy  # noqa: E402


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


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--playouts", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=15)
    a = ap.parse_args(argv)
    specs = ["random", "mast", *VARIANTS]
    rates = playout_speed.playout_rates(9, specs, a.playouts, a.repeats)
    print(f"9x9 Go, playouts from the empty board, {a.playouts} a run, {a.repeats} interleaved rounds")
    print(f"{'rollout':<16} {'playouts/s':>11} {'plies':>7} {'/ random':>9} {'best / best':>12}")
    for spec in specs:
        rate, length, ratio, best = rates[spec]
        print(f"{spec:<16} {rate:>11.0f} {length:>7.1f} {ratio:>9.3f} {best:>12.3f}")

if __name__ == "__main__":
    main()
