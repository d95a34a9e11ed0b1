"""``banditree match`` from the command line (in process)."""
import os

import pytest

from testbeds.cli import main


def test_match_command_prints_the_score(capsys):
    rc = main(["match", "--game", "tictactoe", "--a", "ucb1:c=1.4", "--b", "random", "--playouts", "200",
               "--games", "4", "--seed", "0", "--no-progress"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "A = ucb1:c=1.4, B = random" in out and "in 4 games" in out and "Wilson 95% interval" in out


def test_match_command_rejects_bad_input(capsys):
    assert main(["match", "--game", "chess", "--a", "random", "--b", "random", "--playouts", "5"]) == 2
    assert "unknown game 'chess'" in capsys.readouterr().err
    assert main(["match", "--game", "nim", "--a", "ucb9", "--b", "random", "--playouts", "5"]) == 2
    assert "unknown player 'ucb9'" in capsys.readouterr().err
    assert main(["match", "--game", "nim", "--a", "ucb1", "--b", "random", "--playouts", "0"]) == 2
    assert "--playouts must be an integer in 1..1000000000, got 0" in capsys.readouterr().err


@pytest.mark.parametrize("extra, message", [
    (["--a", "alphabeta:depth=-1"], "alphabeta depth must be an integer in 1..128, got -1"),
    (["--a", "alphabeta:seconds=-2"], "alphabeta seconds must be a finite number > 0, got -2.0"),
    (["--a", "ucb1:node_cap=1"], "node_cap must be an integer in 1000..1000000000, got 1"),
    (["--a", "random", "--scheduler", "foo"], "--scheduler must be an address like tcp://HOST:PORT"),
    (["--a", "random", "--workers", "0"], "--workers must be an integer in 1..1024, got 0"),
])
def test_match_refuses_bad_players_and_options_before_the_database_exists(tmp_path, capsys, extra, message):
    db = tmp_path / "sub" / "m.sqlite"
    argv = ["match", "--game", "tictactoe", "--b", "random", "--playouts", "5", "--games", "2",
            "--db", str(db), *extra]  # the progress bar is on: it must not start either
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("banditree match: error: ") and err.count("\n") == 1 and message in err, err
    assert not (tmp_path / "sub").exists()


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux /proc")
def test_match_database_that_cannot_be_created_names_db(capsys):
    argv = ["match", "--game", "tictactoe", "--a", "random", "--b", "random", "--playouts", "5", "--games", "1",
            "--db", "/proc/x.sqlite", "--no-progress"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("banditree match: error: cannot create results database at /proc/x.sqlite (--db): ")
    assert err.count("\n") == 1


def test_players_is_a_and_b_for_a_two_player_game(capsys):
    base = ["match", "--game", "tictactoe", "--playouts", "50", "--games", "4", "--seed", "3", "--no-progress"]
    assert main(base + ["--players", "ucb1", "random"]) == 0
    seats = capsys.readouterr().out
    assert main(base + ["--a", "ucb1", "--b", "random"]) == 0
    assert capsys.readouterr().out == seats


@pytest.mark.parametrize("players, message", [
    (["--players", "ucb1", "random", "random"], "--players needs one spec a seat: --game tictactoe has 2 players, got 3"),
    (["--players", "ucb1", "random", "--a", "ucb1"], "give either --players or --a and --b, not both"),
    (["--a", "ucb1"], "give --a and --b (or --players A B)"),
])
def test_the_players_must_fill_the_seats(capsys, players, message):
    assert main(["match", "--game", "tictactoe", "--playouts", "5", *players]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_game_names_as_file_names():
    # results folders named after a game: other characters than letters, digits, _ . - become one _
    import argparse

    from testbeds.commands._common import game_slug
    from testbeds.commands.tables import default_db

    assert game_slug("openspiel:breakthrough(rows=6,columns=6)") == "openspiel_breakthrough_rows_6_columns_6"
    assert game_slug("connect4") == "connect4"
    assert default_db(argparse.Namespace(game="nogo", size=None)) == os.path.join("results", "nogo9_tables.sqlite")
    assert default_db(argparse.Namespace(game="openspiel:hex(board_size=5)", size=None)) == os.path.join(
        "results", "openspiel_hex_board_size_5_tables.sqlite")
