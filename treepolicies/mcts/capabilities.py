"""What combines with what, declared once: every refusal of a search is written by :func:`check` from
the declarations here, and docs/options.md's combination table is generated from them
(:func:`combination_table`; a test keeps the two equal).

A search runs on a *driver* (the compiled loops, or the Python-game driver), with an *executor*
(one thread; threads on one tree; threads on one leaf's playouts; independent trees) and a
*storage* (the tree, or the DAG of transpositions).  These are the table's columns
(:data:`COLUMNS`).  Every feature (an option, or a column itself) declares

    excludes   the columns it does not combine with, each with the reason;
    needs      what it needs from the game or the other options, each a test and the reason.

A refusal is one line naming both sides: ``parallel='tree' does not combine with a Python game
(nim): ...`` or ``rollout='heuristic' needs a rollout the game offers: ...``.  What is not
declared combines: every option works with every executor and storage.
"""
from __future__ import annotations

import dataclasses
from typing import Callable

import numpy as np

__all__ = ["Context", "Feature", "COLUMNS", "FEATURES", "check", "combination_table"]


@dataclasses.dataclass
class Context:
    """What a search is about to run (made by treepolicies.mcts.search)."""

    game: object
    options: object            # SearchOptions
    policy: object             # the tree policy (a bandits.Policy)
    compiled: bool             # the compiled driver (else the Python-game driver)
    executor: str              # "single", "tree", "leaf" or "root"
    reuse: object = None       # the tree passed for reuse, or None

    @property
    def name(self) -> str:
        return getattr(self.game, "name", "") or type(self.game).__name__

    @property
    def compiled_game(self) -> bool:
        return hasattr(self.game, "kernels") and isinstance(getattr(self.game, "state", None), np.ndarray)

    def rollouts(self) -> dict:
        return getattr(self.game, "rollouts", None) or {}

    def priors(self) -> dict:
        return getattr(self.game, "priors", None) or {}


#: the table's columns: name -> (is it what this search runs?, how a refusal names it)
COLUMNS: dict[str, tuple[Callable[[Context], bool], Callable[[Context], str]]] = {
    "one thread": (lambda c: c.executor == "single", lambda c: "one thread"),
    "parallel='tree'": (lambda c: c.executor == "tree", lambda c: "parallel='tree'"),
    "parallel='leaf'": (lambda c: c.executor == "leaf", lambda c: "parallel='leaf'"),
    "parallel='root'": (lambda c: c.executor == "root", lambda c: "parallel='root'"),
    "transpositions": (lambda c: bool(c.options.transpositions), lambda c: "transpositions=true"),
    "Python game": (lambda c: not c.compiled, lambda c: f"a game searched from Python ({c.name})"),
}


@dataclasses.dataclass(frozen=True)
class Feature:
    """A declared feature (module docstring): ``active(ctx)`` says whether this search uses it."""

    name: Callable[[Context], str]
    active: Callable[[Context], bool]
    excludes: tuple = ()       # (column, reason)
    needs: tuple = ()          # (what, holds(ctx) -> bool, reason(ctx) -> str)
    row: str = ""              # its row in the combination table
    game_needs: str = ""       # the table's words for what it needs from the game


def _has_rollout(c: Context) -> bool:
    return c.options.rollout in c.rollouts()


def _rollout_reason(c: Context) -> str:
    offered = c.rollouts()
    if not c.compiled_game:
        return (f"a Python game ({c.name}) has only the random rollout (its legal_moves); a compiled game may offer "
                "more (game.rollouts)")
    if offered:
        return f"{c.name} offers {', '.join(offered)}"
    return (f"{c.name} has no rollout kernels (game.rollouts, treepolicies.games.Rollout); search it with "
            "compiled=False")


def _python_policy(c: Context) -> bool:
    from bandits.registry import policy_key

    return policy_key(c.policy)[1]


