"""GTP analysis for Go front-ends: GoGui's ``gfx`` analyze commands and Leela Zero's ``lz-analyze``.

Used by :class:`treepolicies.interop.gtp.GtpEngine`; every search here runs on a copy of the position with
the engine's MCTS player's node policy, budget and options, draws from its own random streams
(``(seed, "GFX", k)`` and ``(seed, "LZ", k)``, so ``genmove``'s streams are unchanged) and never
touches the player's own state (its reused tree).

GoGui (https://github.com/Remi-Coulom/gogui, doc/manual/xml/analyze.xml): ``gogui-analyze_commands``
lists one ``type/label/command`` per line; a ``gfx`` answer has one graphics command per line:

    banditree-visits [colour]   INFLUENCE v1 x1 ... (visits / most visits, in [0, 1]), LABEL v1 n1 ...
                                (visit counts), TEXT ... (moves with at least one visit)
    banditree-values [colour]   INFLUENCE v1 y1 ... (2 q_Black - 1 in [-1, 1]: positive is good for
                                Black, as GoGui draws it), LABEL v1 p1 ... (value for the colour to move,
                                in whole percent), TEXT ...
    banditree-pv [colour]       VAR b v1 w v2 ... (the principal variation, the most-visited path,
                                from the colour to move; a pass is PASS), TEXT ...

The three commands share one search per position and colour (the last one is kept), so their
numbers agree.

Leela Zero / KataGo (KataGo docs/GTP_Extensions.md; Leela Zero's GTP.cpp):
``lz-analyze [colour] [interval] [interval N] [maxmoves N] [minmoves N]`` answers ``=[id]`` on a line
of its own, then one line per report, each ``info move D4 visits 120 winrate 5321 prior 812 order 0
pv D4 E5 ...`` for every visited root move (most visits first; ``maxmoves`` keeps the first N),
until the next command line (or an empty line, or the end of input) arrives; the answer then ends
with an empty line and the next command is answered as usual.  ``winrate``: 10000 x the move's mean
result for the colour analysed, rounded; ``prior``: 10000 x the move's prior where the search
has priors (``prior=heuristic`` or an evaluator's, rounded), else the uniform 10000 / K (K root
moves: plain MCTS has no prior); ``interval`` in centiseconds (default 100; at least 1).  The search goes
on growing one tree (tree reuse) across the reports.  An engine made with
``analysis_iterations=N`` reports after every N more iterations instead of every interval
(reproducible; the tests use it).
"""
from __future__ import annotations

import dataclasses

from bandits.rng import Stream
from treepolicies.mcts.search import search
from treepolicies.viz.summary import principal_variation, pv_nodes, root_rows

__all__ = ["ANALYZE_COMMANDS", "GFX_COMMANDS", "LzRequest", "parse_lz_args", "gfx_visits", "gfx_values", "gfx_pv",
           "lz_info", "GFX_STREAM", "LZ_STREAM"]

GFX_STREAM = 0x474658  # "GFX"
LZ_STREAM = 0x4C5A  # "LZ"
#: (type, label, command) of the gfx commands gogui-analyze_commands lists
GFX_COMMANDS = (("gfx", "Search visits", "banditree-visits"), ("gfx", "Search values", "banditree-values"),
                ("gfx", "Principal variation", "banditree-pv"))
#: GTP commands added by this module
ANALYZE_COMMANDS = ("gogui-analyze_commands", "lz-analyze") + tuple(c for _, _, c in GFX_COMMANDS)


def analyze_commands_answer() -> str:
    """The answer to ``gogui-analyze_commands``: one ``type/label/command %m`` line per command."""
    return "\n".join(f"{t}/{label}/{cmd} %m" for t, label, cmd in GFX_COMMANDS)


def _vertex(game, move) -> str:
    text = game.move_to_str(move)
    return "PASS" if text == "pass" else text


def _visited(result):
    return [r for r in root_rows(result) if r["visits"] > 0]


def gfx_visits(game, result) -> str:
    """The ``banditree-visits`` gfx answer (module docstring)."""
    rows = _visited(result)
    top = max((r["visits"] for r in rows), default=1)
    points = [r for r in rows if r["move"] != game.size * game.size]
    infl = " ".join(f"{game.move_to_str(r['move'])} {r['visits'] / top:.3f}" for r in points)
    label = " ".join(f"{game.move_to_str(r['move'])} {r['visits']}" for r in points)
    best = rows[0] if rows else None
    text = f"TEXT visits of {int(sum(result.visits))} iterations" + (
        f"; most visited {game.move_to_str(best['move'])} ({best['visits']})" if best else "")
    return "\n".join(x for x in (f"INFLUENCE {infl}" if infl else "", f"LABEL {label}" if label else "", text) if x)


