"""Running matches as independent game tasks: task list, local process pool or Dask, resume, Ctrl-C.

A match is a :class:`MatchConfig` (game, the two player specs, the budget per move, the run seed)
and a number of games.  Game i of a run is one task, fully determined by the configuration and i:

    seed_i = treepolicies.game_seed(run seed, i)       A moves first when i is even

so a game gives the same result whichever process or machine plays it and whenever it is played
(with a playout budget; a ``seconds`` budget depends on the machine's speed).  The client keeps
the results database (:mod:`testbeds.store`) and is its only writer: it lists the games still
missing, sends them to a local process pool (:func:`run_local`) or a Dask cluster
(:func:`testbeds.distributed.run_dask`), and commits every result as it arrives.  Running the same
command again plays only the missing games.  Ctrl-C (KeyboardInterrupt) stops the workers; every
game finished before it is already committed.

Several runs (a tables grid) share one task list, ordered by game index first, so that an
interrupted grid has about the same number of games in every cell.
"""
from __future__ import annotations

import math
import multiprocessing as mp
import signal
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator

from testbeds.ratings import Rating, format_rating, rate
from testbeds.store import GameRow, ResultStore
from treepolicies.match import score_of_a

__all__ = ["MatchConfig", "Task", "play_task", "plan_tasks", "run_tasks", "run_local", "run_match",
           "MatchOutcome", "check_execution"]


@dataclass(frozen=True)
class MatchConfig:
    """Everything that determines the games of a match (the number of games excepted).

    Parameters
    ----------
    game : str
        A name registered in ``treepolicies.games.GAMES`` ("nogo", "go", "connect4", ...).
    a, b : str
        Player specs for ``treepolicies.make_player`` (``miucb:episodic=true``, ``ucb1:c=0.5``, ...).
    playouts : int or None
        Playouts (search iterations) per move, >= 1; exactly one of ``playouts`` and ``seconds``.
    seconds : float or None
        Time budget per move, > 0 (results then depend on the machine's speed).
    seed : int
        Run seed, >= 0; game i uses ``treepolicies.game_seed(seed, i)``.
    game_options : dict
        Keyword arguments of ``make_game`` (e.g. ``{"size": 9}``).
    """

    game: str
    a: str
    b: str
    playouts: int | None = None
    seconds: float | None = None
    seed: int = 0
    game_options: dict = field(default_factory=dict)

    def __post_init__(self):
        if not isinstance(self.game, str) or not self.game:
            raise ValueError(f"game must be a game name, got {self.game!r}")
        for name in ("a", "b"):
            if not isinstance(getattr(self, name), str) or not getattr(self, name).strip():
                raise ValueError(f"player {name} must be a non-empty spec string, got {getattr(self, name)!r}")
        if (self.playouts is None) == (self.seconds is None):
            raise ValueError("give exactly one of playouts and seconds per move")
        if self.playouts is not None and (isinstance(self.playouts, bool) or int(self.playouts) != self.playouts
                                          or self.playouts < 1):
            raise ValueError(f"playouts must be an integer >= 1, got {self.playouts!r}")
        if self.seconds is not None and not (self.seconds > 0 and math.isfinite(self.seconds)):
            raise ValueError(f"seconds must be > 0, got {self.seconds!r}")
        if isinstance(self.seed, bool) or int(self.seed) != self.seed or self.seed < 0:
            raise ValueError(f"seed must be an integer >= 0, got {self.seed!r}")
        if not isinstance(self.game_options, dict):
            raise ValueError(f"game_options must be a dict, got {self.game_options!r}")

    def as_dict(self) -> dict:
        """Plain JSON-ready form, the identity of the run in the results database."""
        return {"game": self.game, "game_options": dict(sorted(self.game_options.items())),
                "a": self.a, "b": self.b,
                "playouts": None if self.playouts is None else int(self.playouts),
                "seconds": None if self.seconds is None else float(self.seconds),
                "seed": int(self.seed)}

    @classmethod
    def from_dict(cls, d: dict) -> "MatchConfig":
        return cls(game=d["game"], a=d["a"], b=d["b"], playouts=d.get("playouts"),
                   seconds=d.get("seconds"), seed=d["seed"], game_options=dict(d.get("game_options") or {}))


@dataclass(frozen=True)
class Task:
    """Game ``index`` of the run ``run_id`` whose configuration is ``config`` (a plain dict)."""

    run_id: int
    config: dict
    index: int
    plugins: tuple = ()  # plugin files (bandits.load_plugin) the players' policies come from
    log: bool = False  # search logs on stderr and per-move SGF comments (banditree match --log)


