"""Playout policies as plugins: registered by name, used as ``rollout=SPEC``, with search-wide statistics.

A *playout policy* chooses each move of a playout from the legal moves, reading statistics that the
search keeps for it across iterations (MAST's move values, NST's n-gram values, LGRF's reply tables,
PPA's weights), and updates them once per playout from the simulation's moves and its result.  The
built-in ones (:mod:`treepolicies.mcts.playout_policies`: ``mast``, ``nst``, ``lgrf1``, ``lgrf2``,
``ppa``) are registered through :func:`playout_policy`, exactly as a user's own in a ``--plugin`` file.
``random`` and ``heuristic`` stay what they were: rollout kernels a game offers (``game.rollouts``);
a game's rollout of that name is taken first.

The built-in policies are registered when treepolicies.mcts is imported
(:mod:`treepolicies.mcts.playout_policies`).  A policy is two numba kernels and the size of its statistics (``codes`` = the game's move codes,
``params`` its parameters as floats in declaration order, as a node policy's; ``stats`` the search's
float64 statistics of ``size(codes, params)`` entries, zeros unless ``init`` sets them; ``buf`` a
float64 scratch of ``scratch(codes, params)`` entries (at least ``codes``), zeroed at the start of
every playout and passed to both kernels of that playout)::

    choose(stats, params, codes, plies, k, mover, moves, n, rng, buf) -> j
        the index j in 0..n-1 of the move to play among moves[:n] (legal, int64 codes); ``mover``
        (0 or 1) is to move; plies[:k] the simulation so far as ``2 * move + player`` (the tree's
        moves, then the playout's); ``rng`` the search's stream (bandits.rng: uniform, randint)
    update(stats, params, codes, plies, start, k, who, value, buf)
        once, at the end of the playout: plies[:start] the tree's moves, plies[start:k] the
        playout's, ``value`` in [0, 1] the result for player ``who`` (scaled by the reward bounds;
        the other player's is 1 - value)
    init(stats, params, codes)   optional: the starting statistics (e.g. -1 for "no reply")
    propose(stats, params, codes, plies, k, mover, rng, buf, tries) -> code    optional: the fast path
    accept(stats, params, codes, plies, k, mover, c, rng, buf, tries) -> 1, 0 or -1
                                                 optional: the candidate path (below)

Move codes are 0 <= m < codes (a compiled game's ``move_codes``, which a compiled search needs;
a game driven from Python numbers its moves in the tree, at most :data:`DEFAULT_PYTHON_CODES`
unless it declares ``move_codes``).  Kernels must compile with numba (plain functions are
compiled for them; there is no plain-Python path here).

The fast path: enumerating the legal moves at every ply is what ``choose`` needs, and costs
several random playouts on Go.  When the policy has ``propose`` and the game a move check
(``game.move_check(state, move)``: True iff the move is one of ``legal``'s; Go and NoGo have one)
and a random rollout, each ply asks ``propose`` for a code (``tries`` = 0, 1, ... the refusals so
far at this ply) and plays it if the check accepts it; -1 plays one ply of the game's random
rollout (the policy's "default move"); -2, or :data:`MAX_TRIES` refusals, falls back to ``legal``
and ``choose``.  A policy whose ``propose`` draws from the same distribution as its ``choose``
(conditioned on legality) plays the same policy either way (MAST's and LGRF's do).

The candidate path, tried first: when the policy has ``accept`` and the game a candidate draw
(``game.move_draw(state, rng)``: a uniformly random move among ``legal``'s, the one its random
rollout would play, not played; -1 when the game declines to draw one (Go at a root whose superko
list holds the point drawn; NoGo when there is no legal move); Go draws its pass when no point is
legal; Go and NoGo have one), each ply draws a
candidate ``c`` and asks ``accept`` (``tries`` = the candidates refused so far at this ply): 1
plays it (no move check: the draw is legal), 0 draws another, -1 leaves the candidate path for this ply
(then ``propose``, or ``legal`` and ``choose``); :data:`MAX_TRIES` refusals, or a declined draw,
enumerate.  Accepting ``c`` with probability w(c) / max w is rejection sampling from the uniform
candidate: the move played has probability w(m) / sum w over the legal moves, exactly, and every
candidate is a legal point, where ``propose`` draws over all codes and is refused ever more often
as the board fills (MAST's Gibbs draw takes this path).

The one playout loop (:func:`play_playout`, compiled per game and policy; :func:`python_playout`
for a game driven from Python) runs ``legal`` / ``choose`` / ``play`` until the game ends or the
rollout cap, writes the plies and calls ``update``.  The search (treepolicies.mcts.executors.Run)
owns the statistics: one float64 block appended to the options' array that every step already
receives (:data:`H_CODES` ... below), so no step's signature changes; ``Run.playout_stats`` is a
view of it, kept on the tree afterwards (``tree.playout_stats``) and carried over to the next
search of a reused tree when the spec says ``keep=true`` (every playout policy takes ``keep``).

Threads: ``parallel='tree'`` shares one table between the threads, updated without locks (benign
races: an update may be lost or mixed with another thread's, never out of bounds; such a search is
not reproducible anyway); ``parallel='root'`` gives each tree its own; ``parallel='leaf'`` is
refused (its helpers would race on the table; treepolicies.mcts.capabilities).
"""
from __future__ import annotations

