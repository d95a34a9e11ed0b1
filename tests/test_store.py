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
