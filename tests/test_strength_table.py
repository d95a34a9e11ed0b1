"""The strength table's keeping of the equal-time cells (benchmarks/strength_table.py ``keep`` and the
resume in ``run``): a cell that outlasts a session is copied whole, its write-ahead log included,
and the next ``run`` starts from the copy instead of from game 1."""
import importlib.util
import os
import sqlite3
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CELL = "go-1s-2t-strong-gnugo10"


def _benchmark():
    spec = importlib.util.spec_from_file_location("strength_table_benchmark", ROOT / "benchmarks" / "strength_table.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _games(path):
    db = sqlite3.connect(path)
    try:
        return db.execute("select game_index, winner from games order by game_index").fetchall()
    finally:
        db.close()


def test_keep_copies_a_live_database_and_run_resumes_from_the_copy(tmp_path, monkeypatch):
    st = _benchmark()
    work, kept = tmp_path / "work", tmp_path / "kept"
    work.mkdir()
    # a database as a match leaves it while it still runs: WAL mode, the last games only in the log
    live = sqlite3.connect(work / f"{CELL}.sqlite")
    live.execute("pragma journal_mode=wal")
    live.execute("pragma wal_autocheckpoint=0")
    live.execute("create table games (game_index integer, winner integer)")
    live.executemany("insert into games values (?, ?)", [(i, i % 2) for i in range(7)])
    live.commit()
    assert os.path.getsize(work / f"{CELL}.sqlite-wal") > 0  # (the rows are in the log, not the file)

    assert st.main(["keep", "--work", str(work), "--to", str(kept)]) == 0
    live.close()
    assert _games(kept / f"{CELL}.sqlite") == [(i, i % 2) for i in range(7)]
    assert sorted(os.listdir(kept)) == [f"{CELL}.sqlite"]  # (one file: no -wal, no .part, no other cell)

    # a later session's empty work folder: run copies the kept games in before it plays the cell
    monkeypatch.setattr(st, "KEPT", str(kept))
    played = []
    monkeypatch.setattr(st, "_play", lambda cmd, out: played.append((cmd, _games(cmd[cmd.index("--db") + 1]))) or 0)
    fresh = tmp_path / "later"
    assert st.main(["run", "--work", str(fresh), "--only", CELL]) == 0
    (cmd, games), = played
    assert cmd[cmd.index("--db") + 1] == str(fresh / f"{CELL}.sqlite")
    assert games == [(i, i % 2) for i in range(7)]
    assert cmd[cmd.index("--b") + 1] == "gnugo:level=10" and cmd[cmd.index("--seconds") + 1] == "1"
