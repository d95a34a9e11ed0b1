"""OpenSpiel's games behind the seeds' game interface: ``make_game("openspiel:connect_four")``.

OpenSpiel (Lanctot et al. 2019, https://github.com/google-deepmind/open_spiel; the extra
``pip install -e ".[openspiel]"``) keeps about eighty games; every *perfect-information sequential*
one is a search environment here, with chance nodes or not and with any number of players.  The
adapter maps the interface one to one onto a ``pyspiel.State``:

    copy()            state.clone()
    legal_moves()     state.legal_actions() (at a chance node: the outcomes' actions)
    play(move)        state.apply_action(move), an illegal move refused with a ValueError first
    terminal()        state.is_terminal()
    reward(p)         (returns()[p] - min_utility) / (max_utility - min_utility), in [0, 1]
    to_move           state.current_player() (-1 at a chance node)
    num_players       game.num_players()
    chance_outcomes() at a chance node the (action, probability) pairs, else [] (games with
                      chance nodes only: OpenSpielChanceGame)
    random_playout(rng)  uniformly random moves to the end, the search's playout without the
                      interface's checks (games without chance nodes)
    hash(game)        the transposition key, on the games of KEYED only (OpenSpielKeyedGame)

Transposition key.  OpenSpiel has no position key of its own: ``serialize()`` and ``history()``
are the move sequence, under which no two move orders ever meet (a DAG that is a tree).  The key
here is a 64-bit BLAKE2b digest of ``(str(state), current_player(), move_number())`` for the games
of :data:`KEYED` only: those whose state (read in OpenSpiel's C++ source: the board, the player to
move, the move count, and what these determine) is all in that triple, so two states with equal
keys have the same legal moves, the same returns and equal keys after the same moves (a 64-bit
digest: a false match has probability about 2**-64 per pair of positions).  Including the move
number keeps games with a move cap or a swap rule safe and costs little, since in these games a
transposition has the same length.  The other games are refused for ``transpositions=true``, with
the reason: their string leaves part of the state out (chess and shogi count repetitions, Go keeps
the positions for superko, checkers its multi-jump and draw counters, ...), so a key made from it
would merge positions whose futures differ.  The digest, not ``hash()``, so the keys do not change
with PYTHONHASHSEED (a search replays in every process).

A two-player zero-sum (or constant-sum) deterministic game is searched as our own games are (the
value of one player is one minus the other's); the others (chance nodes, one player or more than
two, general-sum) by the general backup of treepolicies.mcts.pydriver (each node's statistics
are those of the player who moved into it: max^n, Sturtevant 2003; chance nodes sampled by their
probabilities).

Refused in one line: imperfect-information games (a plain tree over states would see the hidden
information; ``pyspiel.load_game_as_turn_based`` does not change that), simultaneous-move games
(the same: the second mover would see the first's move), and games whose chance outcomes OpenSpiel
samples with its own random generator (SAMPLED_STOCHASTIC: the search could not replay a seed).
"""
from __future__ import annotations

import contextlib
import hashlib
import os

from bandits.rng import randint

__all__ = ["OpenSpielGame", "OpenSpielChanceGame", "OpenSpielKeyedGame", "KEYED", "load", "searchable_games",
           "PREFIX"]

PREFIX = "openspiel:"

#: the games whose (string, player to move, move number) is their whole state (module docstring)
KEYED = ("breakthrough", "clobber", "connect_four", "havannah", "hex", "othello", "pentago", "tic_tac_toe", "y")


def _pyspiel():
    try:
        import pyspiel
    except ImportError:
        raise ValueError("OpenSpiel games need the open_spiel package: pip install -e \".[openspiel]\" "
                         "(or pip install open_spiel==2.0.2)") from None
    return pyspiel


