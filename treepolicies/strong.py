"""The named strongest player of each game: ``strong`` (``--a strong``, ``banditree gtp --player strong``).

``strong`` is an MCTS player whose options depend on the game it plays; :data:`STRONG` maps a
game's name to the player spec, chosen from the measured table of docs/enhancements/strength.md
(each enhancement against plain UCT, ``ucb1:c=0.5``, 200 games a cell; on Go and NoGo a further
match against that table's best) and documented in
docs/enhancements.md#the-strong-player-strong:

* ``go``: RAVE, MoGo's pattern playouts with the nakade rules (``rollout=nakade``), progressive
  widening (k = 2) in the order of Gelly & Silver's prior knowledge, that knowledge as 20 virtual
  visits a child (``prior_visits=20``), and tree reuse.  With the
  2006 patterns it scored 0.750 [0.657, 0.825] in 100 games at 1000 playouts against RAVE with the
  heuristic rollouts (0.900 [0.851, 0.934] against plain UCT, the table's best Go cell before the
  patterns); the nakade rules then scored 0.590 [0.492, 0.681] in 100 games against it; and
  UCB1's c = 0.1 (less exploration, as MoGo's RAVE needed almost none) scored 0.810 [0.722,
  0.875] against c = 0.25, which scored 0.720 [0.625, 0.799] against c = 0.5 (c = 0 against 0.1:
  0.530 [0.433, 0.625], level); and the knowledge prior as equivalent experience
  (``prior_visits=20``: each child starts with 20 virtual results at its prior's value, Gelly &
  Silver 2007) scored 0.900 [0.826, 0.945] against the same without (n0 = 100: 0.730; n0 = 10
  and 50 each 0.430 [0.337, 0.528] against n0 = 20).  Against GNU Go 3.8 level 10 it scores
  0.710 [0.615, 0.790] at 10 000 playouts a move and 0.800 [0.711, 0.867] at 1 s a move on 2
  threads; level 1 0.800 [0.711, 0.867] at 10 000 and 0.810 [0.722, 0.875] at 1 s a move; at
  3000 playouts 0.590 [0.492, 0.681] against level 10 and 0.700 [0.604, 0.781] against level 1
  (docs/enhancements/strength.md);
* ``nogo``: RAVE with PPA playouts (Cazenave's playout policy adaptation) and tree reuse: 0.740
  [0.646, 0.816] in 100 games at 1000 playouts against RAVE alone, which scores 0.750 [0.686,
  0.805] against plain UCT (PPA alone 0.735; NoGo's heuristic rollouts lose);
* ``connect4``: the heuristic rollouts (0.760 [0.696, 0.814] at 1000, 0.767 at 5000 playouts)
  and tree reuse;
* ``tictactoe``, ``nim``: the MCTS-solver (proved values back up exactly) and tree reuse.

Tree reuse (``reuse=true``) was not measured apart: at equal playouts a move it adds the visits
of the subtree kept from the move before.  Parameters of the spec override the game's
(``strong:threads=2``, ``strong:reuse=false``, ``strong:c=0.4``).  A game without an entry is
refused in one line naming the games that have one.

The player is built when it first sees its game (:meth:`StrongPlayer.for_game`, which
:func:`choose` and :func:`check_game` call); it then behaves as the MCTSPlayer of that spec.
"""
from __future__ import annotations

from bandits.spec import parse_spec
from treepolicies.players import PLAYER_FACTORIES, SEARCH_KEY_PLAYERS, Player, make_player

__all__ = ["STRONG", "StrongPlayer", "strong_spec"]

#: game name -> the player spec of ``strong`` on that game (module docstring: where each comes from)
STRONG: dict[str, str] = {
    "go": "ucb1:c=0.1,rave=true,rollout=nakade,widen_k=2,prior=knowledge,prior_visits=20,reuse=true",
    "nogo": "ucb1:c=0.5,rave=true,rollout=ppa,reuse=true",
    "connect4": "ucb1:c=0.5,rollout=heuristic,reuse=true",
    "tictactoe": "ucb1:c=0.5,solver=true,reuse=true",
    "nim": "ucb1:c=0.5,solver=true,reuse=true",
}


def strong_spec(game: str, params: dict[str, str] | None = None) -> str:
    """The spec of ``strong`` on the game named ``game``, with ``params`` (raw strings) overriding
    or adding keys: ``strong_spec("connect4", {"threads": "2"})`` ->
    ``"ucb1:c=0.5,rollout=heuristic,reuse=true,threads=2"``."""
    if game not in STRONG:
        raise ValueError(f"player 'strong' has no configuration for game {game!r}; games with one: "
                         f"{', '.join(STRONG)}")
    name, base = parse_spec(STRONG[game])
    base.update(params or {})
    return name + ":" + ",".join(f"{k}={v}" for k, v in base.items())


class StrongPlayer(Player):
    """``strong``: the MCTSPlayer of :func:`strong_spec` for the game it plays (module docstring)."""

    def __init__(self, params=None, playouts=None, seconds=None):
        self.params = dict(params or {})
        self.playouts, self.seconds = playouts, seconds
        self.name = "strong" + (":" + ",".join(f"{k}={v}" for k, v in self.params.items()) if self.params else "")
        self.player = None  # the MCTSPlayer, once the game is known
        self.game_name = None
        if playouts is None and seconds is None:
            raise ValueError("an MCTS player needs a budget: playouts=N and/or seconds=S")

    def for_game(self, game) -> Player:
        """The MCTSPlayer for ``game`` (a game or its name), built on the first call; a later call
        with another game is refused (one player, one game)."""
        name = game if isinstance(game, str) else getattr(game, "name", type(game).__name__)
        if self.player is None:
            self.player = make_player(strong_spec(name, self.params), playouts=self.playouts, seconds=self.seconds)
            self.game_name = name
        elif name != self.game_name:
            raise ValueError(f"player {self.name!r} was built for {self.game_name!r}, not {name!r}")
        return self.player

    @property
    def last(self):
        """The last SearchResult (None before the first move)."""
        return None if self.player is None else self.player.last

    def check_game(self, game) -> None:
        self.for_game(game).check_game(game)

    def choose(self, game, rng):
        return self.for_game(game).choose(game, rng)

    def reset(self) -> None:
        if self.player is not None:
            self.player.reset()

    def observe(self, move) -> None:
        if self.player is not None:  # (before its first move it has no tree to keep)
            self.player.observe(move)

    def close(self) -> None:
        if self.player is not None:
            self.player.close()


def _strong_factory(params, playouts=None, seconds=None):
    return StrongPlayer(params, playouts=playouts, seconds=seconds)


PLAYER_FACTORIES["strong"] = _strong_factory
SEARCH_KEY_PLAYERS.add("strong")
