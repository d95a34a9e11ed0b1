"""``banditree match`` from the command line (in process)."""
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
    assert "--playouts must be >= 1" in capsys.readouterr().err
