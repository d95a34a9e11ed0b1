"""A Go position for tests: the positional-superko case (tests/test_go.py, test_playouts.py)."""
from treepolicies.games.go import Go

#: found by a search over random 5x5 games: Black A4 captures A3 (one stone), White A3 takes back
#: the two Black stones A5-A4, and Black A5 would recreate the starting position.  A5 is no capture,
#: so simple ko allows it; positional superko forbids it.
SUPERKO_START = """
    X O . O O
    . O . X O
    O X O X .
    X X O O X
    . . . X X
"""


def superko_position():
    """(game after Black A4 and White A3, the code of Black's A5, the starting board): A5 would repeat
    the start, so the game's superko list holds it."""
    g = Go.from_diagram(SUPERKO_START)
    start = g.board().copy()
    g.play(g.str_to_move("A4"))
    g.play(g.str_to_move("A3"))
    return g, g.str_to_move("A5"), start
