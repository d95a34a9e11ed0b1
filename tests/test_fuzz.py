"""Bounded property-based fuzzing (hypothesis) of the SGF reader, the GTP engine, the spec parsers,
the numeric command-line arguments and results folders (read_results, banditree plot).

SGF: any text or bytes given to ``load_sgf`` gives a game or a ValueError, nothing else, and never
more setup stones than the board has points.  GTP: every answer of the in-process engine to any
command line is well framed (``=[id] ...`` or ``?[id] ...`` and an empty line), never an internal
error, and a refused command leaves the position exactly as it was; over long sessions of moves,
genmove, undo, komi, clear_board, boardsize and loadsgf (Go and NoGo), undo gives back exactly
the game a whole copy kept, and memory stays under 1000 B per command.  Specs: any string gives a
policy or a ValueError from ``make_policy``, and a player that moves or a ValueError from
``make_player``.  Command line: any text for a numeric flag is parsed within its documented range
or refused with exit 2 and one line naming the flag.  Results folders: any damage to a genuine
folder gives a result meeting read_results' guarantees or one line naming the folder, and plot
draws it or says that line (their section).  Small boards, the random player, tiny results folders
and fixed, derandomized example budgets keep the whole file to well under a minute (about 15 s
here, and about 10 s for the results folders).
"""
import io
import os
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from testbeds.results import METRICS
from treepolicies.games.go import Go
from treepolicies.interop.gtp import COMMANDS, GtpEngine
from treepolicies.interop.sgf import load_sgf, parse_sgf, write_sgf

