"""Games: Python objects with the seeds' interface and compiled array games (docs/contracts.md s. 2).

Every game offers the seeds' Python interface::

    copy(), legal_moves() -> list, play(move), terminal() -> bool, reward(player) -> float in [0, 1],
    to_move (0 = first player, 1 = second)

A *compiled* game also has ``state`` (a 1-D numpy array) and ``kernels``, a :class:`GameKernels`
tuple of numba functions on that array, plus ``max_moves`` (an upper bound on the number of legal
moves).  :class:`CompiledGame` implements the Python interface through the kernels (one set of
rules), and the search runs its whole loop compiled (:mod:`treepolicies.mcts.calls`).

Registry: ``GAMES`` maps a name to a factory; ``make_game(name, **options)`` builds one.  Other
modules add their games with ``register_game(name, factory)`` (append below).
"""
from __future__ import annotations

import inspect
from typing import Callable, NamedTuple

import numpy as np

__all__ = ["GameKernels", "Rollout", "CompiledGame", "GAMES", "register_game", "make_game",
           "Nim", "TicTacToe", "ConnectFour"]


class GameKernels(NamedTuple):
    """The numba njit functions of a compiled game (all act on the 1-D ``state`` array):

    legal(state, out) -> n          legal move codes (int64) into out[:n]; n = 0 iff terminal
    play(state, move) -> None       apply a legal move in place
    to_move(state) -> int           0 = first player (Black), 1 = second
    terminal(state) -> bool
    result(state, player) -> float  at a terminal state: 1 win, 0.5 draw, 0 loss for ``player``
    playout(state, rng) -> None     uniformly random moves to the end, in place (rng: uint64[4])
    """

    legal: Callable
    play: Callable
    to_move: Callable
    terminal: Callable
    result: Callable
    playout: Callable


class Rollout(NamedTuple):
    """A playout a compiled game offers for the search's enhancements (docs/enhancements.md).

    play(state, rng, plies, cap) -> n   play moves in place to the end of the game, or until ``cap``
                                        plies are played (``cap < 0``: no cap); write each ply as
                                        ``2 * move + player`` (player 0 or 1, who made it) to
                                        ``plies[:n]`` as far as ``plies`` has room, and return n
                                        (the plies played; RAVE credits the ones recorded)
    value(state, player) -> float       at a terminal state the result for ``player`` (1 win, 0.5
                                        draw, 0 loss); at an unfinished one (a capped rollout) the
                                        position scored as it stands, in [0, 1]

    A game lists its rollouts by name in ``game.rollouts`` (``"random"`` is the uniform playout of
    ``GameKernels.playout`` with the same random draws, so ``rollout=random`` changes nothing);
    ``game.move_codes`` bounds its move codes (0 <= move < move_codes) and ``game.max_plies`` the
    plies of one game, for the AMAF tables and buffers.
    """

    play: Callable
    value: Callable


class CompiledGame:
    """Base class of compiled games: the seeds' Python interface implemented through ``kernels``.

    Subclasses set ``kernels`` (a GameKernels), ``max_moves`` and ``name``, create ``self.state``
    in ``__init__``, and may override :meth:`move_to_str` / :meth:`str_to_move`.
    """

    kernels: GameKernels
    max_moves: int = 0
    name: str = ""
    #: name -> Rollout (playouts that report their moves: RAVE, heuristic rollouts, rollout_cap)
    rollouts: dict = {}
    #: name -> prior kernel prior(state, moves, n, out): priors of moves[:n] into out[:n], summing
    #: to 1 (PUCT's P and the order of progressive widening; ``prior=`` of the search)
    priors: dict = {}
    #: move codes are 0 .. move_codes - 1; plies of one game at most max_plies (with rollouts)
    move_codes: int = 0
    max_plies: int = 0

    def copy(self):
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.state = self.state.copy()
        return new

    def legal_moves(self) -> list[int]:
        out = np.empty(max(1, self.max_moves), np.int64)
        n = self.kernels.legal(self.state, out)
        return [int(m) for m in out[:n]]

    def play(self, move) -> None:
        legal = self.legal_moves()
        if isinstance(move, (bool, np.bool_)) or move not in legal:
            raise ValueError(f"illegal move {move!r} in {self.name}; legal moves: {legal}")
        self.kernels.play(self.state, int(move))

    def terminal(self) -> bool:
        return bool(self.kernels.terminal(self.state))

    def reward(self, player: int) -> float:
        if player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, got {player!r}")
        if not self.terminal():
            raise ValueError(f"reward asked for a {self.name} position that is not terminal")
        return float(self.kernels.result(self.state, player))

    @property
    def to_move(self) -> int:
        return int(self.kernels.to_move(self.state))

    def move_to_str(self, move: int) -> str:
        return str(int(move))

    def str_to_move(self, text: str) -> int:
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"not a {self.name} move: {text!r}") from None


#: name -> factory(**options) returning a new game at its initial position
GAMES: dict[str, Callable] = {}


def register_game(name: str, factory: Callable) -> None:
    """Add a game to :data:`GAMES` (``make_game(name, **options)`` then calls ``factory(**options)``)."""
    GAMES[name] = factory


def make_game(name: str, **options):
    """A new game by registry name, e.g. ``make_game("connect4")``, ``make_game("nim", stones=10)``, or
    an OpenSpiel game, ``make_game("openspiel:pig", winscore=20)`` (treepolicies.games.openspiel)."""
    if isinstance(name, str) and name.startswith("openspiel:"):  # OpenSpiel's games (the open_spiel extra)
        from treepolicies.games.openspiel import load

        return load(name[len("openspiel:"):], **options)
    if name not in GAMES:
        raise ValueError(f"unknown game {name!r}; valid games: {', '.join(GAMES)}, or openspiel:<name> "
                         "(docs/openspiel.md)")
    factory = GAMES[name]
    try:
        accepted = inspect.signature(factory).parameters
    except (TypeError, ValueError):  # pragma: no cover - a factory without a signature
        accepted = None
    if accepted is not None and not any(p.kind == p.VAR_KEYWORD for p in accepted.values()):
        valid = [k for k, p in accepted.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        for key in options:
            if key not in valid:
                raise ValueError(f"unknown option {key!r} for game {name!r}; valid options: "
                                 f"{', '.join(valid) if valid else '(none)'}")
    try:
        return factory(**options)
    except TypeError as exc:
        raise ValueError(f"bad options for game {name!r}: {exc}") from None


# -- registrations (append new games below) --------------------------------------------------------
from treepolicies.games.nim import Nim  # noqa: E402
from treepolicies.games.tictactoe import TicTacToe  # noqa: E402
from treepolicies.games.connect4 import ConnectFour  # noqa: E402

register_game("nim", Nim)
register_game("tictactoe", TicTacToe)
register_game("connect4", ConnectFour)

# 9x9 Go and NoGo (compiled array games; rules in docs/go-nogo.md)
from treepolicies.games.go import Go  # noqa: E402
from treepolicies.games.nogo import NoGo  # noqa: E402

register_game("go", Go)
register_game("nogo", NoGo)
__all__ += ["Go", "NoGo"]
