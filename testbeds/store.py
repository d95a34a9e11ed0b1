"""The SQLite results database of matches and tournaments.

One file holds one *study*: a header (a JSON object fixed when the file is created: for
``banditree match`` the whole match configuration, for ``banditree tables`` the game, board and
seed) and any number of *runs* (a match configuration each; a tables grid has one run per cell).
Every finished game is one row, committed at once::

    meta(key, value)            schema version, header JSON, package version at creation
    runs(run_id, config, tags)  config: canonical JSON of the match configuration (unique);
                                tags: JSON labels for display (e.g. the grid cell: mi, c, playouts)
    games(run_id, game_index,   game_index i of the run; seed = treepolicies.game_seed(run seed, i);
          seed, first, second,  first/second: player specs (who moved first and second);
          a_first, winner,      winner: 0 first player, 1 second, NULL draw;
          score_a, n_moves,     score_a: A's score 1 / 0.5 / 0;
          capped, sgf,          capped: 1 if the game's move cap ended it (Go: 3 x points);
          seconds, finished_at) sgf: the game record where the game is Go-like, else NULL;
                                seconds: wall time of the game; finished_at: UTC time stamp

Opening a file whose header differs from the one asked for raises ``ValueError`` naming the
differing keys: results of different configurations are never mixed.  Opening checks the file
first (``PRAGMA quick_check``, the three tables, the header, the games table's unique key): a file
that is damaged (truncated, corrupted pages), not SQLite, or not ours raises
:class:`DatabaseError` (a ``ValueError``), one line naming ``--db`` and what is wrong, so a resume
never writes into a damaged file.  The games table's key ``(run_id, game_index)`` is unique, so a
game can never be stored twice; a file whose key was lost (hand-edited) gets it back when it holds
no duplicate, and is refused when it does.  Rows are only inserted,
never updated or deleted, so nothing already saved is lost.  The database runs in WAL mode with
``synchronous=FULL``, so a committed game survives a killed process (and a power cut).  The client
process is the one writer; a lock file ``<db>.lock`` (:mod:`testbeds.locks`: named after the file a
symbolic link names, removed when the store is closed) keeps a second writer out while a run is in
progress.  A path that names something other than a regular file (``/dev/null``, a folder) is
refused before anything is created.  Readers (a notebook) may open the file at any time.
"""
from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

__all__ = ["ResultStore", "GameRow", "RunInfo", "DatabaseError", "canonical_json", "SCHEMA_VERSION"]

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    run_id INTEGER PRIMARY KEY,
    config TEXT NOT NULL UNIQUE,
    tags TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    run_id INTEGER NOT NULL REFERENCES runs(run_id),
    game_index INTEGER NOT NULL CHECK (game_index >= 0),
    seed INTEGER NOT NULL,
    first TEXT NOT NULL,
    second TEXT NOT NULL,
    a_first INTEGER NOT NULL CHECK (a_first IN (0, 1)),
    winner INTEGER CHECK (winner IN (0, 1)),
    score_a REAL NOT NULL CHECK (score_a IN (0, 0.5, 1)),
    n_moves INTEGER NOT NULL,
    capped INTEGER NOT NULL DEFAULT 0 CHECK (capped IN (0, 1)),
    sgf TEXT,
    seconds REAL NOT NULL,
    finished_at TEXT NOT NULL,
    PRIMARY KEY (run_id, game_index)
);
"""


class DatabaseError(ValueError):
    """A results database that cannot be used as it is (damaged, not SQLite, not a banditree
    database, missing a table or its header); the message is one line naming --db."""


def canonical_json(obj) -> str:
    """JSON with sorted keys and no spaces: equal configurations give equal strings."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class GameRow:
    """One finished game as stored (see the module docstring for the columns)."""

    game_index: int
    seed: int
    first: str
    second: str
    a_first: bool
    winner: int | None
    score_a: float
    n_moves: int
    sgf: str | None = None
    seconds: float = 0.0
    capped: bool = False

    def outcome(self) -> tuple:
        """The deterministic part of the row (everything but timing), for comparisons."""
        return (self.game_index, self.seed, self.first, self.second, self.a_first, self.winner,
                self.score_a, self.n_moves, self.capped, self.sgf)


@dataclass(frozen=True)
class RunInfo:
    run_id: int
    config: dict
    tags: dict


def _diff(old: dict, new: dict) -> list[str]:
    keys = sorted(set(old) | set(new))
    return [f"{k}: {old.get(k, '<absent>')!r} in the file, {new.get(k, '<absent>')!r} asked"
            for k in keys if old.get(k, "<absent>") != new.get(k, "<absent>")]


