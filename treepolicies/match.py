"""Playing games between players: ``play_game``, ``match``, per-game seeds and the Wilson interval.

Game i of a match with seed s uses the seed ``game_seed(s, i)`` (a SplitMix64 hash through
bandits.rng.stream_state), so a game's result does not depend on which process plays it or in what
order.  Inside a game the first player draws from stream (seed, 1) and the second from (seed, 2).
Player A moves first in even-numbered games.

Wilson score interval (Wilson, 1927) for a proportion p = x / n at normal quantile z::

    centre = (p + z^2 / (2n)) / (1 + z^2 / n)
    half   = z sqrt(p (1 - p) / n + z^2 / (4 n^2)) / (1 + z^2 / n)

Draws count half a win (x = wins + draws / 2).  The interval [centre - half, centre + half] holds
p (it is the set of q with |p - q| <= z sqrt(q (1 - q) / n)), and is [0, ...] at x = 0 and
[..., 1] at x = n; computed in floating point its ends can miss p by a rounding (1 - 1e-16 at
x = n, 3e-17 at x = 0, where Elo is infinite), so they are clamped to [0, p] and [p, 1].
"""
from __future__ import annotations

import dataclasses
import math
from typing import Callable

import numpy as np

from bandits.rng import Stream, stream_state
from treepolicies.games import make_game

__all__ = ["GameRecord", "MatchResult", "play_game", "match", "game_seed", "wilson_interval"]

_GAME_STREAM = 0x47414D45  # "GAME": the stream id that game seeds are drawn from


def game_seed(seed: int, i: int) -> int:
    """Seed of game ``i`` of a match run with ``seed``: a 63-bit hash of (seed, i)."""
    for name, value in (("seed", seed), ("i", i)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    s = stream_state(np.uint64(seed), np.uint64(i), np.uint64(_GAME_STREAM))
    return int(s[0] >> np.uint64(1))


def wilson_interval(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval (module docstring) for ``successes`` out of ``n`` (0 <= successes <= n)."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be an integer >= 1, got {n!r}")
    if not 0 <= successes <= n:
        raise ValueError(f"successes must lie in 0..n = 0..{n}, got {successes!r}")
    if not z > 0:
        raise ValueError(f"z must be > 0, got {z!r}")
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return min(p, max(0.0, centre - half)), max(p, min(1.0, centre + half))  # (module docstring)


@dataclasses.dataclass
class GameRecord:
    """One finished game: ``winner`` 0 (first player), 1 (second) or None (draw).

    ``capped``: the game was ended by the game's own move cap (Go: 3 x points) and scored as it stood.
    """

    winner: int | None
    moves: list
    first: str
    second: str
    seed: int
    capped: bool = False

    @property
    def n_moves(self) -> int:
        return len(self.moves)


def score_rate(wins: float, draws: float, n: int) -> float:
    """A's score rate ``(wins + draws / 2) / n`` (a draw counts half); ValueError unless
    0 <= wins + draws <= n and n >= 1."""
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    if wins < 0 or draws < 0 or wins + draws > n:
        raise ValueError(f"wins and draws must be >= 0 with wins + draws <= n={n}, got {wins}, {draws}")
    return (wins + 0.5 * draws) / n


def score_of_a(winner: int | None, a_first: bool) -> float:
    """A's result in one game: 1 win, 0.5 draw, 0 loss, from ``GameRecord.winner`` (0 = first player)."""
    if winner is None:
        return 0.5
    return 1.0 if (winner == 0) == a_first else 0.0


@dataclasses.dataclass
class MatchResult:
    """Results of A against B: wins, draws and losses of A, its score (draws count half) and the
    Wilson 95% interval of the score."""

    a: str
    b: str
    wins: int
    draws: int
    losses: int
    records: list = dataclasses.field(repr=False, default_factory=list)

    @property
    def n_games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return score_rate(self.wins, self.draws, self.n_games)

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins + 0.5 * self.draws, self.n_games)

    def summary(self) -> str:
        lo, hi = self.interval
        return (f"{self.a} vs {self.b}: {self.wins} wins, {self.draws} draws, {self.losses} losses "
                f"in {self.n_games} games; score {self.score:.3f} (95% CI {lo:.3f}-{hi:.3f})")


