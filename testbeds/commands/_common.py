"""Helpers shared by the sub-commands: numeric arguments with ranges, output folders, worker counts."""
from __future__ import annotations

import argparse
import math
import os
import tempfile
from pathlib import Path

from testbeds.results import RESULT_FILES


#: The ranges of the numeric arguments (documented in each command's --help).  Chosen so that a run
#: fits in memory and in the compiled code's 64-bit integers: SEED is what the counter-based random
#: numbers take, TASKS x ARMS arm means are held in memory (MAX_MEANS), a horizon is held as
#: per-play curves, PLAYOUTS and SECONDS bound one move's search.
SEED = (0, 2**63 - 1)
TASKS = (1, 10_000_000)
ARMS = (1, 100_000)
HORIZON = (1, 10_000_000)
WORKERS = (1, 1024)
GAMES = (1, 100_000)
PLAYOUTS = (1, 1_000_000_000)
SECONDS = (0.0, 86_400.0)  # > 0 and at most a day per move
SD = (0.0, 1e6)  # > 0: standard deviations of the Gaussian testbed
SIZE = (5, 19)
THREADS = (1, 256)  # threads of one MCTS search (treepolicies.mcts.parallel.MAX_THREADS)
PARALLEL = ("tree", "root", "leaf")
KOMI = (-361.0, 361.0)  # the game then checks its board's range (Go: -size*size..size*size)
C = (0.0, 100.0)  # UCT's constant in a tables grid
MAX_MEANS = 100_000_000  # --tasks x --arms


def _shown(text: str) -> str:
    text = str(text).strip()
    return text if len(text) <= 40 else text[:37] + "..."