import dataclasses
import math
from typing import Callable

import numpy as np
from numba.core import types
from numba.extending import overload

from bandits.registry import Param, njit_kernel
from bandits.spec import parse_bool, parse_spec
from treepolicies.mcts import calls
from treepolicies.mcts.options import N_OPTS, O_LO, O_SCALE, set_playout_check

__all__ = ["PlayoutPolicy", "BoundPlayout", "PLAYOUTS", "playout_policy", "make_playout", "playout_names",
           "is_playout_spec", "play_playout", "python_playout", "H_CODES", "H_MOVES", "H_SCRATCH", "H_NPARAMS",
           "HEADER", "DEFAULT_PYTHON_CODES"]

#: the playout block after the options' own slots (options.N_OPTS): codes, the moves buffer's
#: length, the scratch's length, the number of parameters; then the parameters, then the statistics
H_CODES, H_MOVES, H_SCRATCH, H_NPARAMS = range(4)
HEADER = 4
#: move codes of a game driven from Python that declares no ``move_codes`` [ours]
DEFAULT_PYTHON_CODES = 64
#: proposals a ``propose`` kernel may make for one ply before the loop enumerates the legal moves [ours]
MAX_TRIES = 16
#: the most floats a playout policy's statistics may take (1 GiB)
MAX_STATS = 2 ** 27
#: names a game's rollouts use (a playout policy may not take them)
RESERVED = ("random", "heuristic", "patterns", "nakade", "fillboard")


@dataclasses.dataclass(frozen=True)
class PlayoutPolicy:
    """A registered playout policy (module docstring)."""

    name: str
    choose: Callable
    update: Callable
    size: Callable
    init: Callable | None
    scratch: Callable
    params: dict
    doc: str = ""
    propose: Callable | None = None
    accept: Callable | None = None

    def key_for(self, check=None, draw=None) -> str:
        """The compile-time key naming its kernels (treepolicies.mcts.calls) and, with a
        ``propose`` kernel, the game's move check ``check`` and, with ``accept``, its candidate draw
        ``draw`` (the fast path and the candidate path; module docstring)."""
        fns = (self.choose, self.update) + tuple(f for f in (self.init, self.propose, self.accept) if f is not None)
        if self.accept is None:
            draw = None
        if self.propose is None:
            check = None
        key = (f"playout:{self.name}:" + calls._text(fns) + ("" if check is None else "@" + calls._text((check,)))
               + ("" if draw is None else "~" + calls._text((draw,))))
        calls.KERNELS[key] = (self, check, draw)
        return key


#: name -> PlayoutPolicy
PLAYOUTS: dict[str, PlayoutPolicy] = {}


def _njit(fn, what: str, name: str):
    if fn is None:
        return None
    if not callable(fn):
        raise ValueError(f"playout policy {name!r}: {what} must be a function, got {fn!r}")
    return njit_kernel(fn)  # (cached on disk when its source is a file, with the options it was given)