@contextlib.contextmanager
def _quiet_stderr():
    """OpenSpiel writes each error it raises to the C stderr as well; keep that line off the terminal
    (the ValueError says it)."""
    try:
        fd = os.dup(2)
    except OSError:  # pragma: no cover - no stderr to silence
        yield
        return
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
            yield
    finally:
        os.dup2(fd, 2)
        os.close(fd)


def _refusal(game_type) -> str | None:
    """Why a game of this type is not a search environment, or None."""
    ps = _pyspiel()
    name = game_type.short_name  # (a simultaneous-move game is also of imperfect information: said first)
    if game_type.dynamics != ps.GameType.Dynamics.SEQUENTIAL:
        return (f"openspiel:{name} is a simultaneous-move game: the player searching second would see the "
                "first's move (pyspiel.load_game_as_turn_based does not change that); only perfect-information "
                "sequential games are searched")
    if game_type.information != ps.GameType.Information.PERFECT_INFORMATION:
        return (f"openspiel:{name} is an imperfect-information game: a search tree over its states would see "
                "the hidden information (pyspiel.load_game_as_turn_based does not change that); only "
                "perfect-information sequential games are searched")
    if game_type.chance_mode == ps.GameType.ChanceMode.SAMPLED_STOCHASTIC:
        return (f"openspiel:{name} samples its chance events with its own random generator, so a search "
                "could not replay a seed; only games with explicit chance outcomes are searched")
    return None


def searchable_games() -> list[str]:
    """The registered OpenSpiel games this adapter searches (perfect-information, sequential, explicit
    chance), by short name."""
    ps = _pyspiel()
    return sorted(t.short_name for t in ps.registered_games() if _refusal(t) is None)


def _spec(name: str, options: dict) -> str:
    if not options:
        return name
    def text(v):
        return str(v).lower() if isinstance(v, bool) else str(v)
    inner = ",".join(f"{k}={text(v)}" for k, v in options.items())
    if "(" in name:
        return name[:-1] + ("," if not name.endswith("()") else "") + inner + ")"
    return f"{name}({inner})"


def load(spec: str, **options):
    """The game ``spec`` names (``"connect_four"``, ``"go(board_size=7,komi=5.5)"``; keyword options
    are added to its parameters) at its initial state; a ValueError naming the game otherwise."""
    ps = _pyspiel()
    spec = _spec(spec.strip(), options)
    with _quiet_stderr():
        try:
            game = ps.load_game(spec)
        except ps.SpielError as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else "cannot load it"
            hint = ""
            if first.startswith("Unknown game"):
                hint = "; searchable games: " + ", ".join(searchable_games())
            else:  # (OpenSpiel's message may be a bare CHECK: name the game's parameters)
                known = {t.short_name: t for t in ps.registered_games()}.get(spec.split("(")[0])
                if known is not None and known.parameter_specification:
                    hint = "; its parameters (defaults): " + ", ".join(
                        f"{k}={v!r}" for k, v in known.parameter_specification.items())
            raise ValueError(f"{PREFIX}{spec}: {first}{hint}") from None
    why = _refusal(game.get_type())
    if why is not None:
        raise ValueError(why)
    deterministic = game.get_type().chance_mode == ps.GameType.ChanceMode.DETERMINISTIC
    cls = OpenSpielChanceGame if not deterministic else \
        OpenSpielKeyedGame if game.get_type().short_name in KEYED else OpenSpielGame
    return cls(game, game.new_initial_state(), spec)


