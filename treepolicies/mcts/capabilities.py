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

__all__ = ["Context", "Feature", "general_game", "COLUMNS", "FEATURES", "TABLE_ROWS", "check", "combination_table", "options_table",
           "generated_docs", "write_docs"]


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


def general_game(game) -> bool:
    """True for a game the general backup searches (treepolicies.mcts.tree.backup_values): chance
    nodes (a ``chance_outcomes()`` method), other than two players (``num_players``, default 2),
    or general-sum (``general_sum`` true)."""
    return (int(getattr(game, "num_players", 2)) != 2 or callable(getattr(game, "chance_outcomes", None))
            or bool(getattr(game, "general_sum", False)))


#: the table's columns: name -> (is it what this search runs?, how a refusal names it)
COLUMNS: dict[str, tuple[Callable[[Context], bool], Callable[[Context], str]]] = {
    "one thread": (lambda c: c.executor == "single", lambda c: "one thread"),
    "parallel='tree'": (lambda c: c.executor == "tree", lambda c: "parallel='tree'"),
    "parallel='leaf'": (lambda c: c.executor == "leaf", lambda c: "parallel='leaf'"),
    "parallel='root'": (lambda c: c.executor == "root", lambda c: "parallel='root'"),
    "transpositions": (lambda c: bool(c.options.transpositions), lambda c: "transpositions=true"),
    "Python game": (lambda c: not c.compiled, lambda c: f"a game searched from Python ({c.name})"),
    "chance or n players": (lambda c: general_game(c.game),
                            lambda c: f"a game with chance nodes, other than two players or general-sum ({c.name})"),
}


@dataclasses.dataclass(frozen=True)
class Feature:
    """A declared feature (module docstring): ``active(ctx)`` says whether this search uses it."""

    name: Callable[[Context], str]
    active: Callable[[Context], bool]
    excludes: tuple = ()       # (column, reason)
    needs: tuple = ()          # (what, holds(ctx) -> bool, reason(ctx) -> str)
    row: str = ""              # its row (or column) in the combination table
    game_needs: str = ""       # the table's words for what it needs from the game
    notes: tuple = ()          # (option row, cell text): a column's condition on an option


def _playout(c: Context) -> bool:
    """A playout policy (treepolicies.mcts.playouts), not a game's rollout, by that name."""
    from treepolicies.mcts.playouts import is_playout_spec

    return c.options.rollout not in c.rollouts() and is_playout_spec(c.options.rollout)


def _has_rollout(c: Context) -> bool:
    """A rollout that records its plies: the game's by that name, or a playout policy."""
    return c.options.rollout in c.rollouts() or _playout(c)


def _has_codes(c: Context) -> bool:
    """A compiled search's playout policy indexes its tables by move code: the game declares
    ``move_codes`` (a game driven from Python numbers its moves itself)."""
    return not c.compiled or int(getattr(c.game, "move_codes", 0) or 0) > 0


def _codes_reason(c: Context) -> str:
    return (f"{c.name} declares no move_codes (0 <= move < move_codes: the size of a playout policy's tables); "
            "set it, or search with compiled=False")


def _scores_capped(c: Context) -> bool:
    """A compiled game's way to score a capped playout: its rollout by that name, or (a playout
    policy) its random rollout's value."""
    if _playout(c):
        return "random" in c.rollouts()
    return c.options.rollout in c.rollouts()


def _rollout_reason(c: Context) -> str:
    offered = c.rollouts()
    if not c.compiled_game:
        return (f"a Python game ({c.name}) has only the random rollout (its legal_moves) and the playout policies "
                f"({', '.join(_playout_names())}); a compiled game may offer more (game.rollouts)")
    if offered:
        return f"{c.name} offers {', '.join(offered)}, and the playout policies ({', '.join(_playout_names())})"
    return (f"{c.name} has no rollout kernels (game.rollouts, treepolicies.games.Rollout); search it with "
            "compiled=False")


def _playout_names() -> list:
    from treepolicies.mcts.playouts import playout_names

    return playout_names()


