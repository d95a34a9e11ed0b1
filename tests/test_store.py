"""The SQLite results database: header check, insert-only games, lock, reading back."""
import dataclasses
import sqlite3

import pytest

from testbeds.store import GameRow, ResultStore, canonical_json

HEADER = {"study": "match", "game": "nogo", "game_options": {"size": 5}, "a": "miucb:episodic=true",
          "b": "ucb1:c=0.5", "playouts": 20, "seconds": None, "seed": 0}


def row(i, score=1.0, sgf=None):
    winner = None if score == 0.5 else (0 if (score == 1.0) == (i % 2 == 0) else 1)
    first, second = ("A", "B") if i % 2 == 0 else ("B", "A")
    return GameRow(i, 1000 + i, first, second, i % 2 == 0, winner, score, 17 + i, sgf, 0.25)


def test_roundtrip_and_counts(tmp_path):
    db = tmp_path / "sub" / "r.sqlite"
    with ResultStore(db, HEADER, lock=True) as s:
        rid = s.run_id(HEADER)
        assert s.run_id(HEADER) == rid  # same config, same run
        s.add_game(rid, row(0, 1.0, sgf="(;GM[1]SZ[5];B[cc])"))
        s.add_game(rid, row(2, 0.0))
        s.add_game(rid, dataclasses.replace(row(1, 0.5), capped=True))
    with ResultStore(db) as s:  # read-only open: header as stored
        assert s.header == HEADER
        assert s.finished_indices(rid) == {0, 1, 2}
        games = s.games(rid)
        assert [g.game_index for g in games] == [0, 1, 2]
        assert games[0] == row(0, 1.0, sgf="(;GM[1]SZ[5];B[cc])")
        assert games[1].winner is None and games[1].score_a == 0.5 and games[1].capped
        assert not games[0].capped
        assert s.counts(rid) == (1, 1, 1)
        assert s.counts(rid, limit=2) == (1, 1, 0)  # only games 0 and 1
        assert s.runs()[0].config == HEADER


def test_games_are_never_overwritten(tmp_path):
    db = tmp_path / "r.sqlite"
    with ResultStore(db, HEADER) as s:
        rid = s.run_id(HEADER)
        s.add_game(rid, row(0, 1.0))
        with pytest.raises(ValueError, match="game 0"):
            s.add_game(rid, row(0, 0.0))
        assert s.games(rid)[0].score_a == 1.0


def test_different_configuration_is_refused(tmp_path):
    db = tmp_path / "r.sqlite"
    with ResultStore(db, HEADER) as s:
        s.add_game(s.run_id(HEADER), row(0))
    other = dict(HEADER, b="ucb1:c=0.7")
    with pytest.raises(ValueError, match=r"different configuration.*b: 'ucb1:c=0.5' in the file, 'ucb1:c=0.7' asked"):
        ResultStore(db, other)
    # the refusal changed nothing
    with ResultStore(db) as s:
        assert s.header == HEADER and len(s.games(1)) == 1


def test_key_order_does_not_matter(tmp_path):
    db = tmp_path / "r.sqlite"
    ResultStore(db, HEADER).close()
    reordered = dict(reversed(list(HEADER.items())))
    assert canonical_json(reordered) == canonical_json(HEADER)
    ResultStore(db, reordered).close()


def test_second_writer_is_kept_out(tmp_path):
    db = tmp_path / "r.sqlite"
    with ResultStore(db, HEADER, lock=True):
        with pytest.raises(ValueError, match="in use by another"):
            ResultStore(db, HEADER, lock=True)
        with ResultStore(db) as reader:  # readers are welcome
            assert reader.header == HEADER
    ResultStore(db, HEADER, lock=True).close()  # released on close


def test_foreign_files_are_refused(tmp_path):
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database at all" * 100)
    with pytest.raises(ValueError, match="not a banditree results database"):
        ResultStore(junk, HEADER)
    other = tmp_path / "other.sqlite"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE t (x)")
    con.commit()
    con.close()
    with pytest.raises(ValueError, match="not a banditree results database"):
        ResultStore(other, HEADER)
    with pytest.raises(FileNotFoundError):
        ResultStore(tmp_path / "missing.sqlite")


def test_wal_mode(tmp_path):
    db = tmp_path / "r.sqlite"
    ResultStore(db, HEADER).close()
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    con.close()


# -- damaged databases (issue 15, item 8) ------------------------------------------------------------
# A database missing its last 100 bytes used to be opened silently, and a resume then stored games 0
# and 1 a second time (4 rows for 2 games: the truncation had cut the cells of the key's index page);
# corrupted pages were accepted; a meta without its header gave a KeyError traceback and a dropped
# games table an OperationalError traceback.  Each is now a DatabaseError (a ValueError), one line
# naming --db and what is wrong.
from testbeds.store import DatabaseError  # noqa: E402