def _game(game):
    return make_game(game) if isinstance(game, str) else game.copy()


def play_game(game, first, second, seed: int, on_move: Callable | None = None) -> GameRecord:
    """Play one game from ``game``'s position (not modified) with ``first`` to move; players are reset.

    A player choosing a move that is not legal raises ValueError naming the player and the move.
    At a chance node (a game with ``chance_outcomes()``) the outcome is drawn by its probability from
    a stream of its own (``Stream(seed, 3)``), so the same seed replays the same dice.
    ``on_move(ply, player, move, position)``, if given, is called after each choice, before the
    move is played (``position``: a copy of the position it was chosen in; ``player.last`` holds an
    MCTS player's SearchResult): search logs and SGF comments use it.
    """
    g = _game(game)
    if g.terminal():
        raise ValueError("the game is already over")
    if int(getattr(g, "num_players", 2)) != 2:
        raise ValueError(f"a match is between two players; {getattr(g, 'name', type(g).__name__)} has "
                         f"{g.num_players}")
    players = (first, second)
    distinct = [first] if first is second else [first, second]
    for p in distinct:
        p.reset()
    streams = (Stream(seed, 1), Stream(seed, 2))
    chance = getattr(g, "chance_outcomes", None)
    chance, dice = (chance, Stream(seed, 3)) if callable(chance) else (None, None)
    if chance is not None and chance():
        raise ValueError("the game is at a chance node: play one of game.chance_outcomes() first")
    start = int(g.to_move)
    moves = []
    while not g.terminal():
        outcomes = chance() if chance is not None else None
        if outcomes:  # a chance node: the referee draws the outcome by its probability (its own stream)
            from treepolicies.mcts.pydriver import chance_pick

            move = outcomes[chance_pick(outcomes, dice)][0]
            g.play(move)
            moves.append(move)
            for p in distinct:
                p.observe(move)
            continue
        side = (int(g.to_move) - start) % 2
        move = players[side].choose(g.copy(), streams[side])
        # is_legal (Go, NoGo) also accepts moves the search leaves out, e.g. an external engine's pass
        legal = g.is_legal(move) if hasattr(g, "is_legal") else move in g.legal_moves()
        if not legal:
            raise ValueError(f"player {players[side].name!r} chose the illegal move {move!r}; "
                             f"legal moves: {g.legal_moves()}")
        if on_move is not None:
            on_move(len(moves), players[side], move, g.copy())
        g.play(move)
        moves.append(move)
        for p in distinct:
            p.observe(move)
    r = g.reward(start)
    winner = None if r == 0.5 else (0 if r == 1.0 else 1)
    return GameRecord(winner=winner, moves=moves, first=first.name, second=second.name, seed=seed,
                      capped=bool(getattr(g, "capped", False)))


def match(player_a, player_b, game, n_games: int, seed: int = 0,
          progress: Callable[[int, "MatchResult"], None] | None = None) -> MatchResult:
    """Play ``n_games`` games, A first in even games (module docstring); ``progress(i, result)`` is
    called after each game.  ``game``: a game object (its position is the start) or a registry name."""
    if isinstance(n_games, bool) or not isinstance(n_games, (int, np.integer)) or n_games < 1:
        raise ValueError(f"n_games must be an integer >= 1, got {n_games!r}")
    template = _game(game)
    out = MatchResult(a=player_a.name, b=player_b.name, wins=0, draws=0, losses=0)
    for i in range(n_games):
        a_first = i % 2 == 0
        first, second = (player_a, player_b) if a_first else (player_b, player_a)
        record = play_game(template, first, second, game_seed(seed, i))
        out.records.append(record)
        result = score_of_a(record.winner, a_first)
        out.wins += result == 1.0
        out.draws += result == 0.5
        out.losses += result == 0.0
        if progress is not None:
            progress(i, out)
    return out