class ResultStore:
    """A results database (see the module docstring).

    Parameters
    ----------
    path : str or Path
        The SQLite file; created (with its folder) when missing, if ``header`` is given.
    header : dict or None
        The study's configuration.  A new file records it; an existing file must hold an equal
        one, else ``ValueError``.  ``None`` opens an existing file as it is (for reading).
    lock : bool
        Take the writer lock ``<path>.lock`` (``ValueError`` if another process holds it).
    """

    def __init__(self, path, header: dict | None = None, *, lock: bool = False):
        self.path = Path(path)
        self._lock = None
        self._con = None
        if header is None and not self.path.exists():
            raise FileNotFoundError(f"no results database at {self.path}")
        if self.path.exists() and not self.path.is_file():
            kind = "a folder" if self.path.is_dir() else "not a regular file"
            raise ValueError(f"results database {self.path} (--db) is {kind}; a results database is an SQLite "
                             f"file: give a file path")
        try:
            if header is not None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            if lock:
                self._take_lock()
        except OSError as exc:
            raise self._cannot_open(header, exc) from None
        try:
            try:
                self._con = sqlite3.connect(str(self.path), timeout=30.0, isolation_level=None)
                self._con.execute("PRAGMA journal_mode=WAL")
            except sqlite3.OperationalError as exc:
                if "unable to open" in str(exc) or "readonly" in str(exc) or "disk I/O" in str(exc):
                    raise self._cannot_open(header, exc) from None
                raise self._damaged(exc) from None
            except sqlite3.DatabaseError as exc:
                raise self._damaged(exc) from None
            try:
                self._con.execute("PRAGMA synchronous=FULL")
                self._con.execute("PRAGMA foreign_keys=ON")
                self._check_file()
                self.header = self._check_header(header)
                self._check_key(writing=header is not None)
            except sqlite3.DatabaseError as exc:
                raise self._damaged(exc) from None
        except BaseException:
            self.close()
            raise

    # -- opening -------------------------------------------------------------------------------
    def _cannot_open(self, header, exc) -> ValueError:
        """The one-line error for a database path that cannot be used (naming --db)."""
        reason = getattr(exc, "strerror", None) or str(exc)
        filename = getattr(exc, "filename", None)
        if filename and str(filename) != str(self.path):
            reason += f": {filename}"
        verb = "create" if header is not None and not self.path.exists() else "open"
        return ValueError(f"cannot {verb} results database at {self.path} (--db): {reason}")

    def _error(self, what: str) -> DatabaseError:
        return DatabaseError(f"results database {self.path} (--db) {what}")

    def _damaged(self, exc) -> DatabaseError:
        text = str(exc)
        if "not a database" in text:
            return self._error(f"is not a banditree results database ({text})")
        return self._error(f"is damaged ({text}); restore a copy or give another --db "
                           f"(sqlite3's .recover may save its games)")

    def _check_file(self) -> None:
        """PRAGMA quick_check: a truncated file or a corrupted page is refused before anything is
        read or written (a damaged index once let a resume store games twice)."""
        rows = self._con.execute("PRAGMA quick_check").fetchall()
        if [r[0] for r in rows] != ["ok"]:
            lines = [ln for r in rows for ln in str(r[0]).splitlines() if ln.strip() and not ln.startswith("***")]
            more = f" and {len(lines) - 1} more problems" if len(lines) > 1 else ""
            raise self._error(f"is damaged (quick_check: {lines[0] if lines else rows[0][0]}{more}); restore a copy "
                              f"or give another --db (sqlite3's .recover may save its games)")

    def _check_key(self, writing: bool) -> None:
        """The games table's key (run_id, game_index) must be unique: given back to a file that lost
        it (when writing and no game is stored twice), refused when a game is stored twice."""
        con = self._con
        for index in con.execute("PRAGMA index_list(games)").fetchall():
            if index[2]:  # unique
                cols = [c[2] for c in con.execute(f"PRAGMA index_info({_quote(index[1])})").fetchall()]
                if sorted(cols) == ["game_index", "run_id"]:
                    return
        dup = con.execute("SELECT run_id, game_index, COUNT(*) FROM games GROUP BY run_id, game_index "
                          "HAVING COUNT(*) > 1 LIMIT 1").fetchone()
        if dup is not None:
            raise self._error(f"stores game {dup[1]} of run {dup[0]} {dup[2]} times (its games table has lost its "
                              f"unique key); give another --db")
        if writing:
            con.execute("CREATE UNIQUE INDEX IF NOT EXISTS games_key ON games(run_id, game_index)")

    def _take_lock(self) -> None:
        from testbeds.locks import Lock, lock_file_for

        where = lock_file_for(self.path)
        lock = Lock(where, f"{self.path} is in use by another banditree process{{who}}; wait for it to finish or use "
                           f"another --db (lock file {where})")
        self._lock = lock.acquire()

    def _check_header(self, header: dict | None) -> dict:
        con = self._con
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if "meta" not in tables:
            if tables:
                raise self._error("is an SQLite file but not a banditree results database (it has no meta table)")
            if header is None:
                raise self._error("is empty, not a banditree results database")
            from testbeds import __version__

            con.execute("BEGIN IMMEDIATE")
            for stmt in _SCHEMA.strip().split(";"):
                if stmt.strip():
                    con.execute(stmt)
            con.executemany("INSERT INTO meta(key, value) VALUES (?, ?)", [
                ("schema_version", str(SCHEMA_VERSION)),
                ("header", canonical_json(header)),
                ("created_by", f"banditree {__version__}"),
                ("created_at", _now()),
            ])
            con.execute("COMMIT")
            return json.loads(canonical_json(header))
        missing = [name for name in ("runs", "games") if name not in tables]
        if missing:
            raise self._error(f"is damaged: its {' and '.join(missing)} table{'s are' if len(missing) > 1 else ' is'} "
                              f"missing; give another --db")
        meta = dict(con.execute("SELECT key, value FROM meta"))
        version = meta.get("schema_version")
        if version != str(SCHEMA_VERSION):
            raise self._error(f"has results schema version {version}, this banditree reads version {SCHEMA_VERSION}")
        if "header" not in meta:
            raise self._error("is damaged: its meta table has no header (the study's configuration); give another --db")
        try:
            stored = json.loads(meta["header"])
        except (TypeError, ValueError):
            stored = None
        if not isinstance(stored, dict):
            raise self._error("is damaged: its header is not a JSON object; give another --db")
        if header is not None:
            asked = json.loads(canonical_json(header))
            if stored != asked:
                raise ValueError(
                    f"{self.path} was created with a different configuration and is not mixed with "
                    f"this one ({'; '.join(_diff(stored, asked))}); use another --db")
        return stored

    # -- runs ----------------------------------------------------------------------------------
    def run_id(self, config: dict, tags: dict | None = None) -> int:
        """The id of the run with this configuration, created if new."""
        text = canonical_json(config)
        row = self._con.execute("SELECT run_id FROM runs WHERE config = ?", (text,)).fetchone()
        if row is not None:
            return int(row[0])
        cur = self._con.execute("INSERT INTO runs(config, tags, created_at) VALUES (?, ?, ?)",
                                (text, canonical_json(tags or {}), _now()))
        return int(cur.lastrowid)

    def runs(self) -> list[RunInfo]:
        return [RunInfo(int(r[0]), json.loads(r[1]), json.loads(r[2]))
                for r in self._con.execute("SELECT run_id, config, tags FROM runs ORDER BY run_id")]

    # -- games ---------------------------------------------------------------------------------
    def add_game(self, run_id: int, row: GameRow) -> None:
        """Insert one finished game and commit it.  A game already stored raises ``ValueError``."""
        try:
            self._con.execute(
                "INSERT INTO games(run_id, game_index, seed, first, second, a_first, winner, score_a,"
                " n_moves, capped, sgf, seconds, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (run_id, row.game_index, row.seed, row.first, row.second, int(row.a_first),
                 row.winner, row.score_a, row.n_moves, int(row.capped), row.sgf, row.seconds, _now()))
        except sqlite3.IntegrityError as exc:
            raise ValueError(f"game {row.game_index} of run {run_id} cannot be stored in {self.path}: "
                             f"{exc}") from None
        except sqlite3.DatabaseError as exc:  # damaged while the run went on
            raise self._damaged(exc) from None

    def games(self, run_id: int, limit: int | None = None) -> list[GameRow]:
        """Stored games of a run in index order; ``limit``: only indices below it."""
        sql = ("SELECT game_index, seed, first, second, a_first, winner, score_a, n_moves, sgf, seconds, capped"
               " FROM games WHERE run_id = ?")
        args: tuple = (run_id,)
        if limit is not None:
            sql += " AND game_index < ?"
            args += (int(limit),)
        rows = self._con.execute(sql + " ORDER BY game_index", args).fetchall()
        return [GameRow(int(r[0]), int(r[1]), r[2], r[3], bool(r[4]),
                        None if r[5] is None else int(r[5]), float(r[6]), int(r[7]), r[8], float(r[9]),
                        bool(r[10]))
                for r in rows]

    def finished_indices(self, run_id: int) -> set[int]:
        return {int(r[0]) for r in self._con.execute(
            "SELECT game_index FROM games WHERE run_id = ?", (run_id,))}

    def counts(self, run_id: int, limit: int | None = None) -> tuple[int, int, int]:
        """A's (wins, draws, losses) over the stored games (indices below ``limit`` if given)."""
        w = d = l = 0
        for g in self.games(run_id, limit):
            if g.score_a == 1.0:
                w += 1
            elif g.score_a == 0.5:
                d += 1
            else:
                l += 1
        return w, d, l

    # -- closing -------------------------------------------------------------------------------
    def close(self) -> None:
        con = self._con
        if con is not None:
            con.close()
            self._con = None
        if self._lock is not None:
            self._lock.release()  # (and removes the lock file)
            self._lock = None

    def __enter__(self) -> "ResultStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _quote(name: str) -> str:
    return '"' + str(name).replace('"', '""') + '"'


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")