def small_db(path, n=2):
    with ResultStore(path, HEADER, lock=True) as store:
        rid = store.run_id({"cfg": 1})
        for i in range(n):
            store.add_game(rid, row(i))
    return path


def rootpage(path, name):
    con = sqlite3.connect(path)
    page = con.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (name,)).fetchone()[0]
    con.close()
    return page


def truncate(path, n):
    with open(path, "r+b") as f:
        f.truncate(path.stat().st_size - n)


def overwrite(path, offset, data):
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(data)


def sql(path, *statements):
    con = sqlite3.connect(path)
    for s in statements:
        con.execute(s)
    con.commit()
    con.close()


def test_a_truncated_database_is_refused_and_never_gets_a_game_twice(tmp_path):
    db = small_db(tmp_path / "r.sqlite")
    assert rootpage(db, "sqlite_autoindex_games_1") == db.stat().st_size // 4096  # the key's index is the last page
    truncate(db, 100)
    with pytest.raises(DatabaseError) as err:
        ResultStore(db, HEADER, lock=True)
    assert str(err.value).startswith(f"results database {db} (--db) is damaged (quick_check: ")
    assert "\n" not in str(err.value)
    con = sqlite3.connect(db)
    assert con.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 2  # nothing was added
    con.close()


@pytest.mark.parametrize("damage, message", [
    (lambda db: truncate(db, 4096 + 100), r"is damaged \(database disk image is malformed\)"),
    (lambda db: overwrite(db, (rootpage(db, "sqlite_autoindex_games_1") - 1) * 4096, b"\xff" * 64),
     r"is damaged \(quick_check: Page \d+: btreeInitPage\(\) returns error code 11\)"),
    (lambda db: overwrite(db, (rootpage(db, "games") - 1) * 4096, b"\xff" * 64),
     r"is damaged \(database disk image is malformed\)"),
    (lambda db: sql(db, "DELETE FROM meta WHERE key = 'header'"),
     r"is damaged: its meta table has no header \(the study's configuration\); give another --db$"),
    (lambda db: sql(db, "UPDATE meta SET value = '[1' WHERE key = 'header'"),
     r"is damaged: its header is not a JSON object; give another --db$"),
    (lambda db: sql(db, "DROP TABLE games"), r"is damaged: its games table is missing; give another --db$"),
    (lambda db: sql(db, "DROP TABLE games", "DROP TABLE runs"),
     r"is damaged: its runs and games tables are missing; give another --db$"),
    (lambda db: db.write_bytes(b"SQLite format 3\x00" + b"\x00" * 84 + b"junk" * 50),
     r"is (damaged|not a banditree results database) \("),
    (lambda db: db.write_bytes(b"not a database at all" * 100),
     r"is not a banditree results database \(file is not a database\)$"),
])
def test_every_malformed_database_is_one_line_naming_db(tmp_path, damage, message):
    db = small_db(tmp_path / "r.sqlite", n=40)  # several pages
    damage(db)
    for header, lock in ((HEADER, True), (None, False)):  # resuming and reading alike
        with pytest.raises(DatabaseError, match=rf"^results database {db} \(--db\) {message}") as err:
            ResultStore(db, header, lock=lock)
        assert "\n" not in str(err.value)


def test_a_lost_unique_key_is_given_back_or_the_file_refused(tmp_path):
    db = small_db(tmp_path / "r.sqlite")
    rebuild = ("CREATE TABLE g2 AS SELECT * FROM games", "DROP TABLE games", "ALTER TABLE g2 RENAME TO games")
    sql(db, *rebuild)  # a hand-edited file: the same rows, no key
    with ResultStore(db, HEADER, lock=True) as store:  # no duplicate: the key is given back
        rid = store.run_id({"cfg": 1})
        with pytest.raises(ValueError, match="UNIQUE constraint failed"):
            store.add_game(rid, row(0))
        assert len(store.games(rid)) == 2
    sql(db, *rebuild, "INSERT INTO games SELECT * FROM games WHERE game_index = 1")
    with pytest.raises(DatabaseError, match=rf"^results database {db} \(--db\) stores game 1 of run 1 2 times "
                                            r"\(its games table has lost its unique key\); give another --db$"):
        ResultStore(db, HEADER, lock=True)


def test_the_match_command_names_a_damaged_db(tmp_path, capsys):
    from testbeds.cli import main

    db = tmp_path / "m.sqlite"
    argv = ["match", "--game", "nim", "--a", "random", "--b", "random", "--playouts", "5", "--games", "2",
            "--db", str(db), "--no-progress"]
    assert main(argv) == 0
    sql(db, "DELETE FROM meta WHERE key = 'header'")
    capsys.readouterr()
    assert main(argv) == 2
    assert capsys.readouterr().err == (f"banditree match: error: results database {db} (--db) is damaged: its meta "
                                       f"table has no header (the study's configuration); give another --db\n")
