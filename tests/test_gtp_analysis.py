"""GTP analysis: GoGui gfx commands and lz-analyze, exact transcripts against independent searches;
the position, the undo stack and genmove's moves are unchanged by analysis."""
import io
import os
import re
import subprocess
import sys
import time

import pytest

from bandits.rng import Stream
from treepolicies import search
from treepolicies.games import Go
from treepolicies.interop.gtp import GtpEngine
from treepolicies.interop.gtp_analysis import GFX_STREAM, LZ_STREAM

SEED, PLAYOUTS = 3, 300
POSITION = b"boardsize 5\nkomi 0.5\nplay b C3\nplay w B3\n"


def engine(**kw):
    return GtpEngine(game="go", size=5, komi=0.5, player="ucb1:c=0.5", playouts=PLAYOUTS, seed=SEED, **kw)


def session(e, script: bytes) -> str:
    out = io.StringIO()
    e.run(io.BytesIO(script), out)
    return out.getvalue()


def reference(colour, stream_id, k, iterations=PLAYOUTS):
    g = Go(size=5, komi=0.5)
    g.play(g.str_to_move("C3"))
    g.play(g.str_to_move("B3"))
    g.set_to_move(colour)
    return g, search(g, "ucb1:c=0.5", iterations=iterations, seed=Stream(SEED, stream_id, k), early_stop=False)


def fingerprint(e):
    g = e.game
    return (g.state.tobytes(), tuple(g.moves), tuple(g.movers), len(e.undo_stack), e.genmoves)


def ranked(g, r):
    """Visited root moves, most visits first (ties: higher value, then root order), written here again."""
    items = [(int(v), float(q), i) for i, (v, q) in enumerate(zip(r.visits, r.values)) if v > 0]
    items.sort(key=lambda t: (-t[0], -t[1], t[2]))
    return [(g.move_to_str(r.moves[i]), v, q, i) for v, q, i in items]


def test_gogui_analyze_commands_and_known_command():
    e = engine()
    assert session(e, b"gogui-analyze_commands\nknown_command lz-analyze\n") == (
        "= gfx/Search visits/banditree-visits %m\n"
        "gfx/Search values/banditree-values %m\n"
        "gfx/Principal variation/banditree-pv %m\n\n"
        "= true\n\n")


def test_gfx_commands_exact_answers_on_a_known_position():
    e = engine()
    session(e, POSITION)
    before = fingerprint(e)
    out = session(e, b"banditree-visits\nbanditree-values\n5 banditree-pv\n")
    assert fingerprint(e) == before
    g, r = reference(0, GFX_STREAM, 0)  # Black to move; the first analysis search
    rows = ranked(g, r)
    top = rows[0][1]
    visits = ("= INFLUENCE " + " ".join(f"{m} {v / top:.3f}" for m, v, _, _ in rows) + "\n"
              "LABEL " + " ".join(f"{m} {v}" for m, v, _, _ in rows) + "\n"
              f"TEXT visits of {PLAYOUTS} iterations; most visited {rows[0][0]} ({rows[0][1]})\n\n")
    values = ("= INFLUENCE " + " ".join(f"{m} {2 * q - 1:.3f}" for m, _, q, _ in rows) + "\n"
              "LABEL " + " ".join(f"{m} {round(100 * q)}" for m, _, q, _ in rows) + "\n"
              "TEXT values in % for Black to move (squares: black good for Black)\n\n")
    # the PV: the most-visited path, colours alternating from Black
    tree, node, pv = r.tree, 0, []
    while tree.first[node] >= 0:
        f, n = tree.first[node], tree.nchild[node]
        kids = [k for k in range(f, f + n) if tree.stats[0, k] > 0]
        if not kids:
            break
        node = max(kids, key=lambda k: (tree.stats[0, k], tree.stats[3, k], -k))
        pv.append(g.move_to_str(int(tree.move[node])))
    var = " ".join(f"{'bw'[i % 2]} {m if m != 'pass' else 'PASS'}" for i, m in enumerate(pv))
    pv_answer = f"=5 VAR {var}\nTEXT principal variation {' '.join(pv)}\n\n"
    assert out == visits + values + pv_answer
    assert len(pv) >= 2


