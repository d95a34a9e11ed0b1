"""Search records: match --log and genmove logs on stderr, SGF move comments that round-trip."""
import io
import re

import pytest

from testbeds.cli import main
from testbeds.store import ResultStore
from treepolicies import make_game, make_player, play_game, search
from treepolicies.interop.gtp import GtpEngine
from treepolicies.interop.sgf import parse_sgf, write_sgf
from treepolicies.viz.summary import format_record, max_depth, principal_variation, search_record, sgf_comment

LINE = re.compile(r"move (\S+) \(visits (\d+), value ([\d.]+|-)\); (\d+) it, [\d.]+ s, tree (\d+), depth (\d+); "
                  r"pv ([^;]*); top (.*)")


def test_search_record_holds_the_result():
    g = make_game("connect4")
    r = search(g, "ucb1", iterations=400, seed=0, early_stop=False)
    rec = search_record(g, r)
    i = r.moves.index(r.move)
    assert (rec["move"], rec["visits"], rec["value"]) == (str(r.move), int(r.visits[i]), float(r.values[i]))
    assert rec["iterations"] == 400 and rec["tree_size"] == r.tree_size
    assert rec["pv"] == [str(m) for m in principal_variation(r, 10)]
    assert [t["visits"] for t in rec["top"]] == sorted(r.visits.tolist(), reverse=True)[:3]
    # depth: the deepest node, counted by walking parents
    tree = r.tree
    deepest = 0
    for k in range(tree.size):
        d, x = 0, k
        while tree.parent[x] >= 0:
            x, d = tree.parent[x], d + 1
        deepest = max(deepest, d)
    assert rec["max_depth"] == deepest == max_depth(tree)
    m = LINE.fullmatch(format_record(rec))
    assert m and m.group(1) == rec["move"] and int(m.group(2)) == rec["visits"] and int(m.group(5)) == r.tree_size


def _played_with_comments():
    g = make_game("go", size=5)
    a, b = make_player("ucb1:c=0.5", playouts=60), make_player("random")
    comments = {}

    def on_move(ply, player, move, position):
        if getattr(player, "last", None) is not None:
            comments[ply] = sgf_comment(search_record(position, player.last))

    rec = play_game(g, a, b, seed=4, on_move=on_move)
    for m in rec.moves:
        g.play(m)
    return g, comments


def test_sgf_comments_round_trip_through_our_reader():
    g, comments = _played_with_comments()
    assert comments and all(ply % 2 == 0 for ply in comments)
    text = write_sgf(g, comments=comments)
    rec = parse_sgf(text)
    assert rec.comments == [comments.get(k, "") for k in range(len(g.moves))]
    assert [c for _, c in rec.moves] == [None if m == 25 else m for m in g.moves]
    tricky = write_sgf(g, comments={0: "a ] bracket \\ and back"})
    assert parse_sgf(tricky).comments[0] == "a ] bracket \\ and back"


def test_sgf_comments_read_by_sgfmill():
    sgfmill = pytest.importorskip("sgfmill.sgf", reason="sgfmill (test extra) is not installed")
    g, comments = _played_with_comments()
    game = sgfmill.Sgf_game.from_bytes(write_sgf(g, comments=comments).encode())
    nodes = game.get_main_sequence()[1:]
    assert len(nodes) == len(g.moves)
    for k, node in enumerate(nodes):
        assert (node.get("C") if node.has_property("C") else "") == comments.get(k, "")
        colour, point = node.get_move()
        assert colour == "bw"[g.movers[k]]
        assert point == (None if g.moves[k] == 25 else (4 - g.moves[k] // 5, g.moves[k] % 5))


def test_match_log_prints_records_and_stores_sgf_comments(tmp_path, capsys):
    db = tmp_path / "m.sqlite"
    assert main(["match", "--game", "nogo", "--size", "5", "--a", "ucb1:c=0.5", "--b", "random", "--playouts", "40",
                 "--games", "2", "--db", str(db), "--no-progress", "--log"]) == 0
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.startswith("game ")]
    assert lines and all(LINE.fullmatch(ln.split("] ", 1)[1]) for ln in lines)
    assert {ln.split()[1] for ln in lines} == {"0", "1"} and all("[ucb1:c=0.5]" in ln for ln in lines)
    with ResultStore(str(db)) as store:
        rows = store.games(store.runs()[0].run_id)
    for row in rows:
        rec = parse_sgf(row.sgf)
        commented = [k for k, c in enumerate(rec.comments) if c]
        a_black = row.a_first
        assert commented and all((k % 2 == 0) == a_black for k in commented)  # A's moves only
        assert all(rec.comments[k].startswith("banditree: ") for k in commented)


def test_genmove_log_on_stderr_leaves_answers_unchanged():
    log = io.StringIO()
    quiet, loud = (GtpEngine(game="go", size=5, player="ucb1", playouts=80, seed=2, log=x) for x in (None, log))
    script = b"genmove b\ngenmove w\n"
    outs = []
    for e in (quiet, loud):
        out = io.StringIO()
        e.run(io.BytesIO(script), out)
        outs.append(out.getvalue())
    assert outs[0] == outs[1]
    lines = log.getvalue().splitlines()
    moves = re.findall(r"= (\S+)", outs[1])
    assert len(lines) == 2 and [ln.split(":")[0] for ln in lines] == [f"genmove {m}" for m in moves]
    assert all(LINE.fullmatch(ln.split(": ", 1)[1]) for ln in lines)
