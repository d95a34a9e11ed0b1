"""Fixed-seed searches of every driver and option, recorded once from the code before the one-skeleton
redesign (main at fac6c75) into ``tests/data/search_records.json`` and compared by
``tests/test_recorded_searches.py``: the same calls must give the same root visits, values, proofs,
tree size, chosen move and (where the storage layout is unchanged) the same whole tree, bit for bit.

Re-recorded on purpose since (each time every other recording unchanged): two Connect Four
reuse-with-transpositions tree digests (they hashed uninitialised policy state, e718283); the 84
Go and NoGo cases with the test evaluator, whose value reads the sum of the whole state, after Go's
state gained the last stone placed in header slot 13 (f73fdf4; with that slot zeroed in the
evaluator's view, all 84 give the old recordings).

Regenerate (only on purpose: the file is the reference)::

    python -m tests.search_cases --write tests/data/search_records.json

A case is ``(name, tier, fn)``: ``fn()`` returns a list of SearchResult (several for a player that
reuses its tree over a few moves); ``tier`` is "default" for the diagonal the default test run
checks (every driver, option and policy at least once) or "slow" for the rest of the product.
"""
from __future__ import annotations

import hashlib
import json
import math
import sys

import numpy as np

import bandits
from bandits.stats import COUNT, MEAN

N = 300  # iterations of each recorded search


@bandits.index_policy("rec_ucb", c=bandits.Param(1.0, low=0.0, doc="exploration constant"))
def rec_ucb(stats, i, t, params, state):
    """A user's UCB1 as a plugin (the recordings' plugin policy): mean + c sqrt(ln t / n)."""
    return stats[MEAN, i] + params[0] * math.sqrt(math.log(t) / stats[COUNT, i])


def rec_eval(states, moves, counts):
    """A deterministic evaluator with non-uniform priors and position-dependent values: prior of
    move m ~ 1 + (m mod 3); value 0.5 + 0.3 sin(sum of the state's entries)."""
    priors = 1.0 + (np.maximum(moves, 0) % 3).astype(np.float64)
    values = 0.5 + 0.3 * np.sin(np.asarray(states, dtype=np.float64).sum(axis=1))
    return priors, values


GAMES = {"tictactoe": {}, "connect4": {}, "go": {"size": 7}, "nogo": {"size": 7}, "nim": {"stones": 13}}
COMPILED = ("tictactoe", "connect4", "go", "nogo")
HEURISTIC = ("connect4", "go", "nogo")  # games with a heuristic rollout

POLICIES = ["ucb1:c=0.5", "miucb:episodic=true", "thompson:prior=beta", "puct:c=1.5", "rec_ucb:c=0.7",
            "klucb:family=bernoulli", "iucb:episodic=true"]

#: option sets of the enhancements (name -> search keywords), as the conformance test has them
OPTIONS = {
    "plain": {},
    "rave": dict(rave=True),
    "rave-mse": dict(rave=True, rave_schedule="mse", rave_bias=0.05),
    "grave": dict(grave_ref=8),
    "heuristic": dict(rollout="heuristic"),
    "cap": dict(rollout_cap=4),
    "rave+heuristic+cap": dict(rave=True, rollout="heuristic", rollout_cap=30),
    "bounds": dict(reward_bounds=(-1.0, 2.0)),
    "fpu-parent": dict(fpu="parent"),
    "fpu-reduction+rave": dict(fpu_reduction=0.2, rave=True),
    "fpu-value": dict(fpu=0.4),
    "prior": dict(prior="heuristic"),
    "widen": dict(widen_k=2.0, widen_alpha=0.5),
    "widen+prior+rave+heuristic": dict(widen_k=1.0, prior="heuristic", rave=True, rollout="heuristic"),
    "evaluator": dict(evaluator=rec_eval, eval_batch=4, value_mix=0.5, fpu="parent"),
    "evaluator-1": dict(evaluator=rec_eval),
    "evaluator+widen": dict(evaluator=rec_eval, widen_k=1.0, widen_alpha=0.6),
    "evaluator+rave": dict(evaluator=rec_eval, rave=True, value_mix=0.5, eval_batch=4),
    "evaluator+grave+widen": dict(evaluator=rec_eval, grave_ref=8, widen_k=1.0),
    "dag": dict(transpositions=True),
    "dag+heuristic+cap+bounds": dict(transpositions=True, rollout="heuristic", rollout_cap=40,
                                     reward_bounds=(0, 1)),
    "dag+fpu+widen": dict(transpositions=True, fpu_reduction=0.1, widen_k=2.0),
    "dag+rave": dict(transpositions=True, rave=True),
    "dag+grave+heuristic+prior": dict(transpositions=True, grave_ref=8, rollout="heuristic", prior="heuristic",
                                      widen_k=2.0),
    "dag+prior+widen+value": dict(transpositions=True, prior="heuristic", widen_k=1.0, fpu=0.3),
    "dag+evaluator": dict(transpositions=True, evaluator=rec_eval, eval_batch=4, value_mix=0.5, fpu="parent"),
    "dag+evaluator+rave+widen": dict(transpositions=True, evaluator=rec_eval, rave=True, widen_k=1.0,
                                     value_mix=0.3),
}


