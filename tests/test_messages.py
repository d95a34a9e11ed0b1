"""Error messages a new user meets name the flag or key and the valid values, in one line (issue 15,
item 10; the cases found by trying the command line and the spec parsers as a new user would)."""
import pytest

from bandits import make_policy
from testbeds.cli import main
from treepolicies.games import make_game


def test_a_bad_command_line_value_is_one_line_naming_the_flag(capsys):
    assert main(["testbed", "--arms", "abc"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "usage" not in err  # no usage block before the error
    assert err == "banditree testbed: error: --arms must be an integer in 1..100000, got abc\n"
    assert main(["tables"]) == 2  # other argparse errors: one line too, pointing at --help
    assert capsys.readouterr().err == ("banditree tables: error: the following arguments are required: --game "
                                       "(banditree tables --help lists the options)\n")


# issue 15, item 7: every numeric argument has a range, shown in --help, and a value outside it is
# one line naming the flag and the range (exit 2), before anything runs; 10**30 used to reach numba
# (OverflowError tracebacks), --games 10**30 built its task list in memory, --mean-sd 1e308 wrote
# inf/nan, gtp --seconds inf answered '? internal error' at every genmove.
BIG = "1" + "0" * 30
T = ["--tasks", "2", "--arms", "2", "--horizon", "3", "--workers", "1", "--no-progress", "--no-plots"]
M = ["--game", "nim", "--a", "random", "--b", "random", "--playouts", "5", "--games", "2", "--no-progress"]
G = ["--game", "nogo", "--size", "5", "--c", "0.5", "--playouts", "5", "--games", "1", "--workers", "1",
     "--no-progress"]
RANGES = [  # command, base arguments, flag, bad value, the message after "--flag must be "
    ("testbed", T, "--tasks", BIG, f"an integer in 1..10000000, got {BIG}"),
    ("testbed", T, "--tasks", "10**30", "an integer in 1..10000000, got 10**30"),
    ("testbed", T, "--arms", BIG, f"an integer in 1..100000, got {BIG}"),
    ("testbed", T, "--horizon", "0", "an integer in 1..10000000, got 0"),
    ("testbed", T, "--seed", BIG, f"an integer in 0..9223372036854775807, got {BIG}"),
    ("testbed", T, "--seed", "-1", "an integer in 0..9223372036854775807, got -1"),
    ("testbed", T, "--workers", BIG, f"an integer in 1..1024, got {BIG}"),
    ("testbed", T, "--mean-sd", "1e308", "a number > 0 and <= 1000000, got 1e308"),
    ("testbed", T, "--mean-sd", "nan", "a number > 0 and <= 1000000, got nan"),
    ("testbed", T, "--reward-sd", "inf", "a number > 0 and <= 1000000, got inf"),
    ("testbed", T, "--tasks", "9" * 5000, "an integer in 1..10000000, got 9999999999999999999999999999999999999..."),
    ("figures", T[:-1], "--arms", "0", "an integer in 1..100000, got 0"),
    ("figures", T[:-1], "--seed", BIG, f"an integer in 0..9223372036854775807, got {BIG}"),
    ("match", M, "--playouts", BIG, f"an integer in 1..1000000000, got {BIG}"),
    ("match", M, "--games", BIG, f"an integer in 1..100000, got {BIG}"),
    ("match", M, "--seed", BIG, f"an integer in 0..9223372036854775807, got {BIG}"),
    ("match", M, "--workers", "0", "an integer in 1..1024, got 0"),
    ("match", M, "--size", "4", "an integer in 5..19, got 4"),
    ("match", M, "--komi", "1e308", "a number in -361..361, got 1e308"),
    ("match", M[:-3], "--seconds", "inf", "a number > 0 and <= 86400, got inf"),
    ("tables", G, "--games", BIG, f"an integer in 1..100000, got {BIG}"),
    ("tables", G, "--size", "4", "an integer in 5..19, got 4"),
    ("tables", G, "--playouts", f"10,{BIG}", f"comma-separated integers (1..1000000000), got '10,{BIG}'"),
    ("tables", G, "--c", "0.5,inf", "comma-separated numbers (0..100), got '0.5,inf'"),
    ("tables", G, "--workers", BIG, f"an integer in 1..1024, got {BIG}"),
    ("gtp", [], "--playouts", BIG, f"an integer in 1..1000000000, got {BIG}"),
    ("gtp", [], "--seconds", "inf", "a number > 0 and <= 86400, got inf"),
    ("gtp", [], "--seconds", "0", "a number > 0 and <= 86400, got 0"),
    ("gtp", [], "--size", "25", "an integer in 5..19, got 25"),
    ("gtp", [], "--komi", "inf", "a number in -361..361, got inf"),
    ("gtp", [], "--seed", BIG, f"an integer in 0..9223372036854775807, got {BIG}"),
]


@pytest.mark.parametrize("command, base, flag, value, message", RANGES)
def test_a_numeric_argument_out_of_its_range_is_one_line_naming_flag_and_range(tmp_path, capsys, monkeypatch,
                                                                                command, base, flag, value, message):
    import testbeds.runner
    import testbeds.tables

    def ran(*a, **k):
        raise AssertionError("the command ran")
    monkeypatch.setattr(testbeds.runner, "run_testbed", ran)
    monkeypatch.setattr(testbeds.tables, "run_tables", ran)
    args = [command] + base + [flag, value]
    if command in ("testbed", "figures", "tables"):
        args += ["--out", str(tmp_path / "out")]
    if command == "tables":
        args += ["--db", str(tmp_path / "db.sqlite")]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err == f"banditree {command}: error: {flag} must be {message}\n"
    assert not (tmp_path / "db.sqlite").exists()


@pytest.mark.parametrize("command", ["testbed", "figures", "match", "tables", "gtp"])
def test_help_shows_the_range_of_every_numeric_argument(capsys, command):
    from testbeds.commands._common import Int, NumberList, Number

    parser = __import__("testbeds.cli", fromlist=["build_parser"]).build_parser()
    sub = next(a for a in parser._actions if hasattr(a, "choices") and isinstance(a.choices, dict)).choices[command]
    numeric = [a for a in sub._actions if isinstance(a.type, (Int, Number, NumberList))]
    assert numeric and not [a.dest for a in sub._actions if a.type in (int, float)]  # every number has a range
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for action in numeric:
        item = action.type.item if isinstance(action.type, NumberList) else action.type
        shown = item.range.removeprefix("in ")
        assert shown in text, (action.dest, shown)


def test_both_or_neither_budget_names_the_flags(capsys):
    for extra in ([], ["--playouts", "5", "--seconds", "1"]):
        assert main(["match", "--game", "nim", "--a", "random", "--b", "random", "--no-progress"] + extra) == 2
        assert capsys.readouterr().err == ("banditree match: error: give exactly one of --playouts N and --seconds S "
                                           "(the budget of every move)\n")


@pytest.mark.parametrize("args, message", [
    (["--game", "connect4", "--size", "9"], "--size does not apply to --game connect4 (valid options: (none))"),
    (["--game", "go", "--size", "5", "--komi", "30"], "--komi must be a multiple of 0.5 in -25..25 on a 5x5 board, got 30.0"),
    (["--game", "nim", "--a", "alphabeta:depth=x"], "--a 'alphabeta:depth=x': alphabeta depth must be an integer in "
                                                    "1..128, got 'x'"),
    (["--game", "nim", "--b", "ucb1:node_cap=2"], "--b 'ucb1:node_cap=2': node_cap must be an integer in "
                                                  "1000..1000000000, got 2"),
])
def test_match_messages_name_the_flag(capsys, args, message):
    base = {"--a": "random", "--b": "random", "--playouts": "5", "--games": "1"}
    for flag, value in zip(args[::2], args[1::2]):
        base[flag] = value
    argv = ["match", "--no-progress"] + [x for kv in base.items() for x in kv]
    assert main(argv) == 2
    assert capsys.readouterr().err == f"banditree match: error: {message}\n"


@pytest.mark.parametrize("args, message", [
    (["--komi", "100"], "--komi must be a multiple of 0.5 in -81..81 on a 9x9 board, got 100.0"),
    (["--size", "5", "--komi", "30"], "--komi must be a multiple of 0.5 in -25..25 on a 5x5 board, got 30.0"),
    (["--player", "ucb1:node_cap=2"], "--player 'ucb1:node_cap=2': node_cap must be an integer in 1000..1000000000, got 2"),
])
def test_gtp_refuses_bad_settings_at_start_up(capsys, args, message):
    assert main(["gtp"] + args) == 2
    assert capsys.readouterr().err == f"banditree gtp: error: {message}\n"


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
