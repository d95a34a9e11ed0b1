"""Matches as task lists: same results as treepolicies.match, resume, refusal of other configurations."""
import pytest

import treepolicies
from testbeds.store import ResultStore
from testbeds.tournament import MatchConfig, Task, plan_tasks, run_match, run_tasks

GAME = "tictactoe"  # fast games; the Go-like path (SGF) is tested on 5x5 NoGo below
CFG = MatchConfig(game=GAME, a="miucb:episodic=true", b="ucb1:c=0.5", playouts=60, seed=3)


def outcomes(rows):
    return [r.outcome() for r in rows]


@pytest.fixture(scope="module")
def reference():
    """8 games played in memory, uninterrupted."""
    return run_match(CFG, 8, progress=False)


def test_config_validation():
    with pytest.raises(ValueError, match="exactly one of playouts and seconds"):
        MatchConfig(game=GAME, a="ucb1", b="ucb1")
    with pytest.raises(ValueError, match="playouts must be an integer >= 1"):
        MatchConfig(game=GAME, a="ucb1", b="ucb1", playouts=0)
    with pytest.raises(ValueError, match="seconds must be > 0"):
        MatchConfig(game=GAME, a="ucb1", b="ucb1", seconds=-1.0)
    with pytest.raises(ValueError, match="seed must be an integer >= 0"):
        MatchConfig(game=GAME, a="ucb1", b="ucb1", playouts=5, seed=-2)
    with pytest.raises(ValueError, match="player b"):
        MatchConfig(game=GAME, a="ucb1", b="", playouts=5)
    with pytest.raises(ValueError, match="games must be an integer >= 1"):
        run_match(CFG, 0, progress=False)
    assert MatchConfig.from_dict(CFG.as_dict()) == CFG


def test_same_games_as_treepolicies_match(reference):
    a = treepolicies.make_player(CFG.a, playouts=CFG.playouts)
    b = treepolicies.make_player(CFG.b, playouts=CFG.playouts)
    m = treepolicies.match(a, b, GAME, 8, CFG.seed)
    r = reference.rating
    assert (r.wins, r.draws, r.losses) == (m.wins, m.draws, m.losses)
    assert [g.winner for g in reference.games] == [rec.winner for rec in m.records]
    assert [g.n_moves for g in reference.games] == [rec.n_moves for rec in m.records]
    assert r.rate == pytest.approx(m.score)
    assert (r.low, r.high) == pytest.approx(m.interval)


def test_rows_record_seed_colours_and_players(reference):
    for i, g in enumerate(reference.games):
        assert g.game_index == i
        assert g.seed == treepolicies.game_seed(CFG.seed, i)
        assert g.a_first == (i % 2 == 0)
        assert (g.first, g.second) == ((CFG.a, CFG.b) if i % 2 == 0 else (CFG.b, CFG.a))
        # A's score follows from the winner's colour and who moved first
        expected = 0.5 if g.winner is None else float((g.winner == 0) == g.a_first)
        assert g.score_a == expected
        assert g.sgf is None  # tic-tac-toe is not Go-like


def test_resume_plays_only_missing_games(tmp_path, reference):
    db = tmp_path / "m.sqlite"
    first = run_match(CFG, 3, db=db, progress=False)
    assert first.played == 3
    assert outcomes(first.games) == outcomes(reference.games[:3])
    again = run_match(CFG, 3, db=db, progress=False)
    assert again.played == 0 and outcomes(again.games) == outcomes(first.games)
    more = run_match(CFG, 8, db=db, progress=False)
    assert more.played == 5
    assert outcomes(more.games) == outcomes(reference.games)
    assert more.rating == reference.rating
    # a smaller --games reports the first games only, and loses nothing
    fewer = run_match(CFG, 4, db=db, progress=False)
    assert fewer.played == 0 and outcomes(fewer.games) == outcomes(reference.games[:4])
    with ResultStore(db) as s:
        assert len(s.games(1)) == 8


def test_other_configuration_is_refused(tmp_path):
    db = tmp_path / "m.sqlite"
    run_match(CFG, 2, db=db, progress=False)
    for other in (MatchConfig(**{**CFG.__dict__, "b": "ucb1:c=0.7"}),
                  MatchConfig(**{**CFG.__dict__, "seed": 4}),
                  MatchConfig(**{**CFG.__dict__, "playouts": 61})):
        with pytest.raises(ValueError, match="different configuration"):
            run_match(other, 4, db=db, progress=False)
    with ResultStore(db) as s:
        assert len(s.runs()) == 1 and len(s.games(1)) == 2


def test_interrupt_keeps_finished_games(tmp_path, reference):
    """A KeyboardInterrupt in the client after two commits: those two stay, the rest is played later."""
    db = tmp_path / "m.sqlite"
    with ResultStore(db, {"study": "match", **CFG.as_dict()}, lock=True) as store:
        rid = store.run_id(CFG.as_dict())
        tasks = plan_tasks(store, [(rid, CFG.as_dict())], 8)
        seen = []

        def on_result(_rid, row):
            seen.append(row.game_index)
            if len(seen) == 2:
                raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            run_tasks(store, tasks, on_result=on_result)
        assert store.finished_indices(rid) == {0, 1}
    done = run_match(CFG, 8, db=db, progress=False)
    assert done.played == 6 and outcomes(done.games) == outcomes(reference.games)


def test_plan_interleaves_runs(tmp_path):
    other = MatchConfig(**{**CFG.__dict__, "b": "ucb1:c=1"})
    with ResultStore(tmp_path / "t.sqlite", {"study": "test"}) as store:
        r1, r2 = store.run_id(CFG.as_dict()), store.run_id(other.as_dict())
        tasks = plan_tasks(store, [(r1, CFG.as_dict()), (r2, other.as_dict())], 3)
        assert [(t.run_id, t.index) for t in tasks] == [(r1, 0), (r2, 0), (r1, 1), (r2, 1), (r1, 2), (r2, 2)]
        assert isinstance(tasks[0], Task) and tasks[0].config == CFG.as_dict()


def test_go_like_games_are_stored_with_their_sgf(tmp_path):
    from treepolicies.interop.sgf import parse_sgf

    cfg = MatchConfig(game="nogo", a="miucb:episodic=true", b="ucb1:c=0.5", playouts=30, seed=2,
                      game_options={"size": 5})
    out = run_match(cfg, 2, db=tmp_path / "n.sqlite", progress=False)
    with ResultStore(tmp_path / "n.sqlite") as s:
        rows = s.games(1)
    assert [r.outcome() for r in rows] == [r.outcome() for r in out.games]
    for g in rows:
        rec = parse_sgf(g.sgf)
        assert rec.game == "nogo" and rec.size == 5
        assert (rec.black, rec.white) == (g.first, g.second)  # the first player is Black
        assert len(rec.moves) == g.n_moves
        assert [p for p, _ in rec.moves] == [k % 2 for k in range(g.n_moves)]
        assert rec.result == ("B+R" if g.winner == 0 else "W+R")  # NoGo: the side left without a move loses
