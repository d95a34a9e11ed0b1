"""Playing games between players: ``play_game``, ``match``, per-game seeds and the Wilson interval.

Game i of a match with seed s uses the seed ``game_seed(s, i)`` (a SplitMix64 hash through
bandits.rng.stream_state), so a game's result does not depend on which process plays it or in what
order.  Inside a game the first player draws from stream (seed, 1) and the second from (seed, 2).
Player A moves first in even-numbered games.  Games of n players (OpenSpiel's, a user's): seat s
draws from stream (seed, s + 1), the referee's chance outcomes from (seed, n + 1) (so (seed, 3) with
two players), and ``match_seats`` rotates the seats (player (s + i) % n in seat s of game i).

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

__all__ = ["GameRecord", "MatchResult", "play_game", "match", "game_seed", "wilson_interval", "SeatsRecord",
           "SeatsResult", "play_seats", "match_seats"]

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


def _seats_play(g, players, seed: int, on_move):
    """Play ``g`` (modified) to its end with ``players[s]`` in seat s; returns (moves, start).

    Seat s plays the player ``(start + s) % n`` of the game, ``start`` being the player to move at the
    beginning (player 0 when the game begins with a chance node) and draws from ``Stream(seed, s + 1)``;
    the referee draws each chance outcome by its probability from ``Stream(seed, n + 1)``.
    """
    n = len(players)
    distinct = list({id(p): p for p in players}.values())
    for p in distinct:
        p.reset()
    streams = [Stream(seed, s + 1) for s in range(n)]
    chance = getattr(g, "chance_outcomes", None)
    chance, dice = (chance, Stream(seed, n + 1)) if callable(chance) else (None, None)
    start = 0 if chance is not None and chance() else int(g.to_move)
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
        seat = (int(g.to_move) - start) % n
        move = players[seat].choose(g.copy(), streams[seat])
        # is_legal (Go, NoGo) also accepts moves the search leaves out, e.g. an external engine's pass
        legal = g.is_legal(move) if hasattr(g, "is_legal") else move in g.legal_moves()
        if not legal:
            raise ValueError(f"player {players[seat].name!r} chose the illegal move {move!r}; "
                             f"legal moves: {g.legal_moves()}")
        if on_move is not None:
            on_move(len(moves), players[seat], move, g.copy())
        g.play(move)
        moves.append(move)
        for p in distinct:
            p.observe(move)
    return moves, start


def _players_of(g) -> int:
    return int(getattr(g, "num_players", 2))


def play_game(game, first, second, seed: int, on_move: Callable | None = None) -> GameRecord:
    """Play one game from ``game``'s position (not modified) with ``first`` to move; players are reset.

    A player choosing a move that is not legal raises ValueError naming the player and the move.
    At a chance node (a game with ``chance_outcomes()``) the outcome is drawn by its probability from
    a stream of its own (``Stream(seed, 3)``), so the same seed replays the same dice; a game that
    begins with a chance node has ``first`` play player 0.  Games of more than two players:
    :func:`play_seats`.  ``on_move(ply, player, move, position)``, if given, is called after each
    choice, before the move is played (``position``: a copy of the position it was chosen in;
    ``player.last`` holds an MCTS player's SearchResult): search logs and SGF comments use it.
    """
    g = _game(game)
    if g.terminal():
        raise ValueError("the game is already over")
    if _players_of(g) != 2:
        raise ValueError(f"play_game is for two players; {getattr(g, 'name', type(g).__name__)} has "
                         f"{g.num_players}: use play_seats / match_seats (banditree match --players)")
    moves, start = _seats_play(g, (first, second), seed, on_move)
    r = g.reward(start)
    winner = None if r == 0.5 else (0 if r == 1.0 else 1)
    return GameRecord(winner=winner, moves=moves, first=first.name, second=second.name, seed=seed,
                      capped=bool(getattr(g, "capped", False)))


@dataclasses.dataclass
class SeatsRecord:
    """One finished game of n seats: ``rewards[s]`` is seat s's reward in [0, 1] (``game.reward``:
    an OpenSpiel game's return scaled by its utility bounds), ``players[s]`` the name in seat s."""

    rewards: list
    players: list
    moves: list
    seed: int
    capped: bool = False


def play_seats(game, players, seed: int, on_move: Callable | None = None) -> SeatsRecord:
    """Play one game of ``len(players)`` seats (the game's number of players) from ``game``'s position
    (not modified); seat s plays the game's player ``(start + s) % n`` (start: the player to move
    first, 0 if the game begins with a chance node) and draws from ``Stream(seed, s + 1)``; chance
    outcomes come from ``Stream(seed, n + 1)``.  With two players this is :func:`play_game`'s game."""
    g = _game(game)
    players = list(players)
    if g.terminal():
        raise ValueError("the game is already over")
    if len(players) != _players_of(g):
        raise ValueError(f"players must name one player a seat: {getattr(g, 'name', type(g).__name__)} has "
                         f"{_players_of(g)} seats, got {len(players)} players")
    moves, start = _seats_play(g, players, seed, on_move)
    n = len(players)
    return SeatsRecord(rewards=[float(g.reward((start + s) % n)) for s in range(n)],
                       players=[p.name for p in players], moves=moves, seed=seed,
                       capped=bool(getattr(g, "capped", False)))


@dataclasses.dataclass
class SeatsResult:
    """Results of an n-player match (:func:`match_seats`).

    ``scores[i][s]``: player i's rewards in the games it played in seat s (lists).  A player's score is
    its mean reward over all its games (a two-player win 1, draw 0.5, loss 0, as in :class:`MatchResult`),
    with the Wilson 95% interval of that mean (the rewards summed as successes, as draws count half).
    """

    players: list
    scores: list
    records: list = dataclasses.field(repr=False, default_factory=list)

    @property
    def n_games(self) -> int:
        return len(self.records)

    def score(self, i: int) -> float:
        rewards = [r for seat in self.scores[i] for r in seat]
        return float(sum(rewards) / len(rewards))

    def interval(self, i: int) -> tuple[float, float]:
        rewards = [r for seat in self.scores[i] for r in seat]
        return wilson_interval(float(sum(rewards)), len(rewards))

    def seat_score(self, i: int, s: int) -> float | None:
        """Player i's mean reward in seat s (None before it has played there)."""
        seat = self.scores[i][s]
        return float(sum(seat) / len(seat)) if seat else None

    def summary(self) -> str:
        lines = []
        for i, name in enumerate(self.players):
            lo, hi = self.interval(i)
            seats = ", ".join("-" if (v := self.seat_score(i, s)) is None else f"{v:.3f}"
                              for s in range(len(self.players)))
            lines.append(f"{name}: score {self.score(i):.3f} (95% CI {lo:.3f}-{hi:.3f}); by seat {seats}")
        return "\n".join(lines)


def match_seats(players, game, n_games: int, seed: int = 0,
                progress: Callable[[int, "SeatsResult"], None] | None = None) -> SeatsResult:
    """Play ``n_games`` games of n = ``len(players)`` seats (the game's number of players), seats rotated:
    in game i seat s is played by player ``(s + i) % n``, so over n consecutive games every player sits
    in every seat once (with two players: A first in even games, as in :func:`match`).  Game i uses the
    seed ``game_seed(seed, i)``; ``progress(i, result)`` is called after each game."""
    if isinstance(n_games, bool) or not isinstance(n_games, (int, np.integer)) or n_games < 1:
        raise ValueError(f"n_games must be an integer >= 1, got {n_games!r}")
    template = _game(game)
    players = list(players)
    n = len(players)
    if n != _players_of(template):
        raise ValueError(f"players must name one player a seat: {getattr(template, 'name', type(template).__name__)} "
                         f"has {_players_of(template)} seats, got {n} players")
    out = SeatsResult(players=[p.name for p in players], scores=[[[] for _ in range(n)] for _ in range(n)])
    for i in range(n_games):
        order = [(s + i) % n for s in range(n)]  # order[s]: the player in seat s
        record = play_seats(template, [players[k] for k in order], game_seed(seed, i))
        out.records.append(record)
        for s, k in enumerate(order):
            out.scores[k][s].append(record.rewards[s])
        if progress is not None:
            progress(i, out)
    return out


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