# -- playing one game (runs in a worker process) -------------------------------------------------
def play_task(task: Task) -> tuple[int, GameRow]:
    """Play game ``task.index`` of ``task.config``; returns ``(run_id, row)``.

    Fresh game and players for every game, so the result depends on nothing but the task.
    """
    import treepolicies
    from bandits.registry import load_plugin
    from treepolicies.games import make_game

    for path in task.plugins:
        load_plugin(path)
    cfg = MatchConfig.from_dict(task.config)
    i = task.index
    seed = int(treepolicies.game_seed(cfg.seed, i))
    a_first = i % 2 == 0
    game = make_game(cfg.game, **cfg.game_options)
    pa = treepolicies.make_player(cfg.a, playouts=cfg.playouts, seconds=cfg.seconds)
    pb = treepolicies.make_player(cfg.b, playouts=cfg.playouts, seconds=cfg.seconds)
    first, second = (pa, pb) if a_first else (pb, pa)
    spec_first, spec_second = (cfg.a, cfg.b) if a_first else (cfg.b, cfg.a)
    start = time.perf_counter()
    comments: dict = {}
    on_move = _search_logger(i, comments) if task.log else None
    try:
        record = treepolicies.play_game(game, first, second, seed, on_move=on_move)
    finally:
        for p in (pa, pb):
            p.close()
    seconds = time.perf_counter() - start
    winner = None if record.winner is None else int(record.winner)
    score_a = score_of_a(winner, a_first)
    sgf = _sgf(game, record, spec_first, spec_second, comments)
    return task.run_id, GameRow(i, seed, spec_first, spec_second, a_first, winner, score_a,
                                int(record.n_moves), sgf, seconds, bool(getattr(record, "capped", False)))


def _search_logger(index: int, comments: dict):
    """on_move for play_game: one search-record line per MCTS move on stderr
    (``game 3 ply 12 [ucb1:c=0.5] move D4 (visits ...``, treepolicies.viz.summary) and the move's
    SGF comment into ``comments``."""
    import sys

    from treepolicies.viz.summary import format_record, search_record, sgf_comment

    def on_move(ply, player, move, position):
        last = getattr(player, "last", None)
        if last is None or getattr(last, "move", object()) != move or not hasattr(last, "tree"):
            return
        rec = search_record(position, last)
        comments[ply] = sgf_comment(rec)
        print(format_record(rec, prefix=f"game {index} ply {ply + 1} [{player.name}] "), file=sys.stderr, flush=True)

    return on_move


def _sgf(start, record, black: str, white: str, comments=None) -> str | None:
    """The game as SGF text where the game is Go-like (Go, NoGo: ``treepolicies.interop.sgf``), else None.

    ``start``: the initial position (play_game does not modify it); the moves are replayed on a copy.
    ``comments``: {ply: text} written as the moves' C[] (``--log``).
    """
    from treepolicies.games import Go, NoGo

    if not isinstance(start, (Go, NoGo)):
        return None
    from treepolicies.interop.sgf import write_sgf

    game = start.copy()
    for move in record.moves:
        game.play(move)
    return write_sgf(game, black=black, white=white, comments=comments or None)


# -- executing task lists ------------------------------------------------------------------------
def _ignore_sigint() -> None:  # pool initializer: Ctrl-C is the client's business
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def compile_players(tasks: list[Task]) -> None:
    """Compile (or load from numba's disk cache) in this process what the MCTS players of ``tasks``
    compile: one search of one playout from the start of each (game, player spec) pair.

    Run before the worker processes start, so that on a machine's first run the compilation is
    made once, here, and announced once (:func:`bandits.compiling.notice` speaks only in the main
    process), instead of in every worker at once, silently; the workers then load it from the
    cache.  Other players (random, alpha-beta) compile nothing of their own and are skipped.
    """
    import treepolicies
    from bandits.registry import load_plugin
    from bandits.rng import Stream
    from treepolicies.games import make_game

    done = set()
    for task in tasks:
        for path in task.plugins:
            load_plugin(path)
        cfg = MatchConfig.from_dict(task.config)
        for spec in (cfg.a, cfg.b):
            key = (cfg.game, tuple(sorted(cfg.game_options.items())), spec)
            if key in done:
                continue
            done.add(key)
            player = treepolicies.make_player(spec, playouts=1)
            try:
                if isinstance(player, treepolicies.MCTSPlayer):
                    player.choose(make_game(cfg.game, **cfg.game_options), Stream(0, 0))
            finally:
                player.close()


def run_local(tasks: list[Task], workers: int = 1) -> Iterator[tuple[int, GameRow]]:
    """Yield results of ``tasks`` as they finish, in this process (workers=1) or a process pool.

    Closing the iterator (an exception, Ctrl-C) terminates the pool at once; unfinished games
    are lost, finished ones were yielded.  Before the pool starts, this process compiles what the
    players need (:func:`compile_players`).  The pool starts fresh interpreters ("spawn"), so a
    script that calls this with workers > 1 needs the usual ``if __name__ == "__main__":`` guard.
    """
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    if workers == 1 or len(tasks) <= 1:
        for t in tasks:
            yield play_task(t)
        return
    compile_players(tasks)
    ctx = mp.get_context("spawn")  # fresh interpreters: same on Linux and macOS, no forked threads
    pool = ctx.Pool(min(workers, len(tasks)), initializer=_ignore_sigint)
    try:
        yield from pool.imap_unordered(play_task, tasks, chunksize=1)
        pool.close()
    finally:
        pool.terminate()
        pool.join()