def _python_policy(c: Context) -> bool:
    from bandits.registry import policy_key

    return policy_key(c.policy)[1]


_GENERAL = ("chance or n players", "its backup and its statistics assume two players who alternate, each "
                                   "value one minus the other's (the general backup keeps one value per player)")

FEATURES: tuple = (
    Feature(name=lambda c: "parallel='tree'", active=lambda c: c.executor == "tree", row="parallel='tree'",
            excludes=(("Python game", "it runs compiled threads on the game's kernels, so it needs a compiled game "
                                      "(parallel='root' works with any game)"),)),
    Feature(name=lambda c: "parallel='leaf'", active=lambda c: c.executor == "leaf", row="parallel='leaf'",
            excludes=(("Python game", "it runs compiled playouts on the game's kernels, so it needs a compiled "
                                      "game (parallel='root' works with any game)"),),
            notes=(("evaluator", "yes, with value_mix > 0 (the leaves' playouts in parallel)"),
                   ("rollout", "yes, but not a playout policy with statistics (mast, nst, lgrf1, lgrf2, ppa, a "
                               "plugin's): its helpers' playouts would race on the table")),
            needs=(("a playout at the leaf", lambda c: c.options.evaluator is None or c.options.value_mix > 0.0,
                    lambda c: "evaluator=... with value_mix=0 plays none (use parallel='tree', whose threads batch "
                              "the evaluator's leaves, or value_mix > 0)"),
                   ("a rollout without search-wide statistics", lambda c: not _playout(c),
                    lambda c: f"rollout={c.options.rollout!r} is a playout policy whose statistics the helpers' "
                              "simultaneous playouts would race on (use parallel='tree': one shared table, benign "
                              "races; or parallel='root': a table per tree)"),)),
    Feature(name=lambda c: "parallel='root'", active=lambda c: c.executor == "root", row="parallel='root'",
            needs=(("a fresh tree", lambda c: c.reuse is None,
                    lambda c: "it builds its own trees every move, so tree reuse (tree=, reuse=true) does not "
                              "combine with it; pass tree=None or use parallel='tree' or 'leaf'"),)),
    Feature(name=lambda c: "compiled=True", active=lambda c: c.compiled, row="",
            excludes=(("chance or n players", "the compiled loops back up the values of two players who alternate; "
                                             "compiled=None (the default) searches it from Python"),),
            needs=(("a compiled game (with kernels)", lambda c: c.compiled_game,
                    lambda c: f"{c.name} is a Python game"),)),
    Feature(name=lambda c: "transpositions=true", active=lambda c: bool(c.options.transpositions),
            row="transpositions", game_needs="a position key: game.key_kernel, or a Python class's __hash__",
            excludes=(_GENERAL,),
            needs=(("a position key", lambda c: _offers_key(c), lambda c: _key_reason(c)),
                   ("a tree built with transpositions", lambda c: c.reuse is None or c.reuse.dag is not None,
                    lambda c: "the tree passed for reuse has none (pass tree=None)"))),
    Feature(name=lambda c: f"rollout={c.options.rollout!r}", active=lambda c: c.options.rollout != "random",
            row="rollout", game_needs="the rollout by that name (game.rollouts); a playout policy: nothing",
            needs=(("a rollout the game offers", lambda c: (_playout(c) and _has_codes(c)) or (
                        not _playout(c) and c.compiled_game and _has_rollout(c)),
                    lambda c: _codes_reason(c) if _playout(c) else _rollout_reason(c)),
                   ("two players who alternate", lambda c: not (_playout(c) and general_game(c.game)),
                    lambda c: f"{c.name} has chance nodes, other than two players or is general-sum, and a playout "
                              "policy's statistics are kept for two players who alternate"))),
    Feature(name=lambda c: "rave=true", active=lambda c: bool(c.options.rave), row="rave, grave_ref",
            excludes=(_GENERAL,),
            game_needs="compiled: a rollout kernel that records its plies (game.rollouts)",
            needs=(("a rollout kernel that records its plies", lambda c: not c.compiled or _has_rollout(c),
                    lambda c: _rollout_reason(c)),)),
    Feature(name=lambda c: "rollout_cap", active=lambda c: c.options.rollout_cap is not None, row="rollout_cap",
            game_needs="compiled: a rollout kernel; Python: value(player) of an unfinished position",
            needs=(("a way to score an unfinished position",
                    lambda c: _scores_capped(c) if c.compiled else (
                        (c.compiled_game and _scores_capped(c)) or callable(getattr(c.game, "value", None))),
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
                    lambda c: f"prior={c.options.prior!r} and the evaluator are two sources of priors (the "
                              "evaluator's priors are the children's priors: drop prior=)"),)),
    Feature(name=lambda c: "solver=true", active=lambda c: bool(c.options.solver), row="solver",
            excludes=(("chance or n players", "a proof is a win, loss or draw of one of two players; a chance node "
                                             "or a third player has no such value"),)),
    Feature(name=lambda c: "fpu='parent'", active=lambda c: c.options.fpu == "parent", row="fpu",
            excludes=(("chance or n players", "the parent's value is read as one minus its mover's, which holds "
                                             "only for two players who alternate"),),
            notes=()),
    Feature(name=lambda c: "final='recommend'", active=lambda c: c.options.final == "recommend", row="final",
            excludes=(("parallel='root'", "its trees' root statistics are summed, and no one policy state holds them "
                                         "to recommend from (final='robust' or 'max', or parallel='tree')"),)),
    Feature(name=lambda c: f"a policy that hands budgets down ({_handing_down(c)})", active=lambda c: bool(_handing_down(c)),
            row="shot, hmcts",
            excludes=(("transpositions", "a node's budget is handed down by its one parent (a position of the DAG has "
                                         "several); search without transpositions"),),
            needs=(("a root policy that hands budgets down too, or none",
                    lambda c: not _root_breaks_handing(c),
                    lambda c: f"the root's children would read the per-arm state of root_policy="
                              f"{make_policy_name(c.options.root_policy)} as their budget; give root_policy=shot or hmcts, or "
                              f"none"),)),
    Feature(name=lambda c: "specialize=true", active=lambda c: c.options.specialize is True, row="specialize",
            game_needs="a policy numba compiles",
            excludes=(("Python game", "only a compiled game's loop can have the policy's code compiled in"),),
            needs=(("a policy numba compiles", lambda c: not _python_policy(c),
                    lambda c: f"{c.policy.spec!r} runs as plain Python (numba cannot compile it)"),)),
)