def playout_policy(name: str, *, choose, update, size, init=None, scratch=None, propose=None, accept=None,
                   doc: str = "", **params: Param) -> PlayoutPolicy:
    """Register a playout policy under ``name`` (module docstring for the kernels).

    ``size(codes, params) -> int`` and ``scratch(codes, params) -> int`` are Python functions
    (``params`` the parameters as a float64 array); ``params`` are declared as a node policy's
    (``bandits.Param``: default, range, doc).  Every policy also takes ``keep`` (bool, default
    false): keep the statistics across the moves of a game (a reused tree).  Registering a name
    again replaces it (a reloaded plugin).
    """
    if not isinstance(name, str) or not name.strip().isidentifier():
        raise ValueError(f"a playout policy's name must be an identifier such as 'mast', got {name!r}")
    name = name.strip().lower()
    if name in RESERVED:
        raise ValueError(f"playout policy name {name!r} is a game's rollout (game.rollouts); choose another name")
    for key, p in params.items():
        if not isinstance(p, Param):
            raise ValueError(f"playout policy {name!r}: parameter {key!r} must be a bandits.Param, got {p!r}")
        if key == "keep":
            raise ValueError(f"playout policy {name!r}: 'keep' is every playout policy's own parameter")
    if not callable(size):
        raise ValueError(f"playout policy {name!r}: size must be a function size(codes, params) -> int")
    policy = PlayoutPolicy(name=name, choose=_njit(choose, "choose", name), update=_njit(update, "update", name),
                           size=size, init=_njit(init, "init", name),
                           scratch=scratch if scratch is not None else (lambda codes, p: codes),
                           params=dict(params), doc=doc, propose=_njit(propose, "propose", name),
                           accept=_njit(accept, "accept", name))
    PLAYOUTS[name] = policy
    return policy


def playout_names() -> list[str]:
    """The registered playout policies' names (built-ins first: treepolicies.mcts registers them)."""
    return list(PLAYOUTS)


def is_playout_spec(spec) -> bool:
    """True if ``spec``'s name is a registered playout policy."""
    if not isinstance(spec, str) or not spec.strip():
        return False
    return spec.strip().partition(":")[0].strip().lower() in PLAYOUTS


def _value(key: str, raw: str, p: Param, spec: str) -> float:
    if isinstance(p.default, bool):
        return 1.0 if parse_bool(key, raw, spec) else 0.0
    if p.choices:
        if raw not in p.choices:
            raise ValueError(f"{key} must be one of {', '.join(p.choices)} in rollout spec {spec!r}, got {raw!r}")
        return float(p.choices.index(raw))
    try:
        v = float(raw)
    except ValueError:
        v = math.nan
    lo = -math.inf if p.low is None else p.low
    hi = math.inf if p.high is None else p.high
    integer = isinstance(p.default, int)
    if not math.isfinite(v) or v < lo or v > hi or (p.low_open and v == lo) or (integer and not v.is_integer()):
        what = "an integer" if integer else "a number"
        rng = f"{'(' if p.low_open else '['}{lo:g}, {hi:g}]"
        raise ValueError(f"{key} must be {what} in {rng} in rollout spec {spec!r}, got {raw!r}")
    return v


@dataclasses.dataclass
class BoundPlayout:
    """A playout policy with its parameters (:func:`make_playout`)."""

    policy: PlayoutPolicy
    values: np.ndarray   # (P,) float64, declaration order
    keep: bool
    spec: str

    def key_for(self, check=None, draw=None) -> str:
        return self.policy.key_for(check, draw)

    def block(self, codes: int, moves: int) -> np.ndarray:
        """The playout block of the options' array (module docstring): header, parameters, and the
        statistics at their starting values."""
        codes, moves = max(1, int(codes)), max(1, int(moves), int(codes))
        size = int(self.policy.size(codes, self.values))
        scratch = max(codes, int(self.policy.scratch(codes, self.values)))
        if size < 1:
            raise ValueError(f"playout policy {self.policy.name!r}: size(codes, params) must be >= 1, got {size}")
        if size > MAX_STATS:
            raise ValueError(f"playout policy {self.spec!r} needs {size} floats of statistics for {codes} move codes, "
                             f"more than {MAX_STATS} (1 GiB); choose smaller tables (e.g. nst:n=2)")
        head = np.array([codes, moves, scratch, self.values.size], np.float64)
        stats = np.zeros(size)
        if self.policy.init is not None:
            self.policy.init(stats, self.values, codes)
        return np.concatenate([head, self.values, stats])


