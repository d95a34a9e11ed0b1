"""Players: MCTS with any bandit node policy (UCT, Mi-UCT, ...), random, alpha-beta; ``make_player``.

A player has ``name``, ``choose(game, rng) -> move`` (``rng``: int seed or bandits.rng.Stream;
the game is not modified), ``reset()`` (a new game starts), ``observe(move)`` (a move was played by
either side: for tree reuse) and ``close()`` (external engines).

Player specs (``make_player``):

* a bandit spec, e.g. ``ucb1:c=1.4``, ``miucb:episodic=true,final=max``: an :class:`MCTSPlayer`
  with that node policy; the keys ``final=robust|max``, ``solver=true|false``, ``reuse=true|false``
  ``node_cap=N``, ``specialize=true|false``, ``threads=N``, ``parallel=tree|root|leaf`` and
  ``virtual_loss=V`` (docs/parallel.md) go to the search, as do the enhancement keys of
  :mod:`treepolicies.mcts.options` (``rave=true``, ``rave_k=``, ``rave_schedule=hand|mse``,
  ``rave_bias=``, ``grave_ref=N``, ``rollout=random|heuristic|patterns|nakade|fillboard``, ``rollout_cap=N``,
  ``reward_bounds=lo:hi``); the rest go to the policy;
* ``random``; ``alphabeta:depth=N`` (or ``alphabeta`` with ``seconds=``);
* any kind registered in :data:`PLAYER_FACTORIES` (``factory(params, playouts=, seconds=)`` with
  ``params`` the spec's raw ``key -> value`` strings), e.g. ``gnugo:level=10`` from the Go layer,
  ``strong`` (the named strongest player of each game: :mod:`treepolicies.strong`).
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from bandits import POLICIES, ModifiedImprovedUCB, UCB1, make_policy
from bandits.rng import make_stream, randint
from bandits.spec import parse_bool, parse_spec
from treepolicies.alphabeta import MAX_DEPTH, alphabeta
from treepolicies.mcts import capabilities
from treepolicies.mcts.options import OPTION_KEYS, SearchOptions, options_from_spec
from treepolicies.mcts.search import bind_policy, reroot, search

__all__ = ["Player", "MCTSPlayer", "RandomPlayer", "AlphaBetaPlayer", "UCT", "MiUCT", "make_player",
           "PLAYER_FACTORIES", "SEARCH_KEY_PLAYERS", "SEARCH_OPTIONS", "with_search_keys"]

#: the keys of an MCTS player's spec that are not the policy's: every search option, and reuse
SEARCH_OPTIONS = ("reuse",) + OPTION_KEYS
#: Ranges of an MCTS player's budget and node cap: a move's search counts in 64-bit integers and a
#: clock; the smallest node cap holds the root and its children on every board up to 19x19 Go
#: (1 + 362 nodes) with room to grow, the largest is about 100 GB of tree for UCB1 (93 B a node).
MAX_PLAYOUTS = 1_000_000_000
MAX_SECONDS = 86_400.0
NODE_CAP_RANGE = (1000, 1_000_000_000)


class Player:
    """Base class (module docstring)."""

    name = "player"

    def choose(self, game, rng):  # pragma: no cover - abstract
        raise NotImplementedError

    def reset(self) -> None:
        pass

    def observe(self, move) -> None:
        pass

    def close(self) -> None:
        pass

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class MCTSPlayer(Player):
    """MCTS with ``policy`` as node policy and a budget of ``playouts`` iterations and/or ``seconds``.

    reuse: keep the subtree of the moves played as the next root (default False: every move
    searched afresh, as in Liu & Tsuruoka's experiments).  ``options`` (a SearchOptions) and/or its
    fields as keywords (``final``, ``solver``, ``node_cap``, ``specialize``, ``root_policy``,
    ``threads``, ``parallel``, ``virtual_loss``, the enhancements: treepolicies.mcts.options) go to
    every search; ``player.options`` holds them.
    """

    def __init__(self, policy, playouts=None, seconds=None, reuse=False, name=None, options=None, **keywords):
        if playouts is None and seconds is None:
            raise ValueError("an MCTS player needs a budget: playouts=N and/or seconds=S")
        if playouts is not None and (isinstance(playouts, bool) or not isinstance(playouts, (int, np.integer))
                                     or not 1 <= playouts <= MAX_PLAYOUTS):
            raise ValueError(f"playouts must be an integer in 1..{MAX_PLAYOUTS}, got {playouts!r}")
        if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, (int, float, np.number))
                                    or not (0 < seconds <= MAX_SECONDS)):  # nan, inf fail too
            raise ValueError(f"seconds must be a number > 0 and <= {MAX_SECONDS:g}, got {seconds!r}")
        if options is not None and not isinstance(options, SearchOptions):
            raise ValueError(f"options must be a treepolicies.SearchOptions, got {type(options).__name__}")
        if "node_cap" in keywords:
            _check_node_cap(keywords["node_cap"])
        options = (options or SearchOptions()).replace(**keywords) if keywords else (options or SearchOptions())
        _check_node_cap(options.node_cap)
        self.policy = bind_policy(policy, playouts)
        if options.root_policy is not None:
            bind_policy(options.root_policy, playouts, "root_policy")  # (its own errors now, not at a move)
        self.playouts, self.seconds, self.options = playouts, seconds, options
        self.reuse = parse_bool("reuse", str(reuse), "reuse") if isinstance(reuse, str) else bool(reuse)
        if self.reuse and options.threads > 1 and options.parallel == "root":
            raise ValueError("reuse=true does not combine with parallel=root (its trees are rebuilt every move); "
                             "use parallel=tree or leaf")
        self.name = name or ",".join([make_policy(policy).spec] + options.spec_items()
                                     + (["reuse=true"] if self.reuse else []))
        self.last = None  # the last SearchResult
        self._tree = None

    def __getattr__(self, name):
        # player.final, player.solver, player.threads, ...: the search options
        options = self.__dict__.get("options")
        if options is not None and name in OPTION_KEYS:
            return getattr(options, name)
        raise AttributeError(f"{type(self).__name__!s} has no attribute {name!r}")

    def choose(self, game, rng):
        tree = self._tree if self.reuse and _root_moves_agree(self._tree, game) else None
        try:
            result = search(game, self.policy, iterations=self.playouts, seconds=self.seconds, seed=make_stream(rng),
                            tree=tree, options=self.options)
        except ValueError:
            if tree is None:
                raise
            result = search(game, self.policy, iterations=self.playouts, seconds=self.seconds, seed=make_stream(rng),
                            options=self.options)
        self.last = result
        self._tree = result.tree if self.reuse else None
        return result.move

    def check_game(self, game) -> None:
        """ValueError (one line) when this player's search cannot run on ``game`` (treepolicies.mcts
        .capabilities), before any game starts."""
        compiled = hasattr(game, "kernels") and isinstance(getattr(game, "state", None), np.ndarray)
        executor = "single" if self.options.threads == 1 else self.options.parallel
        capabilities.check(capabilities.Context(game=game, options=self.options, policy=self.policy,
                                                compiled=compiled, executor=executor))

    def reset(self) -> None:
        self._tree = None
        self.last = None

    def observe(self, move) -> None:
        if self._tree is not None:
            self._tree = reroot(self._tree, move)


def _check_node_cap(value) -> None:
    """A player's node cap (NODE_CAP_RANGE, narrower than a search's), in one line."""
    lo, hi = NODE_CAP_RANGE
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or not lo <= value <= hi:
        raise ValueError(f"node_cap must be an integer in {lo}..{hi}, got {value!r}")


def _root_moves_agree(tree, game) -> bool:
    """False when a reused compiled tree's root moves differ from the game's legal moves.

    A reused root was expanded as an inner node, without the game's root-only filters (Go's
    positional superko), so it may hold a move the game now forbids; the player then searches afresh.
    """
    if tree is None or not tree.compiled or tree.first[0] < 0:
        return True
    f, n = int(tree.first[0]), int(tree.nchild[0])
    return sorted(int(m) for m in tree.move[f:f + n]) == sorted(int(m) for m in game.legal_moves())


def UCT(c: float = math.sqrt(2.0), playouts=1000, seconds=None, **options) -> MCTSPlayer:
    """UCT (Kocsis & Szepesvari, 2006): MCTS with UCB1(c) as node policy."""
    return MCTSPlayer(UCB1(c), playouts=playouts, seconds=seconds, **options)


def MiUCT(r: str = "sqrt(T/t)", playouts=1000, seconds=None, **options) -> MCTSPlayer:
    """Mi-UCT (Liu & Tsuruoka, 2015): MCTS with episodic modified improved UCB as node policy."""
    return MCTSPlayer(ModifiedImprovedUCB(r=r, episodic=True), playouts=playouts, seconds=seconds, **options)


class RandomPlayer(Player):
    """Uniformly random legal moves."""

    name = "random"

    def choose(self, game, rng):
        moves = game.legal_moves()
        return moves[randint(make_stream(rng).state, len(moves))]


class AlphaBetaPlayer(Player):
    """Negamax alpha-beta (treepolicies.alphabeta) with a fixed ``depth`` or a time budget ``seconds``."""

    def __init__(self, depth=None, seconds=None):
        if (depth is None) == (seconds is None):
            raise ValueError("alphabeta needs exactly one of depth=N and seconds=S")
        if depth is not None and (isinstance(depth, bool) or not isinstance(depth, (int, np.integer))
                                  or not 1 <= depth <= MAX_DEPTH):
            raise ValueError(f"alphabeta depth must be an integer in 1..{MAX_DEPTH}, got {depth!r}")
        if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, (int, float, np.number))
                                    or not (seconds > 0 and math.isfinite(seconds))):
            raise ValueError(f"alphabeta seconds must be a finite number > 0, got {seconds!r}")
        self.depth, self.seconds = depth, seconds
        self.name = f"alphabeta:depth={depth}" if depth is not None else f"alphabeta:seconds={seconds}"
        self.last = None

    def choose(self, game, rng):
        self.last = alphabeta(game, depth=self.depth, seconds=self.seconds)
        return self.last[0]


def _random_factory(params, playouts=None, seconds=None):
    if params:
        raise ValueError(f"player 'random' takes no parameters, got {', '.join(params)}")
    return RandomPlayer()


def _alphabeta_factory(params, playouts=None, seconds=None):
    unknown = set(params) - {"depth", "seconds"}
    if unknown:
        raise ValueError(f"unknown parameter {sorted(unknown)[0]!r} for player 'alphabeta'; valid: depth, seconds")
    depth = params.get("depth")
    secs = params.get("seconds")
    try:
        depth = int(depth) if depth is not None else None
    except ValueError:
        raise ValueError(f"alphabeta depth must be an integer in 1..{MAX_DEPTH}, got {depth!r}") from None
    try:
        secs = float(secs) if secs is not None else None
    except ValueError:
        raise ValueError(f"alphabeta seconds must be a finite number > 0, got {secs!r}") from None
    if depth is None and secs is None:
        secs = seconds
    if depth is None and secs is None:
        raise ValueError("alphabeta needs depth=N in its spec, or a time budget (seconds)")
    return AlphaBetaPlayer(depth=depth, seconds=secs)


#: player kind -> factory(params: dict[str, str], playouts=None, seconds=None) -> Player
PLAYER_FACTORIES: dict[str, Callable] = {
    "random": _random_factory,
    "alphabeta": _alphabeta_factory,
}


#: player kinds of PLAYER_FACTORIES whose spec takes the search keys as an MCTS player's does
#: (``strong``: treepolicies.strong), so the command line's ``--threads`` reaches them too
SEARCH_KEY_PLAYERS: set = set()


def with_search_keys(spec: str, **keys) -> str:
    """``spec`` with ``key=value`` appended for each of ``keys`` that is not None and not in the spec
    already, when the spec names an MCTS player (a bandit policy); any other spec is returned as is.
    (The command line's ``--threads N`` and ``--parallel MODE``: ``ucb1:c=0.5`` -> ``ucb1:c=0.5,threads=2``.)
    """
    try:
        name, params = parse_spec(spec)
    except ValueError:  # (make_player reports it)
        return spec
    if (name not in POLICIES or name in PLAYER_FACTORIES) and name not in SEARCH_KEY_PLAYERS:
        return spec
    extra = [f"{k}={v}" for k, v in keys.items() if v is not None and k not in params]
    if not extra:
        return spec
    spec = spec.strip()
    return spec + ("," if ":" in spec else ":") + ",".join(extra)


def make_player(spec, *, playouts=None, seconds=None) -> Player:
    """The player a spec names (module docstring); a Player is returned unchanged."""
    if isinstance(spec, Player):
        return spec
    name, params = parse_spec(spec)
    if name in PLAYER_FACTORIES:
        return PLAYER_FACTORIES[name](params, playouts=playouts, seconds=seconds)
    if name not in POLICIES:
        raise ValueError(f"unknown player {name!r} in spec {spec!r}; valid players: a bandit policy "
                         f"({', '.join(POLICIES)}) or {', '.join(PLAYER_FACTORIES)}")
    reuse = parse_bool("reuse", params.pop("reuse"), spec) if "reuse" in params else False
    if "node_cap" in params:
        raw = params["node_cap"]
        try:
            value = int(raw)
        except ValueError:
            lo, hi = NODE_CAP_RANGE
            raise ValueError(f"node_cap must be an integer in {lo}..{hi}, got {raw!r}") from None
        _check_node_cap(value)
    options = options_from_spec(params, spec)
    policy_spec = name + (":" + ",".join(f"{k}={v}" for k, v in params.items()) if params else "")
    policy = make_policy(policy_spec)
    return MCTSPlayer(policy, playouts=playouts, seconds=seconds, name=spec.strip(), options=options, reuse=reuse)
