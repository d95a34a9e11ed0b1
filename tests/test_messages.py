"""Error messages a new user meets name the flag or key and the valid values, in one line (issue 15,
item 10; the cases found by trying the command line and the spec parsers as a new user would)."""
import pytest

from bandits import make_policy
from testbeds.cli import main
from treepolicies.games import make_game


def test_a_bad_command_line_value_is_one_line_naming_the_flag(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["testbed", "--arms", "abc"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "usage" not in err  # no usage block before the error
    assert err.startswith("banditree testbed: error: argument --arms: invalid int value: 'abc'")


@pytest.mark.parametrize("spec, message", [
    ("miucb:horizon=abc", "horizon must be an integer >= 2, got 'abc'"),
    ("iucb:horizon=abc", "horizon must be an integer >= 1, got 'abc'"),
])
def test_a_horizon_that_is_not_a_number_names_horizon(spec, message):
    with pytest.raises(ValueError) as err:
        make_policy(spec)
    assert str(err.value) == message


def test_a_game_option_the_game_does_not_have_names_the_valid_ones():
    with pytest.raises(ValueError, match=r"^unknown option 'size' for game 'connect4'; valid options: \(none\)$"):
        make_game("connect4", size=9)
    with pytest.raises(ValueError, match=r"^unknown option 'size' for game 'nim'; valid options: stones, to_move$"):
        make_game("nim", size=9)
    assert make_game("nim", stones=5).legal_moves() == [1, 2, 3]