FEATURES: tuple = (
    Feature(name=lambda c: "parallel='tree'", active=lambda c: c.executor == "tree", row="parallel='tree'",
            excludes=(("Python game", "tree parallelism runs compiled threads on the game's kernels "
                                      "(parallel='root' works with any game)"),)),
    Feature(name=lambda c: "parallel='leaf'", active=lambda c: c.executor == "leaf", row="parallel='leaf'",
            excludes=(("Python game", "leaf parallelism runs compiled playouts on the game's kernels "
                                      "(parallel='root' works with any game)"),),
            needs=(("a playout at the leaf", lambda c: c.options.evaluator is None or c.options.value_mix > 0.0,
                    lambda c: "evaluator=... with value_mix=0 plays none (use parallel='tree', whose threads batch "
                              "the evaluator's leaves, or value_mix > 0)"),)),
    Feature(name=lambda c: "parallel='root'", active=lambda c: c.executor == "root", row="parallel='root'",
            needs=(("a fresh tree", lambda c: c.reuse is None,
                    lambda c: "it builds its own trees every move, so tree reuse (tree=, reuse=true) does not "
                              "combine with it; pass tree=None or use parallel='tree' or 'leaf'"),)),
    Feature(name=lambda c: "compiled=True", active=lambda c: c.compiled, row="",
            needs=(("a compiled game (with kernels)", lambda c: c.compiled_game,
                    lambda c: f"{c.name} is a Python game"),)),
    Feature(name=lambda c: "transpositions=true", active=lambda c: bool(c.options.transpositions),
            row="transpositions", game_needs="a position key: game.key_kernel, or a Python class's __hash__",
            needs=(("a position key", lambda c: _offers_key(c), lambda c: _key_reason(c)),
                   ("a tree built with transpositions", lambda c: c.reuse is None or c.reuse.dag is not None,
                    lambda c: "the tree passed for reuse has none (pass tree=None)"))),
    Feature(name=lambda c: "rave=true", active=lambda c: bool(c.options.rave), row="rave, grave_ref",
            game_needs="compiled: a rollout kernel that records its plies (game.rollouts)",
            needs=(("a rollout kernel that records its plies", lambda c: not c.compiled or _has_rollout(c),
                    lambda c: _rollout_reason(c)),)),
    Feature(name=lambda c: f"rollout={c.options.rollout!r}", active=lambda c: c.options.rollout != "random",
            row="rollout", game_needs="the rollout by that name (game.rollouts)",
            needs=(("a rollout the game offers", lambda c: c.compiled_game and _has_rollout(c),
                    lambda c: _rollout_reason(c)),)),
    Feature(name=lambda c: "rollout_cap", active=lambda c: c.options.rollout_cap is not None, row="rollout_cap",
            game_needs="compiled: a rollout kernel; Python: value(player) of an unfinished position",
            needs=(("a way to score an unfinished position",
                    lambda c: _has_rollout(c) if c.compiled else (
                        (c.compiled_game and _has_rollout(c)) or callable(getattr(c.game, "value", None))),
                    lambda c: _rollout_reason(c) if c.compiled else
                    f"give {type(c.game).__name__} a value(player) method returning a number in its reward range"),)),
    Feature(name=lambda c: f"prior={c.options.prior!r}", active=lambda c: c.options.prior != "uniform", row="prior",
            game_needs="the prior kernel by that name (game.priors)",
            needs=(("a prior the game offers", lambda c: c.options.prior in c.priors(),
                    lambda c: f"{c.name} offers {', '.join(['uniform', *c.priors()])}"),)),
    Feature(name=lambda c: "evaluator", active=lambda c: c.options.evaluator is not None, row="evaluator",
            game_needs="state arrays (a compiled game)",
            excludes=(("Python game", "the leaf evaluator takes state arrays, so it needs a compiled game"),),
            needs=(("the children's priors from one source", lambda c: c.options.prior == "uniform",
                    lambda c: f"prior={c.options.prior!r} is a second source: the evaluator's priors are the "
                              "children's priors (drop prior=)"),)),
    Feature(name=lambda c: "specialize=true", active=lambda c: c.options.specialize is True, row="specialize",
            game_needs="a policy numba compiles",
            excludes=(("Python game", "only a compiled game's loop can have the policy's code compiled in"),),
            needs=(("a policy numba compiles", lambda c: not _python_policy(c),
                    lambda c: f"{c.policy.spec!r} runs as plain Python (numba cannot compile it)"),)),
)


def _offers_key(c: Context) -> bool:
    from treepolicies.mcts.dag import offers_hash

    if c.compiled:
        return getattr(c.game, "key_kernel", None) is not None
    return offers_hash(c.game)


def _key_reason(c: Context) -> str:
    if c.compiled:
        return f"{c.name} has no position key kernel (game.key_kernel)"
    return (f"{c.name} has only the identity hash: define __hash__ over the position (e.g. hash((board, to_move)), "
            "with a matching __eq__)")


def check(ctx: Context) -> None:
    """Raise the first refusal (one line, both sides named) for what ``ctx`` would run; None if it runs."""
    for f in FEATURES:
        if not f.active(ctx):
            continue
        for column, reason in f.excludes:
            if COLUMNS[column][0](ctx):
                raise ValueError(f"{f.name(ctx)} does not combine with {COLUMNS[column][1](ctx)}: {reason}")
        for what, holds, reason in f.needs:
            if not holds(ctx):
                raise ValueError(f"{f.name(ctx)} needs {what}: {reason(ctx)}")


def combination_table() -> str:
    """The Markdown table of docs/options.md: each feature against each column (yes, or the reason)."""
    cols = list(COLUMNS)
    rows = ["| option | " + " | ".join(cols) + " | needs from the game |",
            "|---" * (len(cols) + 2) + "|"]
    from treepolicies.mcts.options import ENHANCEMENT_KEYS

    declared = {f.row: f for f in FEATURES if f.row}
    names = list(dict.fromkeys(["root_policy", "solver", "specialize", *[r for r in declared if r.startswith("par")],
                                *[k for k in ENHANCEMENT_KEYS if k not in ("rave_schedule", "rave_k", "rave_bias",
                                                                            "grave_ref", "fpu_reduction",
                                                                            "widen_alpha", "eval_batch",
                                                                            "value_mix")]]))
    for name in names:
        key = "rave, grave_ref" if name == "rave" else name
        f = declared.get(key)
        cells = []
        for col in cols:
            excluded = dict(f.excludes).get(col) if f is not None else None
            cells.append("no: " + excluded if excluded else "yes")
        shown = {"rave": "rave, grave_ref", "fpu": "fpu, fpu_reduction", "widen_k": "widen_k, widen_alpha",
                 "evaluator": "evaluator, eval_batch, value_mix"}.get(name, name)
        rows.append(f"| `{shown}` | " + " | ".join(cells) + f" | {f.game_needs if f is not None else ''} |")
    return "\n".join(rows) + "\n"