# derandomize: the same examples on every run (a fixed, reproducible budget)
FUZZ = settings(max_examples=300, deadline=None, database=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

# -- SGF ---------------------------------------------------------------------------------------------
# hostile values first: hypothesis draws the first entries of sampled_from and one_of most
NUMBERS = st.sampled_from(["3000000000", "1e308", "-1e308", "100000", "inf", "nan", "1" * 30, "0", "4",
                           "-1", "0.25", "", "9:7", "x"]) \
    | st.sampled_from(["5", "7", "9", "19", "9:9", "7.5", "6.5", "25"])
LETTERS = st.sampled_from("abcdeistz")
POINTS = st.builds(lambda a, b: a + b, LETTERS, LETTERS)
HOSTILE = st.sampled_from(["\U000186ff\U000186ff", "\U0010ffff", "\x00", "\ud800", "é", "\\", "\\]",
                           "aa:bb:cc", "", "tt", "a"])
RECTANGLES = st.builds(lambda a, b: f"{a}:{b}", POINTS, POINTS)
JUNK = st.text(max_size=6)
VALUE = {  # the values each property is tried with
    "SZ": NUMBERS, "KM": NUMBERS, "GM": st.sampled_from(["1", "2", "", "01"]) | JUNK,
    "RU": st.sampled_from(["NoGo", "Chinese", "nogo "]) | JUNK, "PL": st.sampled_from(["B", "W", "x"]),
    "AB": POINTS | RECTANGLES | HOSTILE, "AW": POINTS | RECTANGLES | HOSTILE, "AE": POINTS,
    "B": POINTS | HOSTILE, "W": POINTS | HOSTILE, "FF": NUMBERS, "PB": JUNK, "C": JUNK,
}


def prop(names):
    """A property of one of ``names`` with one to three of its values (escaped as written)."""
    def build(name, values):
        return name + "".join("[" + v.replace("\\", "\\\\").replace("]", "\\]") + "]" for v in values)
    return st.sampled_from(names).flatmap(
        lambda n: st.lists(VALUE[n], min_size=1, max_size=3).map(lambda vs: build(n, vs)))


ROOT = st.lists(prop(["SZ", "KM", "GM", "RU", "PL", "AB", "AW", "FF", "PB"]), max_size=6).map("".join)
NODE = st.lists(prop(["B", "W", "B", "W", "AB", "AE", "C"]), min_size=1, max_size=2).map(lambda ps: ";" + "".join(ps))


def sgf_like():
    """SGF records of hostile root properties and moves, sometimes with a variation, a missing
    ``)`` or junk appended."""
    return st.builds(
        lambda root, nodes, variation, end: "(;" + root + "".join(nodes)
        + ("(" + "".join(variation) + ")(;B[aa])" if variation else "") + end,
        ROOT, st.lists(NODE, max_size=12), st.lists(NODE, max_size=2),
        st.sampled_from([")", ")", ")", ")\n(;", "", "))", ")" + "x"]))


def check_sgf(text) -> None:
    """load_sgf of ``text`` gives a game or a ValueError, and a record's setup fits its board."""
    try:
        rec = parse_sgf(text if isinstance(text, str) else text.decode("utf-8", "replace"))
    except ValueError:
        rec = None
    if rec is not None:
        assert len(rec.setup) <= rec.size * rec.size and 5 <= rec.size <= 19
    try:
        load_sgf(text)
    except ValueError:
        pass


@FUZZ
@given(sgf_like())
def test_sgf_like_text_gives_a_game_or_a_value_error(text):
    check_sgf(text)


@settings(FUZZ, max_examples=100)
@given(st.text(max_size=200) | st.binary(max_size=200))
def test_any_text_or_bytes_give_a_game_or_a_value_error(text):
    check_sgf(text)


def _record() -> str:
    g = Go(size=5, komi=0.5)
    for m in (12, 6, 18, 25, 8, 25, 25, 3):  # two passes, then a move: as a GTP session may go on
        g.reopen()
        g.play(m)
    return write_sgf(g, black="a]b", white="c\\d")


RECORD = _record()


@settings(FUZZ, max_examples=150)
@given(st.lists(st.tuples(st.integers(0, len(RECORD)), st.integers(0, 8), st.text(max_size=4)),
                min_size=1, max_size=4))
def test_damaged_records_give_a_game_or_a_value_error(edits):
    text = RECORD
    for at, cut, insert in edits:  # delete `cut` characters at `at`, insert `insert` there
        text = text[:at] + insert + text[at + cut:]
    check_sgf(text)


def test_the_undamaged_record_reads_back():  # the fuzzed record itself is valid
    assert load_sgf(RECORD).moves == [12, 6, 18, 25, 8, 25, 25, 3]


# -- GTP -----------------------------------------------------------------------------------------------
ANSWER = re.compile(r"[=?]\d*( [^\n]*)?(\n[^\n]+)*\n\n")


@pytest.fixture(scope="module")
def sgf_files(tmp_path_factory):
    """Paths loadsgf may be given: a Go record, a NoGo record, a damaged one, a FIFO, devices."""
    from treepolicies.games.nogo import NoGo

    d = tmp_path_factory.mktemp("fuzz")
    (d / "go.sgf").write_text(RECORD)
    nogo = NoGo(size=5)
    for m in (12, 0, 24):
        nogo.play(m)
    (d / "nogo.sgf").write_text(write_sgf(nogo))
    (d / "broken.sgf").write_text(RECORD[: len(RECORD) // 2])
    (d / "seven.sgf").write_text("(;GM[1]SZ[7]KM[40];B[dd])")
    os.mkfifo(d / "fifo")
    return [str(d / n) for n in ("go.sgf", "nogo.sgf", "broken.sgf", "seven.sgf", "fifo", "missing.sgf")] + [
        "/dev/null", "/dev/zero", "/dev/stdin", str(d)]


def gtp_lines(paths):
    """GTP command lines: an optional id, a command and hostile arguments, mostly in the number
    the command takes (so that each argument's checks are reached), sometimes anything."""
    colour = st.sampled_from(["b", "w", "black", "white", "B", "purple", "", "bl"])
    vertex = st.builds(lambda c, r: c + r, st.sampled_from("ABCDEFGHJTIZabce"), st.sampled_from(
        ["99999999999999999999", "٣", "-1", "0", "", "1", "3", "5", "7"])) | st.sampled_from(["pass", "PASS"])
    # hostile numbers first: hypothesis draws the first entries of sampled_from and one_of most
    number = st.sampled_from(["1e308", "-1e308", "inf", "-inf", "nan", str(10 ** 30), "1_0", "٥", "-0", "x",
                              "25.5", "0.3", "1e-320"]) \
        | st.sampled_from(["5", "7", "9", "19", "4", "20", "-3", "0.5", "7.5", "25", "49", "65", "0", "1",
                           "2", "3"])
    path = st.sampled_from(paths)
    junk = st.text(max_size=5)
    args = {
        "play": st.tuples(colour, vertex), "genmove": st.tuples(colour), "komi": st.tuples(number),
        "boardsize": st.tuples(number), "loadsgf": st.tuples(path) | st.tuples(path, number),
        "known_command": st.tuples(st.sampled_from(COMMANDS) | junk),
    }
    typed = st.sampled_from(COMMANDS).flatmap(lambda n: args.get(n, st.just(())).map(lambda a: (n, a)))
    anything = st.tuples(st.sampled_from(COMMANDS + ("frobnicate", "PLAY", "Genmove", "")) | junk,
                         st.lists(colour | vertex | number | path | junk, max_size=3))
    cid = st.sampled_from(["", "1 ", "42 ", "007 "])
    return st.builds(lambda i, na, tail: i + na[0] + "".join(" " + x for x in na[1]) + tail,
                     cid, typed | typed | anything, st.sampled_from(["", "", " # comment", "\t", "\x00"]))


def fingerprint(e: GtpEngine):
    """Everything a command may change: the position (its whole state array), history, engine settings."""
    g = e.game
    return (e.kind, e.size, e.komi, type(g).__name__, g.state.tobytes(), tuple(g.moves), tuple(g.movers),
            tuple(g.setup), len(e.undo_stack), getattr(g, "komi", None), e.done)


def check_line(e: GtpEngine, line: str) -> None:
    before = fingerprint(e)
    answer = e.handle(line)
    if answer is None:  # nothing but blanks, control characters or a comment
        assert fingerprint(e) == before
        return
    assert ANSWER.fullmatch(answer), repr(answer)
    assert "internal error" not in answer, (line, answer)
    if answer.startswith("?"):
        assert fingerprint(e) == before, (line, answer)


@pytest.mark.parametrize("game", ["go", "nogo"])
def test_gtp_lines_are_answered_well_framed_and_refusals_change_nothing(game, sgf_files):
    @settings(FUZZ, max_examples=150)
    @given(st.lists(gtp_lines(sgf_files), min_size=1, max_size=8))
    def run(lines):
        e = GtpEngine(game=game, size=5, komi=0.5, player="random", seed=1)
        for line in lines:
            check_line(e, line)

    run()


def test_gtp_moves_then_hostile_lines(sgf_files):
    """Hostile lines in a position with stones, passes and a ko history (not only the empty board)."""
    @settings(FUZZ, max_examples=100)
    @given(st.lists(gtp_lines(sgf_files), min_size=1, max_size=6))
    def run(lines):
        e = GtpEngine(game="go", size=5, komi=0.5, player="random", seed=2)
        for cmd in ("play b c3", "play w c2", "play b pass", "play w pass", "play b b2", "genmove w"):
            assert e.handle(cmd).startswith("=")
        for line in lines:
            check_line(e, line)

    run()


# -- long GTP sessions: undo exactness and memory per move (issue 24, item 3) -----------------------
def session_commands(game, sgf_files=None):
    """Commands of a session: moves (anywhere, pass included, out of turn), genmove, undo and komi,
    which keep or take back history; with ``sgf_files``, also the commands that replace the
    position or only read it (clear_board, boardsize, loadsgf of a record of the game, showboard,
    final_score).  Most moves fail on a crowded board, which the checks also cover."""
    vertex = st.builds(lambda c, r: c + r, st.sampled_from("ABCDE"), st.sampled_from("12345"))
    if game == "go":
        vertex = vertex | st.just("pass")
    colour = st.sampled_from("bw")
    play = st.builds(lambda c, v: f"play {c} {v}", colour, vertex)
    keep = st.one_of(play, play, play, st.builds(lambda c: f"genmove {c}", colour), st.just("undo"),
                     st.sampled_from(["komi 0.5", "komi -3", "komi 6"]))
    if sgf_files is None:
        return keep
    record = next(f for f in sgf_files if os.path.basename(f) == f"{game}.sgf")
    return keep | st.sampled_from(["clear_board", "boardsize 5", f"loadsgf {record}", "showboard", "final_score"])


#: commands that replace the position and empty the undo stack
RESETS = ("clear_board", "boardsize", "loadsgf")


def history(g):
    """A game's whole history: state array, moves, movers, setup and (Go) its superko record."""
    return (g.state.tobytes(), tuple(g.moves), tuple(g.movers), tuple(g.setup),
            g._seen.tobytes() if hasattr(g, "_seen") else None)


@pytest.mark.parametrize("game", ["go", "nogo"])
def test_undo_gives_back_exactly_the_game_a_full_copy_kept(game, sgf_files):
    # the reference is the old undo stack: a whole copy of the game before every move; after
    # each undo the engine's game must be that copy, but for the komi (a komi since then holds);
    # clear_board, boardsize and loadsgf empty both
    @settings(FUZZ, max_examples=20)
    @given(st.lists(session_commands(game, sgf_files), min_size=40, max_size=150))
    def run(commands):
        e = GtpEngine(game=game, size=5, komi=0.5, player="random", seed=4)
        copies = []
        for c in commands:
            before = e.game.copy()
            answer = e.handle(c)
            assert ANSWER.fullmatch(answer) and "internal error" not in answer, (c, answer)
            kept = len(e.game.moves) > len(before.moves)
            if c.startswith(RESETS) and answer.startswith("="):
                copies = []
            elif c.startswith(("play", "genmove")) and kept:
                copies.append(before)
            elif c == "undo" and answer.startswith("="):
                ref = copies.pop()
                if game == "go":
                    ref.set_komi(e.komi)
                assert history(e.game) == history(ref)
            assert len(e.undo_stack) == len(copies)

    run()


@pytest.mark.parametrize("game", ["go", "nogo"])
def test_a_long_session_holds_o1_memory_per_command(game, sgf_files):
    # a drawn pattern of commands (any of session_commands, loadsgf and clear_board included),
    # repeated to 1200 commands on 5x5: the memory traced over the last 1000 stays under 1000 B
    # per command.  A whole-copy undo stack held 3984 B of state per move kept (5x5 Go), plus
    # 16 B per move already played: 4 MB over 1000 kept moves, the first example
    import tracemalloc

    @settings(FUZZ, max_examples=3)
    @given(st.lists(session_commands(game, sgf_files), min_size=1, max_size=8))
    @example(["play b pass", "play w pass"] if game == "go" else ["genmove b", "genmove w", "clear_board"])
    @example(["genmove b", "play w c3", "genmove w", "undo", "komi 6"])
    def run(pattern):
        e = GtpEngine(game=game, size=5, komi=0.5, player="random", seed=5)
        lines = (pattern * (1200 // len(pattern) + 1))[:1200]
        for c in lines[:200]:
            e.handle(c)
        tracemalloc.start()
        try:
            start = tracemalloc.get_traced_memory()[0]
            for c in lines[200:]:
                e.handle(c)
            grown = tracemalloc.get_traced_memory()[0] - start
        finally:
            tracemalloc.stop()
        assert grown < 1000 * 1000, (pattern, grown, len(e.game.moves))

    run()


@settings(FUZZ, max_examples=100)
@given(st.binary(max_size=300))
def test_gtp_binary_input_is_answered_line_by_line(data):
    e = GtpEngine(game="go", size=5, komi=0.5, player="random")
    out = io.StringIO()
    e.run(io.BytesIO(data), out)
    text = out.getvalue()
    assert "internal error" not in text
    answers = re.findall(r"[=?]\d*(?: [^\n]*)?(?:\n[^\n]+)*\n\n", text)
    assert "".join(answers) == text  # nothing but well-framed answers


# -- spec strings (make_policy, make_player) ---------------------------------------------------------
# Any spec string gives a policy or player, or a ValueError (nothing else); a player that is made
# plays a legal move (a spec accepted and failing at the first move, like ucb1:node_cap=2 once, is
# a bug: it must be refused when parsed, naming the key and its range).
SPEC_NAMES = st.sampled_from(["ucb1", "iucb", "miucb", "klucb", "thompson", "egreedy", "greedy", "random",
                              "alphabeta", "UCB1", "", "ucb9", ":", "ucb1:"])
SPEC_KEYS = st.sampled_from(["c", "horizon", "episodic", "r", "family", "sigma", "prior", "epsilon", "q0",
                             "final", "solver", "reuse", "node_cap", "specialize", "depth", "seconds", "", "x"])
SPEC_VALUES = st.sampled_from(["1e308", "-1e308", "inf", "-inf", "nan", "1" + "0" * 30, "-1", "0", "1", "2",
                               "0.5", "1000", "", "abc", "true", "false", "none", "(", ")", "sqrt(T/t)", "T/t",
                               "n/t", "gaussian", "bernoulli", "beta", "robust", "max", "=", ",", "1_0"]) \
    | st.text(max_size=5)
SPEC = st.builds(lambda name, items: name + (":" + ",".join(f"{k}={v}" for k, v in items) if items else ""),
                 SPEC_NAMES, st.lists(st.tuples(SPEC_KEYS, SPEC_VALUES), max_size=3)) | st.text(max_size=12)


@settings(FUZZ, max_examples=400)
@given(SPEC)
def test_any_spec_gives_a_policy_or_a_value_error(spec):
    from bandits import Policy, make_policy

    try:
        policy = make_policy(spec)
    except ValueError:
        return
    assert isinstance(policy, Policy)


def _keys(name):
    import inspect

    from bandits import POLICIES
    from treepolicies.players import SEARCH_OPTIONS

    if name in POLICIES:
        cls, fixed = POLICIES[name]
        own = [k for k in inspect.signature(cls.__init__).parameters if k != "self" and k not in fixed]
    else:
        own = ["depth", "seconds"]
    return st.sampled_from(own + list(SEARCH_OPTIONS) + ["x"])


# player specs: a known kind with its own keys and the search options (more likely to be accepted)
PLAYER_SPEC = st.sampled_from(["ucb1", "iucb", "miucb", "klucb", "thompson", "egreedy", "greedy", "alphabeta"]) \
    .flatmap(lambda name: st.lists(st.tuples(_keys(name), SPEC_VALUES | st.sampled_from(["2", "362", "999", "5"])),
                                   max_size=3, unique_by=lambda kv: kv[0])
             .map(lambda items: name + (":" + ",".join(f"{k}={v}" for k, v in items) if items else "")))


@settings(FUZZ, max_examples=300)
@given(PLAYER_SPEC | SPEC, st.sampled_from([dict(playouts=8), dict(playouts=8, seconds=0.05)]))
@example("ucb1:node_cap=2", dict(playouts=8))  # accepted once, then 'the search ran no iteration'
@example("miucb:node_cap=5,final=max", dict(playouts=8))
def test_any_player_spec_gives_a_player_that_moves_or_a_value_error(spec, budget):
    from treepolicies import make_player
    from treepolicies.games import make_game

    try:
        player = make_player(spec, **budget)
    except ValueError:
        return
    game = make_game("tictactoe")
    for move in (4, 0):  # a small tree for alphabeta:depth=128
        game.play(move)
    try:
        move = player.choose(game, 0)
    except ValueError as exc:  # only what depends on the game: a rollout, prior or evaluator it lacks
        assert "tictactoe offers" in str(exc) or "unknown evaluator" in str(exc), exc
        return
    assert move in game.legal_moves()


# -- numeric command-line arguments ------------------------------------------------------------------
# Any text for a numeric flag is parsed within the flag's documented range, or refused with exit 2
# and one line "banditree CMD: error: --flag must be ..., got ..." (never a traceback).
def numeric_flags():
    from testbeds.cli import build_parser
    from testbeds.commands._common import Int, Number, NumberList

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(getattr(a, "choices", None), dict)).choices
    return parser, [(cmd, a.option_strings[0], a.type) for cmd, p in sub.items() for a in p._actions
                    if isinstance(a.type, (Int, Number, NumberList))]


PARSER, FLAGS = numeric_flags()
REQUIRED = {"match": ["--game", "nim", "--a", "random", "--b", "random"], "tables": ["--game", "nogo"],
            "tune": ["--game", "nim", "--player", "ucb1:c={c}", "--grid", "c=1"], "plot": ["somewhere"],
            "analyze": ["--game", "tictactoe", "--out", "somewhere"], "sweep": ["--policy", "ucb1", "--param", "c=1"]}
NUMBER_TEXT = st.sampled_from(["1" + "0" * 30, "-" + "1" * 25, "1e308", "-1e308", "inf", "-inf", "nan", "0", "-1",
                               "1", "5", "19", "20", "2.5", "0x10", "1_000", " 7 ", "", "10**30", "1e3", "0,5",
                               "5,5,5", ",", "9" * 5000, "9223372036854775807", "9223372036854775808"]) \
    | st.integers(min_value=-10**20, max_value=10**20).map(str) | st.floats().map(repr) | st.text(max_size=8)


def in_range(kind, value) -> bool:
    from testbeds.commands._common import Int, NumberList

    if isinstance(kind, NumberList):
        return all(in_range(kind.item, v) for v in value) and len(value) >= 1
    if isinstance(kind, Int):
        return isinstance(value, int) and kind.lo <= value <= kind.hi
    return kind.ok(value)


@settings(FUZZ, max_examples=600)
@given(st.sampled_from(FLAGS), NUMBER_TEXT)
def test_numeric_arguments_are_in_range_or_one_line_exit_2(flag, text):
    import contextlib

    command, option, kind = flag
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            args = PARSER.parse_args([command, *REQUIRED.get(command, []), f"{option}={text}"])
        except SystemExit as stop:
            assert stop.code == 2
            message = err.getvalue()
            assert message.count("\n") == 1 and "Traceback" not in message
            assert message.startswith(f"banditree {command}: error: {option} must be "), message
            return
    value = getattr(args, option.lstrip("-").replace("-", "_"))
    assert in_range(kind, value), (option, text, value)


# -- results folders (read_results, banditree plot) ----------------------------------------------------
# Any damage to a results folder's two files (a key of the manifest set to any JSON value or removed,
# the manifest replaced by any text, an array of curves.npz replaced, cut, transposed, retyped, given a
# NaN or removed, the archive's bytes cut off or flipped) gives, from read_results, a result that
# meets every guarantee of its docstring or a one-line ValueError/FileNotFoundError naming the
# folder; and from banditree plot exit 0 with its figures drawn, or exit 2 and that line (never a
# traceback, never a figure of a half-read folder).
DELETE = object()
JSON = st.recursive(st.none() | st.booleans() | st.integers(-3, 10**30) | st.floats() | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
                    max_leaves=6)
HOSTILE_JSON = st.sampled_from([DELETE, 0, -1, 1, 2, 3, True, None, "", "3", 1e308, float("nan"), 10**400, [], {},
                                "$\\foo$", [0.7, 0.5], [0.7, 0.5, 0.2], [[0.7, 0.5, 0.2]] * 3, [1.5, 0.5, 0.2],
                                ["ucb1"], ["ucb1", "eg"], ["eg", "ucb1"], {"ucb1": {}}, {"ucb1": {"x": "y"}},
                                {"env": "bernoulli", "n_arms": 3, "arm_means": [0.9, 0.1, 0.1]}, "gaussian", 12, 11]) \
    | JSON
KEY_PATHS = st.sampled_from([
    ("n_tasks",), ("horizon",), ("labels",), ("specs",), ("config",), ("config", "testbed"),
    ("config", "testbed", "env"), ("config", "testbed", "arm_means"), ("config", "testbed", "means"),
    ("config", "testbed", "n_arms"), ("config", "testbed", "reward_sd"), ("config", "horizon"), ("diagnostics",),
    ("diagnostics", "ucb1"), ("recommendation",), ("recommendation", "eg"), ("recommendation", "eg", "p_error"),
    ("kind",), ("versions",)])
ARRAYS = st.sampled_from(("labels", "specs", "step") + METRICS + ("extra",))
LABEL = st.sampled_from(["ucb1", "eg", "$\\foo$", "a$b", "$x^$", "", "_x", "x\ny", "\U0010ffff", "é" * 40]) \
    | st.text(max_size=6)
LABELS = st.lists(LABEL, max_size=3)
ARRAY_EDITS = st.sampled_from(["drop", "cut", "transpose", "float32", "int64", "nan", "inf", "negative", "scalar",
                               "empty", "objects", "strings", "extra row", "huge"])


def _edited_array(a, how, data):
    """The array ``a`` (or a new one) changed as ``how`` says."""
    if how == "cut":
        return a[..., : max(a.shape[-1] // 2, 1) - 1] if a.ndim else a
    if how == "transpose":
        return a.T.copy()
    if how == "float32":
        return a.astype(np.float32) if a.dtype.kind == "f" else a.astype("U1")
    if how == "int64":
        with np.errstate(invalid="ignore"):
            return a.astype(np.int64) if a.dtype.kind in "fi" else np.arange(len(a), dtype=np.int64)
    if how in ("nan", "inf", "negative", "huge"):
        b = np.array(a, dtype=np.float64) if a.dtype.kind in "fi" else np.zeros(a.shape)
        if b.size:
            flat = b.reshape(-1)
            flat[data.draw(st.integers(0, b.size - 1))] = {"nan": np.nan, "inf": np.inf, "negative": -1.0,
                                                           "huge": 1e308}[how]
        return b
    if how == "scalar":
        return np.float64(1.0)
    if how == "empty":
        return a[:0]
    if how == "objects":
        return np.array([object()] * max(len(a) if a.ndim else 1, 1), dtype=object)
    if how == "strings":
        return np.array(data.draw(LABELS))
    if how == "extra row":
        return np.concatenate([a, a[:1]]) if a.ndim else a
    raise AssertionError(how)


def _set(doc, path, value):
    for key in path[:-1]:
        if not isinstance(doc, dict) or not isinstance(doc.get(key), dict):
            return
        doc = doc[key]
    if isinstance(doc, dict):
        if value is DELETE:
            doc.pop(path[-1], None)
        else:
            doc[path[-1]] = value


@pytest.fixture(scope="module")
def results_folder(tmp_path_factory):
    """A genuine results folder: two policies, 3 tasks, 12 plays, fixed Bernoulli means (so that the
    manifest records means and plot draws the Lai & Robbins bound)."""
    from testbeds.results import write_results
    from testbeds.runner import run_testbed
    from testbeds.testbed import BernoulliTestbed

    folder = tmp_path_factory.mktemp("results") / "run"
    result = run_testbed(["ucb1", "egreedy:epsilon=0.1"], BernoulliTestbed(n_tasks=3, n_arms=3, seed=1,
                                                                          means=[0.7, 0.5, 0.2]),
                         12, seed=1, labels=["ucb1", "eg"], progress=False)
    write_results(result, folder)
    return folder


DAMAGES = ("manifest", "manifest", "array", "array", "array", "labels", "text", "bytes")
# damages a folder may well survive (so that plot gets to draw it): a manifest value, two new labels,
# extreme but finite values of a curve
SURVIVABLE = ("manifest", "labels", "values")


def damaged_copy(original, where, data, kinds=DAMAGES):
    """A copy of the folder ``original`` with one to three damages of ``kinds`` drawn by ``data``."""
    import json
    import shutil

    shutil.copytree(original, where)
    with np.load(where / "curves.npz") as npz:
        arrays = {name: np.array(npz[name]) for name in npz.files}
    doc = json.loads((where / "manifest.json").read_text())
    manifest_text, cut = None, None
    for _ in range(data.draw(st.integers(1, 3))):
        kind = data.draw(st.sampled_from(kinds))
        if kind == "manifest":
            _set(doc, data.draw(KEY_PATHS), data.draw(HOSTILE_JSON))
        elif kind == "labels":  # new labels, the manifest's agreeing (so that they reach the figure)
            labels = data.draw(LABELS if kinds is DAMAGES else st.lists(LABEL, min_size=2, max_size=2,
                                                                       unique=True))
            arrays["labels"] = np.array(labels, dtype=str)
            doc["labels"] = labels
            for key in ("diagnostics", "recommendation"):
                doc.pop(key, None)
        elif kind == "values":
            name = data.draw(st.sampled_from(METRICS))
            arrays[name] = _edited_array(arrays[name], data.draw(st.sampled_from(["huge", "negative"])), data)
        elif kind == "array":
            name, how = data.draw(ARRAYS), data.draw(ARRAY_EDITS)
            if how == "drop":
                arrays.pop(name, None)
            else:
                arrays[name] = _edited_array(arrays.get(name, np.zeros((2, 12))), how, data)
        elif kind == "text":
            text = json.dumps(doc)
            manifest_text = data.draw(st.sampled_from([text[: len(text) // 2], "", "[1, 2]", "null", "{}", "\x00"])
                                      | st.text(max_size=20))
        else:
            cut = (data.draw(st.sampled_from(["cut", "flip"])), data.draw(st.floats(0, 1)))
    np.savez(where / "curves.npz", **arrays)  # (an object array is pickled: read_results must refuse it unread)
    (where / "manifest.json").write_text(manifest_text if manifest_text is not None else json.dumps(doc))
    if cut is not None:
        raw = bytearray((where / "curves.npz").read_bytes())
        at = min(int(cut[1] * len(raw)), len(raw) - 1)
        raw = raw[:at] if cut[0] == "cut" else raw[:at] + bytes([raw[at] ^ 0xFF]) + raw[at + 1:]
        (where / "curves.npz").write_bytes(bytes(raw))


def check_read(folder):
    """read_results of ``folder``: its guarantees, or its one-line refusal (returned as text)."""
    from testbeds.results import read_results

    try:
        r = read_results(folder)
    except (ValueError, FileNotFoundError) as exc:
        text = str(exc)
        assert "\n" not in text and text.startswith(f"{folder} is not a "), text
        return text
    n_pol, horizon = len(r.labels), r.horizon
    assert n_pol >= 1 and horizon >= 1 and len(set(r.labels)) == n_pol and len(r.specs) == n_pol
    assert all(isinstance(x, str) for x in r.labels + r.specs)
    for name in METRICS:
        values = r.curves[name]
        assert values.shape == (n_pol, horizon) and values.dtype == np.float64, name
        if name.endswith("_se"):
            assert (np.isnan(values) | (values >= 0)).all(), name
        else:
            assert np.isfinite(values).all(), name
    assert type(r.n_tasks) is int and r.n_tasks >= 1
    assert len(r.diagnostics) == len(r.recommendation) == n_pol
    for row in r.diagnostics + r.recommendation:
        assert all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in row.values()), row
    return None


def test_the_genuine_results_folder_reads_back(results_folder):  # the fuzzed folder itself is valid
    assert check_read(results_folder) is None


_copies = iter(range(10**9))


@settings(FUZZ, max_examples=300)
@given(st.data())
def test_a_damaged_results_folder_reads_whole_or_is_refused_in_one_line(results_folder, data):
    where = results_folder.parent / f"damaged-{next(_copies)}"
    damaged_copy(results_folder, where, data)
    check_read(where)


@settings(FUZZ, max_examples=30)
@given(st.data(), st.sampled_from([[], ["--loglog"], ["--smooth", "3"], ["--regret-per-log"]]))
def test_plot_of_a_damaged_results_folder_draws_it_or_refuses_it_in_one_line(results_folder, data, options):
    # every figure is drawn (where a parse error of a label would show) but not saved: saving is
    # the other tests' concern, and costs a second a figure
    import contextlib

    from testbeds import plots
    from testbeds.cli import main

    def draw_only(fig, folder, stem, formats=("png", "pdf")):
        fig.canvas.draw()
        return [os.path.join(os.fspath(folder), f"{stem}.{fmt}") for fmt in formats]

    where = results_folder.parent / f"damaged-{next(_copies)}"
    damaged_copy(results_folder, where, data, SURVIVABLE)
    refused = check_read(where)
    err = io.StringIO()
    real = plots.save_figure
    plots.save_figure = draw_only
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            rc = main(["plot", str(where), "--metric", "regret", *options, "--out", str(where) + "-figures"])
    finally:
        plots.save_figure = real
    text = err.getvalue()
    if refused is not None:
        assert (rc, text) == (2, f"banditree plot: error: {refused}\n")
    else:
        assert rc == 0 and "Traceback" not in text, text
