"""Nim as in the UCT seed: one pile, take 1, 2 or 3 stones, whoever takes the last stone wins.

Positions whose pile is a multiple of 4 are lost for the player to move; from any other pile n the
winning move takes n mod 4 stones.  A Python game (the seeds' interface), searched by the
Python-driven path.
"""
from __future__ import annotations

__all__ = ["Nim"]


class Nim:
    """Subtraction game: ``Nim(stones, to_move=0)``; moves are 1, 2, 3 (at most the pile)."""

    name = "nim"

    def __init__(self, stones: int = 10, to_move: int = 0):
        if isinstance(stones, bool) or not isinstance(stones, int) or stones < 0:
            raise ValueError(f"stones must be an integer >= 0, got {stones!r}")
        if to_move not in (0, 1):
            raise ValueError(f"to_move must be 0 or 1, got {to_move!r}")
        self.stones, self.to_move, self.last = stones, to_move, 1 - to_move

    def copy(self) -> "Nim":
        new = Nim.__new__(Nim)
        new.stones, new.to_move, new.last = self.stones, self.to_move, self.last
        return new

    def legal_moves(self) -> list[int]:
        return [k for k in (1, 2, 3) if k <= self.stones]

    def play(self, k: int) -> None:
        if isinstance(k, bool) or k not in (1, 2, 3) or k > self.stones:
            raise ValueError(f"illegal move {k!r} in nim with {self.stones} stones; legal moves: "
                             f"{self.legal_moves()}")
        self.stones -= k
        self.last, self.to_move = self.to_move, 1 - self.to_move

    def terminal(self) -> bool:
        return self.stones == 0

    def reward(self, player: int) -> float:
        """1 if ``player`` took the last stone, else 0."""
        return 1.0 if self.last == player else 0.0

    def __eq__(self, other) -> bool:
        """The same position: the same pile and player to move (the last mover follows)."""
        return isinstance(other, Nim) and (self.stones, self.to_move) == (other.stones, other.to_move)

    def __hash__(self) -> int:
        """The position's hash (transpositions key positions on it: 1 + 2 and 2 + 1 meet)."""
        return hash((self.stones, self.to_move))

    def __repr__(self) -> str:
        return f"Nim(stones={self.stones}, to_move={self.to_move})"
