"""Small hand-made games with hand-derived values, shared by several test files."""
from __future__ import annotations


class Triple:
    """Three players: player 0 moves 0 or 1, player 1 moves 0 or 1, and the game ends (player 2
    never moves).  Payoffs (p0, p1, p2) by the two moves:

        (0, 0): (0.2, 0.5, 0.8)   (0, 1): (0.9, 0.1, 0.0)
        (1, 0): (0.5, 0.3, 0.7)   (1, 1): (0.4, 0.9, 0.2)

    max^n (Luckhardt & Irani 1986; hand-derived): after 0 player 1 takes 0 (0.5 > 0.1), giving
    player 0 0.2; after 1 it takes 1 (0.9 > 0.3), giving player 0 0.4; so player 0 moves 1.  The
    two-player backup (player 0's value one minus the next mover's) would see 1 - 0.5 = 0.5 after 0
    and 1 - 0.9 = 0.1 after 1, and move 0."""

    num_players = 3
    PAY = {(0, 0): (0.2, 0.5, 0.8), (0, 1): (0.9, 0.1, 0.0), (1, 0): (0.5, 0.3, 0.7), (1, 1): (0.4, 0.9, 0.2)}

    def __init__(self):
        self.moves = ()

    def copy(self):
        g = Triple()
        g.moves = self.moves
        return g

    @property
    def to_move(self):
        return len(self.moves)

    def legal_moves(self):
        return [] if self.terminal() else [0, 1]

    def play(self, move):
        self.moves += (move,)

    def terminal(self):
        return len(self.moves) == 2

    def reward(self, player):
        return self.PAY[self.moves][player]