def make_playout(spec: str) -> BoundPlayout:
    """The playout policy a spec names (``mast``, ``mast:tau=0.5``, ``lgrf2:keep=true``); ValueError
    naming the valid names or the parameter and its range."""
    name, raw = parse_spec(spec)
    if name not in PLAYOUTS:
        raise ValueError(f"unknown playout policy {name!r} in rollout spec {spec!r}; registered: "
                         f"{', '.join(PLAYOUTS)} (and the game's rollouts: random, heuristic, patterns, nakade and fillboard on Go)")
    policy = PLAYOUTS[name]
    keep = parse_bool("keep", raw.pop("keep"), spec) if "keep" in raw else False
    unknown = sorted(set(raw) - set(policy.params))
    if unknown:
        raise ValueError(f"unknown parameter {unknown[0]!r} of playout policy {name!r} in rollout spec {spec!r}; "
                         f"valid: {', '.join([*policy.params, 'keep'])}")
    values = []
    for key, p in policy.params.items():
        if key in raw:
            values.append(_value(key, raw[key], p, spec))
        elif isinstance(p.default, bool):
            values.append(1.0 if p.default else 0.0)
        elif p.choices:
            values.append(float(p.choices.index(p.default)))
        else:
            values.append(float(p.default))
    return BoundPlayout(policy=policy, values=np.array(values, np.float64), keep=keep, spec=spec.strip())


def _normal_spec(value: str):
    """The normal form of a rollout spec naming a playout policy, else None (SearchOptions' check)."""
    return make_playout(value).spec if is_playout_spec(value) else None


set_playout_check(_normal_spec)


# ------------------------------------------------------------------------------------------------
# the one playout loop, compiled per game and policy by key


def play_playout(pkey, gkey, rkey, s, rng, plies, start, cap, opts, who):  # pragma: no cover
    raise NotImplementedError


@overload(play_playout, prefer_literal=True)
def _play_playout(pkey, gkey, rkey, s, rng, plies, start, cap, opts, who):
    """(value, k): the playout of the policy ``pkey`` from ``s`` (in place) on the game ``gkey``, its
    plies written to plies[start:k] (as far as there is room); ``value`` for ``who``, scaled
    ((z - lo) * scale, the options' reward bounds); z the game's result, or the rollout ``rkey``'s
    value of a capped playout; then the policy's update."""
    pol = calls._named(pkey, "playout policy")[0]
    choose, update = pol.choose, pol.update
    g = gkey.literal_value
    r = rkey.literal_value if isinstance(rkey, types.StringLiteral) else ""

    def impl(pkey, gkey, rkey, s, rng, plies, start, cap, opts, who):
        h = N_OPTS
        lo, scale = opts[O_LO], opts[O_SCALE]
        codes = np.int64(opts[h + H_CODES])
        nparams = np.int64(opts[h + H_NPARAMS])
        params = opts[h + HEADER:h + HEADER + nparams]
        stats = opts[h + HEADER + nparams:]
        moves = np.empty(np.int64(opts[h + H_MOVES]), np.int64)
        buf = np.zeros(np.int64(opts[h + H_SCRATCH]))
        room = plies.shape[0]
        k = start
        played = 0
        while not calls.terminal(g, s):
            if cap >= 0 and played >= cap:
                break
            mover = calls.to_move(g, s)
            done = _fast_ply(pkey, gkey, rkey, s, rng, plies, k, mover, codes, params, stats, buf)
            if not done:
                n = calls.legal(g, s, moves)
                j = choose(stats, params, codes, plies, min(k, room), mover, moves, n, rng, buf)
                if j < 0 or j >= n:
                    raise ValueError("a playout policy's choose kernel returned an index outside 0..n-1")
                mv = moves[j]
                if k < room:
                    plies[k] = 2 * mv + mover
                calls.play(g, s, mv)
            k += 1
            played += 1
        z = _final(r, g, s, who)
        value = (z - lo) * scale
        update(stats, params, codes, plies, min(start, room), min(k, room), who, value, buf)
        return value, k
    return impl


def _fast_ply(pkey, gkey, rkey, s, rng, plies, k, mover, codes, params, stats, buf):  # pragma: no cover
    raise NotImplementedError