def _supported(game: str, option: str, compiled: bool) -> bool:
    kw = OPTIONS[option]
    if kw.get("rollout") == "heuristic" and game not in HEURISTIC:
        return False
    if kw.get("prior") == "heuristic" and game == "nim":
        return False
    if "evaluator" in kw and game == "nim":
        return False
    if "evaluator" in kw and not compiled:
        return False
    if kw.get("rollout_cap") is not None and game == "nim":
        return False
    if "reward_bounds" in kw and game == "nim" and kw["reward_bounds"] != (0, 1):
        return False  # (nim's rewards are 0 or 1: the bounds would be fine, but keep nim's cases few)
    return True


def _make(game):
    from treepolicies.games import make_game

    return make_game(game, **GAMES[game])


def _search(game, spec, seed=7, iterations=N, **kw):
    from treepolicies import search

    def run():
        return [search(_make(game), spec, iterations=iterations, seed=seed, **kw)]
    return run


def _player(game, spec, moves=3, seed=5, playouts=200):
    """A player with tree reuse searching ``moves`` moves of a game against a fixed reply."""
    from treepolicies import make_player

    def run():
        g = _make(game)
        p = make_player(spec, playouts=playouts)
        out = []
        for k in range(moves):
            if g.terminal():
                break
            move = p.choose(g, seed + k)
            out.append(p.last)
            g.play(move)
            p.observe(move)
            if g.terminal():
                break
            reply = g.legal_moves()[0]
            g.play(reply)
            p.observe(reply)
        return out
    return run


def cases():
    """Every recorded case: (name, tier, fn)."""
    out = []
    # the default tier: each game with the plain loop and each policy once; every option once on a game
    # that supports it; every driver once
    diagonal_games = {opt: COMPILED[i % len(COMPILED)] for i, opt in enumerate(sorted(OPTIONS))}
    for game in GAMES:
        compiled = game in COMPILED
        for option in OPTIONS:
            if not _supported(game, option, compiled):
                continue
            for j, spec in enumerate(POLICIES):
                kw = dict(OPTIONS[option])
                if "evaluator" in kw and spec.startswith("iucb"):
                    continue  # (a horizon-bound policy with the evaluator's root evaluation: covered by others)
                default = (option == "plain" and game == "connect4") or \
                          (option == "plain" and j == 0) or \
                          (diagonal_games.get(option) == game and j == POLICIES.index("ucb1:c=0.5")) or \
                          (option == "rave" and game == "go" and j in (1, 4))
                out.append((f"{game}/{option}/{spec}", "default" if default else "slow", _search(game, spec, **kw)))
    # the Python driver on compiled games (compiled=False), with and without options
    for game in COMPILED:
        for option in ("plain", "rave", "grave", "fpu-parent", "prior", "widen", "dag", "dag+rave", "dag+fpu+widen",
                       "dag+prior+widen+value", "cap", "bounds"):
            if not _supported(game, option, True):
                continue
            for spec in ("ucb1:c=0.5", "rec_ucb:c=0.7", "miucb:episodic=true"):
                default = spec == "ucb1:c=0.5" and (game == "tictactoe" or option in ("plain", "dag+rave"))
                out.append((f"{game}/python/{option}/{spec}", "default" if default else "slow",
                            _search(game, spec, compiled=False, **OPTIONS[option])))
    # specialised loops
    for game in COMPILED:
        for spec in ("ucb1:c=0.5", "miucb:episodic=true", "rec_ucb:c=0.7"):
            out.append((f"{game}/specialize/{spec}", "default" if (game == "connect4" and spec == "ucb1:c=0.5")
                        else "slow", _search(game, spec, specialize=True)))
    # the solver, the final rule, early stop, the node cap
    for game in ("tictactoe", "connect4", "nim"):
        for option in ("plain", "rave", "dag", "evaluator", "dag+evaluator", "prior", "fpu-parent"):
            if not _supported(game, option, game in COMPILED):
                continue
            out.append((f"{game}/solver/{option}", "default" if option in ("plain", "dag") else "slow",
                        _search(game, "ucb1:c=0.5", solver=True, iterations=1000, **OPTIONS[option])))
    for game in ("connect4", "nim", "go"):
        out.append((f"{game}/final-max", "slow", _search(game, "ucb1:c=0.5", final="max")))
        out.append((f"{game}/early", "default" if game == "connect4" else "slow",
                    _search(game, "ucb1:c=2", early_stop=True, iterations=2000)))
        out.append((f"{game}/no-early", "slow", _search(game, "ucb1:c=2", early_stop=False, iterations=2000)))
        out.append((f"{game}/node-cap", "default" if game == "go" else "slow",
                    _search(game, "ucb1:c=0.5", node_cap=120, iterations=1000)))
    # the deterministic parallel modes (root: N trees; leaf: N playouts per leaf)
    for game in COMPILED:
        for mode in ("root", "leaf"):
            out.append((f"{game}/parallel-{mode}", "default" if game == "connect4" else "slow",
                        _search(game, "ucb1:c=0.5", threads=2, parallel=mode)))
    out.append(("nim/parallel-root", "slow", _search("nim", "ucb1:c=0.5", threads=2, parallel="root")))
    out.append(("connect4/parallel-root+rave", "slow",
                _search("connect4", "ucb1:c=0.5", threads=2, parallel="root", rave=True)))
    # tree reuse over a few moves
    for game in ("connect4", "go", "nim"):
        for extra in ("", ",rave=true", ",transpositions=true", ",transpositions=true,rave=true"):
            if game == "nim" and "rave" in extra:
                continue
            out.append((f"{game}/reuse{extra}", "default" if (game == "connect4" and extra == "") else "slow",
                        _player(game, "ucb1:c=0.5,reuse=true" + extra)))
    out.append(("connect4/reuse,evaluator", "slow",
                _player("connect4", "puct:c=1.5,reuse=true,evaluator=rec_eval,eval_batch=2")))
    return out