class OpenSpielGame:
    """An OpenSpiel state with the seeds' interface (module docstring); made by :func:`load`."""

    def __init__(self, game, state, spec):
        self.game, self.state, self.spec = game, state, spec
        self.name = PREFIX + spec
        self.num_players = int(game.num_players())
        self._lo, self._hi = float(game.min_utility()), float(game.max_utility())
        utility = game.get_type().utility
        ps = _pyspiel()
        #: True unless the players' values add up to a constant (the general backup then keeps one value
        #: per player)
        self.general_sum = utility not in (ps.GameType.Utility.ZERO_SUM, ps.GameType.Utility.CONSTANT_SUM)
        self.max_plies = int(game.max_game_length())

    def copy(self):
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.state = self.state.clone()
        return new

    def legal_moves(self) -> list[int]:
        return list(self.state.legal_actions())

    def play(self, move) -> None:
        if type(move) is not int:
            if isinstance(move, bool) or not hasattr(move, "__index__"):
                raise ValueError(f"a move of {self.name} is an action number, got {move!r}")
            move = int(move)
        legal = self.state.legal_actions()
        if move not in legal:
            raise ValueError(f"illegal move {move!r} in {self.name}; legal moves: {legal}")
        self.state.apply_action(move)

    def random_playout(self, rng) -> None:
        """Play uniformly random legal moves to the end: the search's playout (treepolicies.mcts.pydriver.
        playout) with the draws of its own loop, ``legal_actions()[randint(rng.state, n)]`` a move,
        without the interface's checks of each move (they are legal by construction)."""
        state = self.state
        while not state.is_terminal():
            actions = state.legal_actions()
            if not actions:
                raise ValueError(f"{self.name} is not terminal but has no legal moves")
            state.apply_action(actions[randint(rng.state, len(actions))])

    def terminal(self) -> bool:
        return bool(self.state.is_terminal())

    def reward(self, player: int) -> float:
        if not isinstance(player, int) or not 0 <= player < self.num_players:
            raise ValueError(f"player must be 0 .. {self.num_players - 1} in {self.name}, got {player!r}")
        if not self.state.is_terminal():
            raise ValueError(f"reward asked for a {self.name} position that is not terminal")
        if self._hi <= self._lo:
            return 0.5
        r = (float(self.state.returns()[player]) - self._lo) / (self._hi - self._lo)
        return min(1.0, max(0.0, r))

    @property
    def to_move(self) -> int:
        return int(self.state.current_player())

    def move_to_str(self, move: int) -> str:
        player = self.state.current_player()
        return self.state.action_to_string(player, int(move))

    def str_to_move(self, text: str) -> int:
        text = text.strip()
        for a in self.state.legal_actions():
            if self.move_to_str(a) == text:
                return int(a)
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"not a legal {self.name} move here: {text!r}") from None

    def __str__(self) -> str:
        return str(self.state)

    @property
    def no_key_reason(self) -> str:
        """Why ``transpositions=true`` is refused on this game (module docstring)."""
        return (f"{self.name} has no transposition key: OpenSpiel's string of its state may leave part of the "
                "state out (repetitions, counters, a move in progress) and its history finds no transpositions; "
                f"keyed games: {', '.join(PREFIX + k for k in KEYED)}")


class OpenSpielKeyedGame(OpenSpielGame):
    """A game of :data:`KEYED`: ``hash(game)`` is its transposition key (module docstring) and ``==``
    compares the same triple."""

    def _triple(self) -> tuple:
        return str(self.state), int(self.state.current_player()), int(self.state.move_number())

    def __hash__(self) -> int:
        text, player, number = self._triple()
        digest = hashlib.blake2b(f"{player}|{number}|{text}".encode(), digest_size=8).digest()
        return int.from_bytes(digest, "little", signed=True)

    def __eq__(self, other) -> bool:
        return isinstance(other, OpenSpielKeyedGame) and self.spec == other.spec and \
            self._triple() == other._triple()


class OpenSpielChanceGame(OpenSpielGame):
    """An OpenSpiel game with chance nodes: :meth:`chance_outcomes` tells the search where they are."""

    #: (the playout draws chance outcomes by their probabilities: the driver's own loop)
    random_playout = None

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """At a chance node the outcomes as (action, probability) pairs (summing to 1), else []."""
        if not self.state.is_chance_node():
            return []
        return [(int(a), float(p)) for a, p in self.state.chance_outcomes()]
