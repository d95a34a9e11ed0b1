"""A compiled game's kernels called by key inside compiled code, and the keys that name them.

The search's compiled steps (:mod:`treepolicies.mcts.steps`) are closures over text keys, not over
the game's functions: ``game_key(kernels)`` names a :class:`treepolicies.games.GameKernels` tuple
by its kernels' qualified names and a hash of their source, ``rollout_key``, ``prior_key`` and
``position_key`` do the same for a :class:`treepolicies.games.Rollout`, a prior kernel and a
position key kernel.  The functions below resolve a key at compile time (numba overloads on a
string literal) to the function it names, so a call costs what it costs in the game's own module::

    legal(key, state, out) -> n        play(key, state, move)        to_move(key, state) -> int
    terminal(key, state) -> bool       result(key, state, player)    playout(key, state, rng)
    rollout_play(rkey, state, rng, plies, cap) -> n                  rollout_value(rkey, state, player)
    prior_call(prkey, state, moves, n, out)    ("" = uniform priors 1/n)
    position(kkey, state) -> int64     (a position key kernel: transpositions)

numba caches a closure under its code and the values it closes over; a key, unlike a function, is
the same text in every process, so the compiled steps of each game are cached on disk.  Editing a
kernel's source changes its key (a fresh compilation); editing a helper a kernel calls is not
noticed (numba's rule for functions compiled into others: README, Development).
"""
from __future__ import annotations

import numba as nb
from numba.core import types
from numba.extending import overload

from bandits.compiling import source_hash

__all__ = ["KERNELS", "game_key", "rollout_key", "prior_key", "position_key", "legal", "play", "to_move",
           "terminal", "result", "playout", "rollout_play", "rollout_value", "prior_call", "position"]

#: key -> what it names (a GameKernels, a Rollout, a prior kernel, a position key kernel)
KERNELS: dict = {}


def _text(functions) -> str:
    """Their qualified names and the hash of their sources (:func:`bandits.compiling.source_hash`)."""
    names = [f"{py.__module__}.{py.__qualname__}" for py in (getattr(fn, "py_func", fn) for fn in functions)]
    return "|".join(names) + "#" + source_hash(functions)


def game_key(kernels) -> str:
    """The key of a GameKernels tuple (registered in :data:`KERNELS`)."""
    key = _text(tuple(kernels))
    KERNELS[key] = kernels
    return key


def rollout_key(rollout) -> str:
    """The key of a Rollout ("" for None: the game's own playout kernel)."""
    if rollout is None:
        return ""
    key = "rollout:" + _text(tuple(rollout))
    KERNELS[key] = rollout
    return key


def prior_key(fn) -> str:
    """The key of a prior kernel ``prior(state, moves, n, out)`` ("" for None: uniform priors)."""
    if fn is None:
        return ""
    key = "prior:" + _text((fn,))
    KERNELS[key] = fn
    return key


def position_key(fn) -> str:
    """The key of a position key kernel ``key(state) -> int64`` ("" for None)."""
    if fn is None:
        return ""
    key = "key:" + _text((fn,))
    KERNELS[key] = fn
    return key


def _named(key, what: str):
    if not isinstance(key, types.StringLiteral):
        raise nb.core.errors.TypingError(f"the {what} key must be a compile-time string, got {key}")
    return KERNELS[key.literal_value]


def legal(key, state, out):  # pragma: no cover - compiled only (overloads below)
    raise NotImplementedError


def play(key, state, move):  # pragma: no cover
    raise NotImplementedError


def to_move(key, state):  # pragma: no cover
    raise NotImplementedError


def terminal(key, state):  # pragma: no cover
    raise NotImplementedError


def result(key, state, player):  # pragma: no cover
    raise NotImplementedError


def playout(key, state, rng):  # pragma: no cover
    raise NotImplementedError


def rollout_play(rkey, state, rng, plies, cap):  # pragma: no cover
    raise NotImplementedError


def rollout_value(rkey, state, player):  # pragma: no cover
    raise NotImplementedError


def prior_call(prkey, state, moves, n, out):  # pragma: no cover
    raise NotImplementedError


def position(kkey, state):  # pragma: no cover
    raise NotImplementedError


@overload(legal, prefer_literal=True, inline="always")
def _legal(key, state, out):
    fn = _named(key, "game").legal
    return lambda key, state, out: fn(state, out)


@overload(play, prefer_literal=True, inline="always")
def _play(key, state, move):
    fn = _named(key, "game").play
    return lambda key, state, move: fn(state, move)


@overload(to_move, prefer_literal=True, inline="always")
def _to_move(key, state):
    fn = _named(key, "game").to_move
    return lambda key, state: fn(state)


@overload(terminal, prefer_literal=True, inline="always")
def _terminal(key, state):
    fn = _named(key, "game").terminal
    return lambda key, state: fn(state)


@overload(result, prefer_literal=True, inline="always")
def _result(key, state, player):
    fn = _named(key, "game").result
    return lambda key, state, player: fn(state, player)


@overload(playout, prefer_literal=True, inline="always")
def _playout(key, state, rng):
    fn = _named(key, "game").playout
    return lambda key, state, rng: fn(state, rng)


@overload(rollout_play, prefer_literal=True, inline="always")
def _rollout_play(rkey, state, rng, plies, cap):
    fn = _named(rkey, "rollout").play
    return lambda rkey, state, rng, plies, cap: fn(state, rng, plies, cap)


@overload(rollout_value, prefer_literal=True, inline="always")
def _rollout_value(rkey, state, player):
    fn = _named(rkey, "rollout").value
    return lambda rkey, state, player: fn(state, player)


@overload(prior_call, prefer_literal=True, inline="always")
def _prior_call(prkey, state, moves, n, out):
    if isinstance(prkey, types.StringLiteral) and prkey.literal_value == "":
        def uniform(prkey, state, moves, n, out):
            for j in range(n):
                out[j] = 1.0 / n
        return uniform
    fn = _named(prkey, "prior")
    return lambda prkey, state, moves, n, out: fn(state, moves, n, out)


@overload(position, prefer_literal=True, inline="always")
def _position(kkey, state):
    fn = _named(kkey, "position key")
    return lambda kkey, state: fn(state)