def _hex(values) -> list:
    return [float(v).hex() for v in np.asarray(values, dtype=np.float64)]


def tree_digest(tree) -> str:
    """sha256 over the tree's arrays in use (and a DAG's), so a whole tree is compared bit for bit."""
    n = tree.size
    h = hashlib.sha256()
    a = tree.arrays
    dag = getattr(tree, "dag", None)
    pstate = a.pstate[:n]
    if dag is not None:  # a DAG's policy state lives on its positions' rows; an edge row's is unused
        pstate = pstate[dag.canon[:n] == np.arange(n)]
    for arr in (a.parent[:n], a.move[:n], a.first[:n], a.nchild[:n], a.mover[:n], a.proven[:n], a.stats[:, :n],
                pstate, a.astate[:, :n]):
        h.update(np.ascontiguousarray(arr).tobytes())
    if a.amaf.shape[1] == a.parent.shape[0]:
        h.update(np.ascontiguousarray(a.amaf[:, :n]).tobytes())
    if a.prior.shape[0] == a.parent.shape[0]:
        h.update(np.ascontiguousarray(a.prior[:n]).tobytes())
    if dag is not None:
        for arr in (dag.canon[:n], dag.pvis[:n], dag.pkey[:n]):
            h.update(np.ascontiguousarray(arr).tobytes())
    return h.hexdigest()[:24]


def summary(result) -> dict:
    """What a recording keeps of one SearchResult, in full (:func:`compact` makes the stored form)."""
    return {"move": str(result.move), "moves": [str(m) for m in result.moves],
            "visits": [int(v) for v in result.visits], "values": _hex(result.values),
            "proven": _hex(result.proven), "tree_size": int(result.tree_size),
            "iterations": int(result.iterations), "stop_reason": result.stop_reason,
            "tree": tree_digest(result.tree)}


def compact(full: dict, keep_visits: bool) -> dict:
    """The stored form of :func:`summary`: the root's moves, visits, values and proofs as one digest
    (the visits in full too for the default tier, for a readable failure), the rest as is."""
    root = hashlib.sha256(json.dumps([full["moves"], full["visits"], full["values"], full["proven"]]).encode())
    out = {k: full[k] for k in ("move", "tree_size", "iterations", "stop_reason", "tree")}
    out["root"] = root.hexdigest()[:24]
    if keep_visits:
        out["visits"] = full["visits"]
    return out


def record(names=None) -> dict:
    from treepolicies import register_evaluator

    register_evaluator("rec_eval", rec_eval)
    out = {}
    for name, tier, fn in cases():
        if names is not None and name not in names:
            continue
        try:
            out[name] = {"tier": tier, "searches": [compact(summary(r), tier == "default") for r in fn()]}
        except ValueError as exc:  # a refusal is recorded as such
            out[name] = {"tier": tier, "error": str(exc)}
    return out


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "--write":
        raise SystemExit("usage: python -m tests.search_cases --write FILE")
    data = record()
    with open(sys.argv[2], "w") as fh:
        json.dump(data, fh, indent=0, sort_keys=True)
        fh.write("\n")
    print(f"{len(data)} cases written to {sys.argv[2]}")