def test_gfx_for_white_and_genmove_unchanged_by_analysis():
    plain, analysed = engine(), engine()
    session(plain, POSITION)
    session(analysed, POSITION)
    out = session(analysed, b"banditree-values w\n")
    g, r = reference(1, GFX_STREAM, 0)
    rows = ranked(g, r)
    assert out.startswith("= INFLUENCE " + " ".join(f"{m} {2 * (1 - q) - 1:.3f}" for m, _, q, _ in rows) + "\n")
    assert "for White to move" in out
    # genmove draws from its own streams: the same move with or without analysis before it
    streamed = session(analysed, b"genmove b\nlz-analyze w 1\nbanditree-pv\ngenmove w\n")
    without = re.sub(r"=\n(info [^\n]*\n)*\n", "", streamed, count=1)
    without = re.sub(r"= VAR [^\n]*\nTEXT [^\n]*\n\n", "", without, count=1)
    assert without == session(plain, b"genmove b\ngenmove w\n")


def test_lz_analyze_stream_interrupted_by_the_next_command_exact_framing():
    e = engine(analysis_iterations=200)
    session(e, POSITION)
    before = fingerprint(e)
    out = session(e, b"7 lz-analyze w 50 maxmoves 3\nname\n")
    assert fingerprint(e) == before
    g, r = reference(1, LZ_STREAM, 0, iterations=200)
    k = len(r.moves)
    parts = []
    for order, (m, v, q, i) in enumerate(ranked(g, r)[:3]):
        tree, node, pv = r.tree, int(r.tree.first[0]) + i, [m]
        while tree.first[node] >= 0:
            f, n = tree.first[node], tree.nchild[node]
            kids = [x for x in range(f, f + n) if tree.stats[0, x] > 0]
            if not kids:
                break
            node = max(kids, key=lambda x: (tree.stats[0, x], tree.stats[3, x], -x))
            pv.append(g.move_to_str(int(tree.move[node])))
        parts.append(f"info move {m} visits {v} winrate {round(10000 * q)} prior {round(10000 / k)} "
                     f"order {order} pv {' '.join(pv)}")
    assert out == "=7\n" + " ".join(parts) + "\n\n" + "= banditree\n\n"


def test_lz_analyze_reports_the_search_s_priors_where_it_has_them():
    # with prior=heuristic each root move's prior is the game's heuristic prior kernel's value for it
    # (computed here from the kernel on the root's legal moves), x 10000 rounded; without priors the
    # uniform 10000 / K of the test above
    import numpy as np
    e = GtpEngine(game="go", size=5, komi=0.5, player="puct:c=1.5,prior=heuristic", playouts=PLAYOUTS, seed=SEED,
                  analysis_iterations=200)
    session(e, POSITION)
    out = session(e, b"lz-analyze w 50\nname\n")
    g = Go(size=5, komi=0.5)
    g.play(g.str_to_move("C3"))
    g.play(g.str_to_move("B3"))
    g.set_to_move(1)
    moves = np.array(g.legal_moves(), np.int64)
    p = np.empty(len(moves))
    g.priors["heuristic"](g.state, moves.copy(), len(moves), p)
    expected = {g.move_to_str(int(m)): round(10000 * float(q)) for m, q in zip(moves, p)}
    reported = dict(re.findall(r"info move (\S+) visits \d+ winrate \d+ prior (\d+)", out))
    assert len(reported) >= 3 and len(set(reported.values())) > 1  # (not uniform)
    assert {m: int(v) for m, v in reported.items()} == {m: expected[m] for m in reported}