def gfx_values(game, result, colour: int) -> str:
    """The ``banditree-values`` gfx answer for ``colour`` (0 Black, 1 White) to move."""
    points = [r for r in _visited(result) if r["move"] != game.size * game.size]
    black = (lambda q: q) if colour == 0 else (lambda q: 1.0 - q)
    infl = " ".join(f"{game.move_to_str(r['move'])} {2.0 * black(r['value']) - 1.0:.3f}" for r in points)
    label = " ".join(f"{game.move_to_str(r['move'])} {round(100 * r['value'])}" for r in points)
    text = f"TEXT values in % for {'Black' if colour == 0 else 'White'} to move (squares: black good for Black)"
    return "\n".join(x for x in (f"INFLUENCE {infl}" if infl else "", f"LABEL {label}" if label else "", text) if x)


def gfx_pv(game, result, colour: int) -> str:
    """The ``banditree-pv`` gfx answer: VAR with colours alternating from ``colour``."""
    pv = principal_variation(result)
    words, c = [], colour
    for m in pv:
        words.append(f"{'bw'[c]} {_vertex(game, m)}")
        c = 1 - c
    text = "TEXT principal variation " + (" ".join(game.move_to_str(m) for m in pv) or "(none)")
    return "\n".join(x for x in (f"VAR {' '.join(words)}" if words else "", text) if x)


def lz_info(game, result, maxmoves: int | None = None) -> str:
    """One ``lz-analyze`` report line (module docstring) from a search result."""
    tree = result.tree
    f = int(tree.first[0])
    k = len(result.moves)
    uniform = round(10000 / k) if k else 0
    priors = tree.arrays.prior if tree.arrays.prior.shape[0] == tree.arrays.parent.shape[0] else None
    parts = []
    for r in _visited(result)[:maxmoves]:
        node = f + r["index"]
        prior = uniform if priors is None else round(10000 * float(priors[node]))
        pv = [game.move_to_str(r["move"])] + [game.move_to_str(int(tree.move[x])) for x in pv_nodes(tree, node)]
        parts.append(f"info move {pv[0]} visits {r['visits']} winrate {round(10000 * r['value'])} "
                     f"prior {prior} order {r['order']} pv {' '.join(pv)}")
    return " ".join(parts)


@dataclasses.dataclass
class LzRequest:
    """A parsed ``lz-analyze``: colour (0/1), interval in centiseconds, maxmoves (None: all)."""

    colour: int
    interval: int = 100
    maxmoves: int | None = None


def parse_lz_args(args, to_move: int, colour_of) -> LzRequest:
    """Parse ``[colour] [interval] key value ...``; ValueError with the GTP message if malformed."""
    req = LzRequest(colour=to_move)
    words = list(args)
    if words and not words[0].isdigit() and words[0].lower() not in ("interval", "maxmoves", "minmoves"):
        req.colour = colour_of(words.pop(0))
    if words and words[0].isdigit():
        req.interval = int(words.pop(0))
    while words:
        key = words.pop(0).lower()
        if key not in ("interval", "maxmoves", "minmoves") or not words or not words[0].isdigit() \
                or len(words[0]) > 9:
            raise ValueError("syntax error: cannot parse analyze tags (valid: [colour] [interval] "
                             "interval N, maxmoves N, minmoves N)")
        value = int(words.pop(0))
        if key == "interval":
            req.interval = value
        elif key == "maxmoves":
            req.maxmoves = max(1, value)
    if len(str(req.interval)) > 9:
        raise ValueError("syntax error: interval must be a number of centiseconds")
    req.interval = max(1, req.interval)
    return req


class LzSession:
    """One running ``lz-analyze``: a growing search of ``game`` (a copy) for ``colour``."""

    def __init__(self, game, player, request: LzRequest, stream: Stream, iterations: int | None = None):
        self.game, self.player, self.request, self.stream = game, player, request, stream
        self.iterations = iterations
        self.tree = None
        self.full = False

    def step(self) -> str:
        """Search one more interval (or ``iterations``) and return the report line."""
        p = self.player
        options = p.options
        if options.parallel == "root":  # the analysis grows one tree, so a root-parallel player shares it
            options = options.replace(parallel="tree")
        kw = dict(options=options, early_stop=False, seed=self.stream, tree=self.tree)
        if self.iterations is not None:
            result = search(self.game, p.policy, iterations=self.iterations, **kw)
        else:
            result = search(self.game, p.policy, seconds=self.request.interval / 100.0, **kw)
        self.tree = result.tree
        self.full = result.stop_reason == "node_cap"
        self.result = result
        return lz_info(self.game, result, self.request.maxmoves)