def _plain(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


class Int:
    """argparse type: an integer in lo..hi, else one line ``must be an integer in lo..hi, got X``
    (the parser turns it into ``--flag must be ...``)."""

    def __init__(self, lo: int, hi: int):
        self.lo, self.hi = lo, hi
        self.__name__ = "int"

    @property
    def range(self) -> str:
        return f"{self.lo}..{self.hi}"

    def __call__(self, text: str) -> int:
        try:
            value = int(text)
        except ValueError:  # not an integer, or more digits than Python converts
            value = None
        if value is None or not self.lo <= value <= self.hi:
            raise argparse.ArgumentTypeError(f"must be an integer in {self.range}, got {_shown(text)}")
        return value


class Number:
    """argparse type: a finite number in lo..hi (lo excluded with ``open_low``), else one line."""

    def __init__(self, lo: float, hi: float, open_low: bool = False):
        self.lo, self.hi, self.open_low = lo, hi, open_low
        self.__name__ = "float"

    @property
    def range(self) -> str:
        lo, hi = _plain(self.lo), _plain(self.hi)
        return f"> {lo} and <= {hi}" if self.open_low else f"in {lo}..{hi}"

    def ok(self, value: float) -> bool:
        return math.isfinite(value) and (self.lo < value if self.open_low else self.lo <= value) \
            and value <= self.hi

    def __call__(self, text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not self.ok(value):
            raise argparse.ArgumentTypeError(f"must be a number {self.range}, got {_shown(text)}")
        return value


class NumberList:
    """argparse type: comma-separated values of ``item`` (an Int or a Number), at least one."""

    def __init__(self, item):
        self.item = item
        self.__name__ = "list"

    def __call__(self, text: str) -> tuple:
        what = "integers" if isinstance(self.item, Int) else "numbers"
        describe = self.item.range if isinstance(self.item, Int) else self.item.range.removeprefix("in ")
        vals = []
        for part in str(text).split(","):
            if not part.strip():
                continue
            try:
                vals.append(self.item(part))
            except argparse.ArgumentTypeError:
                vals = None
                break
        if not vals:
            raise argparse.ArgumentTypeError(f"must be comma-separated {what} ({describe}), got {_shown(text)!r}")
        return tuple(vals)


def ranged(kind, default, text: str) -> str:
    """Help text with the valid range and the default: ``text (1..10000000; default 2000)``."""
    shown = kind.range.removeprefix("in ")
    return f"{text} ({shown}; default {default})"


def cpus() -> int:
    """Cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


def output_folder(out: "str | None", default: str) -> Path:
    """The folder to write into: ``out`` as given, or a fresh one named after ``default``.

    Without ``--out`` an existing ``default`` is never reused: results/figures, results/figures-1, ...
    (an explicit ``--out`` that holds results is refused later unless ``--overwrite``).
    """
    if out is not None:
        return Path(out)
    base = Path(default)
    candidate, n = base, 0
    while candidate.exists() and any((candidate / name).exists() for name in RESULT_FILES):
        n += 1
        candidate = base.with_name(f"{base.name}-{n}")
    return candidate


def check_means(tasks: int, arms: int) -> None:
    """ValueError when the testbed's arm means (--tasks x --arms of them) would not fit in memory."""
    if tasks * arms > MAX_MEANS:
        raise ValueError(f"--tasks x --arms must be at most {MAX_MEANS} (the arm means are held in memory), "
                         f"got {tasks} x {arms} = {tasks * arms}")


def check_counts(args, names: "tuple[str, ...]") -> None:
    """ValueError naming the flag when one of the integer options ``names`` is below 1."""
    for name in names:
        value = getattr(args, name)
        if value < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be an integer >= 1, got {value}")


def check_writable(folder: "str | os.PathLike", flag: str = "--out", create: bool = True) -> Path:
    """Create ``folder`` (and its parents) if needed and check that a file can be written in it,
    *before* any computing, so that a finished run is never lost to an unwritable output folder.

    create=False creates nothing (for a command whose other checks come later): the folder's
    parent, or its nearest existing ancestor, must be a folder this process may write into.
    Either way the parent must be writable too: the new folder is built beside the old one and
    swapped in (:mod:`testbeds.folders`).
    ValueError naming ``flag`` and the reason (a path under a file, a read-only filesystem, ...).
    A symbolic link is followed (also a dangling one: the folder it names is the one written).
    """
    from testbeds.locks import resolved

    path = resolved(folder)
    if not create:
        if path.exists() and not path.is_dir():
            raise ValueError(f"{flag} {os.fspath(folder)!r} cannot be written: it is not a folder")
        probe = path.absolute().parent  # the folder is built beside itself and swapped in
        while not probe.exists() and probe != probe.parent:
            probe = probe.parent
        if not probe.is_dir():
            raise ValueError(f"{flag} {os.fspath(folder)!r} cannot be written: {os.fspath(probe)!r} is not a folder")
        if not os.access(probe, os.W_OK | os.X_OK):
            raise ValueError(f"{flag} {os.fspath(folder)!r} cannot be written: {os.fspath(probe)!r} is not writable")
        return path
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".write-check-"):
            pass
    except OSError as exc:
        raise ValueError(f"{flag} {os.fspath(folder)!r} cannot be written: {exc.strerror or exc}") from None
    parent = path.absolute().parent
    try:  # the new folder is built beside it and swapped in (testbeds.folders)
        with tempfile.NamedTemporaryFile(dir=parent, prefix=".write-check-"):
            pass
    except OSError as exc:
        raise ValueError(f"{flag} {os.fspath(folder)!r} cannot be replaced: its parent folder {os.fspath(parent)!r} "
                         f"cannot be written ({exc.strerror or exc}); the results are built beside it") from None
    return path


def add_parallel_flags(p) -> None:
    """``--threads N`` and ``--parallel MODE``: parallel search for the MCTS players (docs/parallel.md)."""
    p.add_argument("--threads", type=Int(*THREADS), default=None,
                   help=ranged(Int(*THREADS), "1, or the spec's threads=", "threads of each MCTS player's search, "
                               "added to the player specs as threads=N (a spec's own threads= wins)"))
    p.add_argument("--parallel", choices=PARALLEL, default=None,
                   help="how the threads share the work: tree (one tree, virtual loss; the default), root "
                        "(independent trees, summed) or leaf (parallel playouts); added as parallel=MODE")


def parallel_spec(spec: str, args) -> str:
    """``spec`` with the ``--threads`` / ``--parallel`` keys of ``args`` added (MCTS players only)."""
    from treepolicies.players import with_search_keys

    return with_search_keys(spec, threads=getattr(args, "threads", None), parallel=getattr(args, "parallel", None))


def saved_games(db) -> str:
    """``N finished games are saved`` for the games table of ``db`` (read as it is)."""
    import os
    import sqlite3

    if not os.path.exists(db):
        return "no game is saved (the database was not created yet)"
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        n = con.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    except sqlite3.Error:
        n = 0
    finally:
        con.close()
    return f"{n} finished game{'s are' if n != 1 else ' is'} saved"


def game_slug(game: str) -> str:
    """``game`` as a file-name part: runs of characters other than letters, digits, ``_ . -`` become one
    ``_`` (``openspiel:breakthrough(rows=6,columns=6)`` -> ``openspiel_breakthrough_rows_6_columns_6``)."""
    import re

    return re.sub(r"[^A-Za-z0-9_.-]+", "_", game).strip("_") or "game"


def two_players(game: str, options: dict, command: str) -> None:
    """ValueError naming --game unless ``game`` (with ``options``) has two players: ``command`` plays
    two-player matches."""
    from treepolicies.games import make_game

    n = int(getattr(make_game(game, **options), "num_players", 2))
    if n != 2:
        raise ValueError(f"--game {game} has {n} players: banditree {command} plays two-player matches "
                         "(banditree match --players plays a match of any number of seats)")