def _handing_down(c: Context) -> str:
    """The spec of the tree or root policy that hands budgets down (SHOT, H-MCTS: Policy.hands_down), or ''."""
    from bandits import make_policy

    for p in (c.policy, c.options.root_policy):
        if p is not None:
            p = make_policy(p)
            if getattr(p, "hands_down", False):
                return p.name
    return ""


def make_policy_name(spec) -> str:
    """The name of the policy a spec makes."""
    from bandits import make_policy

    return make_policy(spec).name


def _root_breaks_handing(c: Context) -> bool:
    """True when the tree policy hands budgets down but the root policy, another one, does not: the
    root's children would read what the root policy keeps in their per-arm row 0 as a budget."""
    from bandits import make_policy

    if c.options.root_policy is None or not getattr(make_policy(c.policy), "hands_down", False):
        return False
    return not getattr(make_policy(c.options.root_policy), "hands_down", False)


def _offers_key(c: Context) -> bool:
    from treepolicies.mcts.dag import offers_hash

    if c.compiled:
        return getattr(c.game, "key_kernel", None) is not None
    return offers_hash(c.game)


def _key_reason(c: Context) -> str:
    if c.compiled:
        return f"{c.name} has no position key kernel (game.key_kernel)"
    if isinstance(getattr(c.game, "no_key_reason", None), str):  # a game that says why it has none
        return c.game.no_key_reason
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


#: the options the combination table has a row for (the others only tune one of these)
TABLE_ROWS = ("root_policy", "solver", "specialize", "rave", "rollout", "rollout_cap", "reward_bounds", "fpu", "prior",
              "widen_k", "evaluator", "transpositions", "final", "shot, hmcts", "prior_visits")