@overload(_fast_ply, prefer_literal=True, inline="always")
def _fast_ply_impl(pkey, gkey, rkey, s, rng, plies, k, mover, codes, params, stats, buf):
    """The fast path of one ply (module docstring): True when it played the ply.  The candidate
    path when the policy has ``accept`` and the game a candidate draw; then, or
    else, the proposals when the policy has ``propose`` and the game a move check and a rollout
    kernel; else False at once (the loop enumerates)."""
    pol, check, draw = calls._named(pkey, "playout policy")
    r = rkey.literal_value if isinstance(rkey, types.StringLiteral) else ""
    candidates = pol.accept is not None and draw is not None
    proposals = pol.propose is not None and check is not None and r != ""
    if not candidates and not proposals:
        return lambda pkey, gkey, rkey, s, rng, plies, k, mover, codes, params, stats, buf: False
    propose, accept, g, tries_max = pol.propose, pol.accept, gkey.literal_value, MAX_TRIES

    def fast(pkey, gkey, rkey, s, rng, plies, k, mover, codes, params, stats, buf):
        room = plies.shape[0]
        if candidates:  # (a compile-time constant: numba prunes the path a policy or game lacks)
            tries = 0
            while tries < tries_max:
                c = draw(s, rng)
                if c < 0:  # declined: the loop enumerates
                    return False
                a = accept(stats, params, codes, plies, min(k, room), mover, c, rng, buf, tries)
                if a < 0:  # the policy leaves the candidate path at this ply
                    break
                if a > 0:  # (the draw is legal: no move check)
                    if k < room:
                        plies[k] = 2 * c + mover
                    calls.play(g, s, c)
                    return True
                tries += 1
            if tries >= tries_max:
                return False
        if proposals:
            tries = 0
            while tries < tries_max:
                c = propose(stats, params, codes, plies, min(k, room), mover, rng, buf, tries)
                if c == -1:  # the game's default: one ply of its rollout (which records it)
                    calls.rollout_play(r, s, rng, plies[k:], 1)  # (past the end: an empty slice, nothing recorded)
                    return True
                if c < 0:  # -2: the loop enumerates the legal moves and asks choose
                    return False
                if check(s, c):
                    if k < room:
                        plies[k] = 2 * c + mover
                    calls.play(g, s, c)
                    return True
                tries += 1
        return False
    return fast


def _final(r, g, s, who):  # pragma: no cover - compiled only
    raise NotImplementedError


@overload(_final, prefer_literal=True, inline="always")
def _final_impl(r, g, s, who):
    if isinstance(r, types.StringLiteral) and r.literal_value != "":
        rk = r.literal_value
        return lambda r, g, s, who: calls.rollout_value(rk, s, who)
    return lambda r, g, s, who: calls.result(g, s, who)


def python_playout(bound: BoundPlayout, block: np.ndarray, game, rng, code_of, plies: list, cap, who, value_of):
    """The playout loop for a game driven from Python (treepolicies.mcts.pydriver): the same kernels
    on the moves' tree codes (``code_of(move)``: treepolicies.mcts.pydriver.code_of); ``plies`` (a
    list) holds the tree's plies and gets the playout's; ``value_of(capped)`` the scaled result
    for ``who``.  Returns (value, capped)."""
    codes = int(block[H_CODES])
    nparams = int(block[H_NPARAMS])
    params = block[HEADER:HEADER + nparams]
    stats = block[HEADER + nparams:]
    buf = np.zeros(int(block[H_SCRATCH]))
    moves_buf = np.empty(max(codes, 1), np.int64)
    start = len(plies)
    played = 0
    capped = False
    while not game.terminal():
        if cap is not None and played >= cap:
            capped = True
            break
        legal = game.legal_moves()
        if not legal:
            raise ValueError(f"{type(game).__name__} is not terminal but has no legal moves")
        n = len(legal)
        for i, mv in enumerate(legal):
            c = code_of(mv)
            if c >= codes:
                raise ValueError(f"playout policy {bound.policy.name!r}: {type(game).__name__} has more than {codes} "
                                 f"distinct moves; declare move_codes on the game (the size of its move tables)")
            moves_buf[i] = c
        arr = np.array(plies, np.int64) if plies else np.zeros(1, np.int64)
        mover = int(game.to_move)
        j = int(bound.policy.choose(stats, params, codes, arr, len(plies), mover, moves_buf, n, rng.state, buf))
        if not 0 <= j < n:
            raise ValueError(f"playout policy {bound.policy.name!r}: its choose kernel returned {j}, outside 0..{n - 1}")
        plies.append(2 * int(moves_buf[j]) + mover)
        game.play(legal[j])
        played += 1
    value = value_of(capped)
    arr = np.array(plies, np.int64) if plies else np.zeros(1, np.int64)
    bound.policy.update(stats, params, codes, arr, start, len(plies), who, value, buf)
    return value, capped