def test_lz_analyze_bad_tags_and_players():
    e = engine()
    assert session(e, b"lz-analyze b interval x\nlz-analyze purple\n") == (
        "? syntax error: cannot parse analyze tags (valid: [colour] [interval] interval N, maxmoves N, minmoves N)\n\n"
        "? syntax error: colour must be b, black, w or white, got 'purple'\n\n")
    r = GtpEngine(game="go", size=5, player="random")
    assert session(r, b"lz-analyze\nbanditree-visits\n") == (
        "? analysis needs an MCTS player (a bandit policy spec), not 'random'\n\n" * 2)


def test_lz_analyze_with_a_root_policy_bound_to_a_budget_is_refused_and_the_engine_goes_on():
    # lz-analyze grows a search open-ended (by time), and sequential halving needs its budget up front:
    # the answer is one "?" line (the search's own refusal), then the engine answers the next commands
    e = GtpEngine(game="go", size=5, komi=0.5, player="ucb1:c=0.5,root_policy=seqhalving,final=recommend",
                  playouts=PLAYOUTS, seed=SEED)
    out = session(e, POSITION + b"lz-analyze w 10\nname\nplay w D4\n")
    answers = out.split("\n\n")
    refusal = answers[4]
    assert refusal.startswith("? root_policy 'seqhalving") and "needs a horizon" in refusal and "\n" not in refusal
    assert answers[5:8] == ["= banditree", "= ", ""]


def test_lz_analyze_streams_over_a_pipe_until_the_next_command():
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    proc = subprocess.Popen([sys.executable, "-m", "testbeds.cli", "gtp", "--game", "go", "--size", "5",
                             "--player", "ucb1", "--playouts", "100"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True, bufsize=1)
    try:
        proc.stdin.write("play b C3\n")
        proc.stdin.flush()
        assert proc.stdout.readline() == "= \n" and proc.stdout.readline() == "\n"
        proc.stdin.write("lz-analyze w 5\n")
        proc.stdin.flush()
        assert proc.stdout.readline() == "=\n"
        lines = [proc.stdout.readline() for _ in range(3)]  # reports keep coming while we wait
        proc.stdin.write("showboard\n")
        proc.stdin.flush()
        while True:
            line = proc.stdout.readline()
            if line == "\n":
                break
            lines.append(line)
        visits = []
        for line in lines:
            assert re.fullmatch(r"(info move [A-E]\d visits \d+ winrate \d+ prior \d+ order \d+ pv( [A-E]\d| pass)+ ?)+\n",
                                line), line
            visits.append(sum(int(x) for x in re.findall(r"visits (\d+)", line)))
        assert visits == sorted(visits) and visits[-1] > visits[0]  # one growing search
        assert proc.stdout.readline().startswith("= \n")  # showboard answered after the stream ended
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)


def test_gtp_takes_shot_and_hmcts_players():
    # H-MCTS as the tree policy: genmove answers a legal move (its budget bound to the playouts);
    # SHOT as a root policy is bound to a budget as sequential halving is: lz-analyze answers "?"
    e = GtpEngine(game="go", size=5, komi=0.5, player="hmcts:c=0.5,threshold=20", playouts=PLAYOUTS, seed=SEED)
    answers = session(e, POSITION + b"genmove b\n").split("\n\n")
    move = answers[4][2:]
    g = Go(size=5, komi=0.5)
    g.play(g.str_to_move("C3"))
    g.play(g.str_to_move("B3"))
    assert answers[4].startswith("= ") and g.str_to_move(move) in g.legal_moves()
    e = GtpEngine(game="go", size=5, komi=0.5, player="ucb1:c=0.5,root_policy=shot", playouts=PLAYOUTS, seed=SEED)
    refusal = session(e, POSITION + b"lz-analyze w 10\nname\n").split("\n\n")[4]
    assert refusal.startswith("? root_policy 'shot") and "needs a horizon" in refusal and "\n" not in refusal