_SHOWN = {"shot, hmcts": "shot, hmcts (policies)", "rave": "rave, grave_ref (rave_schedule, rave_k, rave_bias)", "fpu": "fpu, fpu_reduction",
          "widen_k": "widen_k, widen_alpha", "evaluator": "evaluator, eval_batch, value_mix"}
_ROW_OF = {"rave": "rave, grave_ref"}


def _cell(row: str, column: str) -> str:
    """'yes', or 'no: <reason>' / 'yes, <condition>' from the declarations of the row's feature and
    of the column's."""
    declared = {f.row: f for f in FEATURES if f.row}
    f = declared.get(_ROW_OF.get(row, row))
    if f is not None and column in dict(f.excludes):
        return "no: " + dict(f.excludes)[column]
    col = declared.get(column)
    if col is not None:
        note = dict(col.notes).get(row)
        if note:
            return note
    return "yes"


def combination_table() -> str:
    """The Markdown table of docs/options.md: each option against each column (module docstring)."""
    cols = list(COLUMNS)
    declared = {f.row: f for f in FEATURES if f.row}
    rows = ["| option | " + " | ".join(cols) + " | needs from the game |", "|---" * (len(cols) + 2) + "|"]
    for name in TABLE_ROWS:
        f = declared.get(_ROW_OF.get(name, name))
        cells = [_cell(name, col) for col in cols]
        rows.append(f"| `{_SHOWN.get(name, name)}` | " + " | ".join(cells) + f" | {f.game_needs if f else ''} |")
    return "\n".join(rows) + "\n"


def options_table() -> str:
    """The Markdown table of docs/options.md listing every declared option (treepolicies.mcts.options)."""
    from treepolicies.mcts.options import OPTIONS

    rows = ["| option | default | values | what it does |", "|---|---|---|---|"]
    for name, opt in OPTIONS.items():
        p = opt.param
        if p.choices:
            values = " \\| ".join(p.choices)
        elif opt.kind == "param" and isinstance(p.default, bool):
            values = "true \\| false"
        elif opt.kind in ("param", "optional"):
            lo = "(" if p.low_open else "["
            values = (f"{int(p.low)}..{int(p.high)}" if opt.integer else f"{lo}{p.low:g}, {p.high:g}]")
            if opt.kind == "optional":
                values += " or none"
        else:
            values = {"name": "a name the game offers", "rollout": "a name the game offers or a playout spec", "bounds": "lo:hi", "fpu": "inf \\| parent \\| [0, 1]",
                      "evaluator": "a function or a registered name", "policy": "a policy spec or none",
                      "auto": "true \\| false \\| auto"}[opt.kind]
        default = "none" if p.default is None else (str(p.default).lower() if isinstance(p.default, bool)
                                                    else str(p.default))
        rows.append(f"| `{name}` | {default} | {values} | {p.doc} |")
    return "\n".join(rows) + "\n"


BEGIN, END = "<!-- begin: generated by python -m treepolicies.mcts.write_docs -->", "<!-- end: generated -->"


def generated_docs() -> str:
    """The generated part of docs/options.md (between BEGIN and END)."""
    lines = []
    for f in FEATURES:
        if f.row.startswith("parallel="):
            for column, reason in f.excludes:
                lines.append(f"- `{f.row}` does not combine with a {column}: {reason}.")
            for what, _, _ in f.needs:
                lines.append(f"- `{f.row}` needs {what}.")
    return (f"{BEGIN}\n\n### Every option\n\n{options_table()}\n### What combines with what\n\n"
            f"{combination_table()}\nThe executors themselves:\n\n" + "\n".join(lines) + f"\n\n{END}")


def write_docs(path: str) -> None:
    """Rewrite the generated part of ``path`` (docs/options.md) from the declarations."""
    with open(path) as fh:
        text = fh.read()
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    with open(path, "w") as fh:
        fh.write(head + generated_docs() + tail)