def check_execution(workers: int = 1, scheduler: str | None = None) -> None:
    """ValueError for a bad worker count or scheduler address (form only; with a scheduler, also
    when Dask is not installed), so that callers refuse them before they create anything."""
    if scheduler is not None:
        from testbeds.distributed import check_scheduler, require_distributed

        check_scheduler(scheduler)
        require_distributed()
    elif isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"--workers must be an integer >= 1, got {workers!r}")


def plan_tasks(store: ResultStore, runs: Iterable[tuple[int, dict]], n_games: int, log: bool = False) -> list[Task]:
    """Missing games of each ``(run_id, config)``: indices 0..n_games-1 not stored yet.

    Ordered by game index, then run, so every run advances at the same pace.
    """
    if n_games < 0:
        raise ValueError(f"games must be >= 0, got {n_games}")
    runs = list(runs)
    done = {rid: store.finished_indices(rid) for rid, _ in runs}
    from bandits.registry import plugin_paths

    plugins = tuple(plugin_paths())
    return [Task(rid, cfg, i, plugins, log) for i in range(n_games) for rid, cfg in runs if i not in done[rid]]


def run_tasks(store: ResultStore, tasks: list[Task], *, workers: int = 1, scheduler: str | None = None,
              on_result: Callable[[int, GameRow], None] | None = None) -> int:
    """Play ``tasks``, committing each result to ``store`` as it arrives; returns games played.

    ``scheduler``: address of a Dask scheduler (``tcp://host:port``); else a local pool of
    ``workers`` processes.  ``on_result(run_id, row)`` is called after each commit (progress).
    """
    if scheduler is not None:
        from testbeds.distributed import run_dask

        results = run_dask(tasks, scheduler)
    else:
        results = run_local(tasks, workers)
    played = 0
    try:
        for run_id, row in results:
            store.add_game(run_id, row)
            played += 1
            if on_result is not None:
                on_result(run_id, row)
    finally:
        close = getattr(results, "close", None)
        if close is not None:
            close()
    return played


# -- a whole match -------------------------------------------------------------------------------
@dataclass(frozen=True)
class MatchOutcome:
    """The result of :func:`run_match`: A's rating over games 0..n-1 and the stored rows."""

    config: MatchConfig
    rating: Rating
    games: list
    played: int

    def summary(self) -> str:
        cfg = self.config
        return format_rating(self.rating, name=f"A ({cfg.a}) against B ({cfg.b})")


def match_header(config: MatchConfig) -> dict:
    """The study header of a match database: the whole configuration."""
    return {"study": "match", **config.as_dict()}


def run_match(config: MatchConfig, n_games: int, *, db=None, workers: int = 1, scheduler: str | None = None,
              progress: bool = True, log: bool = False) -> MatchOutcome:
    """Play (or resume) games 0..n_games-1 of ``config``; returns A's rating over them.

    ``db``: results database path (resumes what is there; a file made with another configuration
    raises ValueError); ``None`` keeps the results in memory only.  ``log``: every MCTS move's
    search record on stderr and as a comment of the move in the stored SGF (Go-like games).
    """
    if isinstance(n_games, bool) or int(n_games) != n_games or n_games < 1:
        raise ValueError(f"games must be an integer >= 1, got {n_games!r}")
    check_execution(workers, scheduler)  # before the database is created or the progress bar starts
    path = ":memory:" if db is None else db
    with ResultStore(path, match_header(config), lock=db is not None) as store:
        run_id = store.run_id(config.as_dict())
        tasks = plan_tasks(store, [(run_id, config.as_dict())], n_games, log=log)
        wdl = list(store.counts(run_id, n_games))
        bar = progress_bar(n_games, n_games - len(tasks), progress, f"{config.game} A-B")
        if bar is not None:
            bar.set_postfix_str(_postfix(wdl))

        def on_result(_rid, row):
            wdl[0 if row.score_a == 1.0 else 1 if row.score_a == 0.5 else 2] += 1
            if bar is not None:
                bar.update(1)
                bar.set_postfix_str(_postfix(wdl))

        try:
            played = run_tasks(store, tasks, workers=workers, scheduler=scheduler, on_result=on_result)
        finally:
            if bar is not None:
                bar.close()
        rows = store.games(run_id, n_games)
        return MatchOutcome(config, rate(*store.counts(run_id, n_games)), rows, played)


def _postfix(wdl) -> str:
    r = rate(*wdl)
    if r.games == 0:
        return "A: -"
    return f"A {r.rate:.3f} [{r.low:.3f}, {r.high:.3f}]"


def progress_bar(total: int, done: int, enabled: bool, desc: str):
    """A tqdm bar on stderr: games done, rate, time left (tqdm estimates from this session's pace)."""
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(total=total, initial=done, desc=desc, unit="game", dynamic_ncols=True, smoothing=0.05)
