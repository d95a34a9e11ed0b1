"""OpenSpiel's games as search environments (treepolicies.games.openspiel; docs/openspiel.md).

References: our own Tic-Tac-Toe and Connect Four (the same rules, played move for move against
OpenSpiel's), hand-derived expectimax and max^n values of small games written here, and the
interface contract every searchable OpenSpiel game must keep.
"""
from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import bandits  # noqa: E402
from bandits.rng import make_stream, randint  # noqa: E402
from treepolicies import search  # noqa: E402
from treepolicies.games import make_game  # noqa: E402
from tests.small_games import Triple  # noqa: E402
from treepolicies.games.openspiel import KEYED, OpenSpielChanceGame, OpenSpielGame, searchable_games  # noqa: E402


# -- loading and refusing ----------------------------------------------------------------------------

def test_a_game_by_name_and_its_options():
    g = make_game("openspiel:connect_four")
    assert isinstance(g, OpenSpielGame) and not isinstance(g, OpenSpielChanceGame)
    assert g.num_players == 2 and not g.general_sum and g.legal_moves() == list(range(7))
    small = make_game("openspiel:connect_four", columns=5, rows=4)
    assert small.legal_moves() == list(range(5)) and small.max_plies == 20
    assert isinstance(make_game("openspiel:pig(winscore=10)"), OpenSpielChanceGame)


@pytest.mark.parametrize("spec, words", [
    ("openspiel:kuhn_poker", "imperfect-information game"),
    ("openspiel:matrix_rps", "simultaneous-move game"),
    ("openspiel:no_such_game", "searchable games: "),
    ("openspiel:connect_four(rows=x)", "openspiel:connect_four(rows=x)"),
    ("openspiel:efg_game", "its parameters (defaults): filename=''"),
])
def test_what_cannot_be_searched_is_refused_in_one_line(spec, words):
    with pytest.raises(ValueError) as err:
        make_game(spec)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_an_illegal_move_and_a_bad_player_are_refused():
    g = make_game("openspiel:tic_tac_toe")
    g.play(4)
    with pytest.raises(ValueError, match="illegal move 4"):
        g.play(4)
    with pytest.raises(ValueError, match="player must be 0 .. 1"):
        g.reward(2)


# -- the same rules as our own games ----------------------------------------------------------------

@pytest.mark.parametrize("ours, theirs", [("tictactoe", "openspiel:tic_tac_toe"), ("connect4", "openspiel:connect_four")])
def test_random_games_go_move_for_move_as_in_our_own_implementation(ours, theirs):
    # Both encode a move the same way (Tic-Tac-Toe: cell 3 row + col; Connect Four: the column), so
    # the same random moves give the same legal moves, the same end and the same result.
    stream = make_stream(7)
    for _ in range(30):
        a, b = make_game(ours), make_game(theirs)
        while not a.terminal():
            assert sorted(a.legal_moves()) == b.legal_moves() and a.to_move == b.to_move and not b.terminal()
            mv = b.legal_moves()[randint(stream.state, len(b.legal_moves()))]
            a.play(mv)
            b.play(mv)
        assert b.terminal() and a.reward(0) == b.reward(0) and a.reward(1) == b.reward(1)


class _NoFastPlayout(OpenSpielGame):
    """The adapter without its own playout loop: the driver plays legal_moves/play itself."""
    random_playout = None


@pytest.mark.parametrize("spec", ["connect_four", "breakthrough(rows=5,columns=5)"])
def test_the_adapters_playout_makes_the_draws_of_the_drivers_own_loop(spec):
    # random_playout is a shortcut of treepolicies.mcts.pydriver.playout's loop (moves[randint(n)]
    # from the same stream), so a search with it and one without give the same tree, bit for bit.
    fast = make_game("openspiel:" + spec)
    slow = _NoFastPlayout(fast.game, fast.game.new_initial_state(), fast.spec)
    a, b = (search(g, "ucb1", iterations=300, seed=5, early_stop=False) for g in (fast, slow))
    assert a.moves == b.moves and np.array_equal(a.visits, b.visits) and np.array_equal(a.values, b.values)
    assert a.tree_size == b.tree_size
    # and the playout itself ends where the loop ends: a random game to its end from the same stream
    g, h = fast.copy(), slow.copy()
    s, t = make_stream(3), make_stream(3)
    g.random_playout(s)
    while not h.terminal():
        moves = h.legal_moves()
        h.play(moves[randint(t.state, len(moves))])
    assert str(g) == str(h) and g.reward(0) == h.reward(0) and np.array_equal(s.state, t.state)


def test_the_search_takes_a_win_and_blocks_a_loss():
    # X: 0, 1 (cell 2 wins); O: 4, 8 -- X to move takes 2; if instead O is to move it must block 2.
    g = make_game("openspiel:tic_tac_toe")
    for mv in (0, 4, 1, 8):
        g.play(mv)
    assert search(g, "ucb1", iterations=400, seed=1).move == 2
    h = make_game("openspiel:tic_tac_toe")
    for mv in (0, 4, 1):
        h.play(mv)
    assert search(h, "ucb1", iterations=2000, seed=1).move == 2


@pytest.mark.parametrize("opening", [(0, 4, 8), (4, 0, 1, 7)])
def test_the_solver_proves_what_it_proves_on_our_own_tic_tac_toe(opening):
    # Both positions are draws with best play (X corner, O centre, X opposite corner; and X centre,
    # O corner, X edge, O blocks): every root move's proof through OpenSpiel equals the proof of
    # our compiled game, and the best is 0.5.
    proofs = []
    for name in ("tictactoe", "openspiel:tic_tac_toe"):
        g = make_game(name)
        for mv in opening:
            g.play(mv)
        r = search(g, "ucb1", iterations=20000, seed=0, solver=True)
        assert r.stop_reason == "proven"
        proofs.append(dict(zip((int(m) for m in r.moves), r.proven)))
    assert proofs[0] == proofs[1] and max(proofs[1].values()) == 0.5



# -- the transposition key -----------------------------------------------------------------------

def _continue_alike(a, b, stream):
    """Play the same random moves in ``a`` and ``b`` to the end, asserting at each step what equal keys
    promise: the same legal moves, equal keys, and at the end the same returns."""
    while not a.terminal():
        assert not b.terminal() and a.legal_moves() == b.legal_moves() and hash(a) == hash(b) and a == b
        mv = a.legal_moves()[randint(stream.state, len(a.legal_moves()))]
        a.play(mv)
        b.play(mv)
    assert b.terminal() and list(a.state.returns()) == list(b.state.returns())


@pytest.mark.parametrize("name", KEYED)
def test_transposed_move_orders_meet_and_equal_keys_have_one_future(name):
    # Swap two moves of one player in a random history (plies i < j with the same mover): where the
    # other order is legal and reaches the same position it must give the same key, and the two
    # states must then behave as one (the key's promise, module docstring of games.openspiel).
    stream = make_stream(5)
    met = 0
    for _ in range(300):
        if met == 5:
            break
        g = make_game("openspiel:" + name)
        history, movers = [], []
        for _ in range(8):
            if g.terminal():
                break
            movers.append(g.to_move)
            history.append(g.legal_moves()[randint(stream.state, len(g.legal_moves()))])
            g.play(history[-1])
        pairs = [(i, j) for i in range(len(history)) for j in range(i + 1, len(history)) if movers[i] == movers[j]]
        if not pairs:
            continue
        i, j = pairs[randint(stream.state, len(pairs))]
        other = list(history)
        other[i], other[j] = other[j], other[i]
        h = make_game("openspiel:" + name)
        try:
            for mv in other:
                h.play(mv)
        except ValueError:  # the other order is not legal here
            continue
        if str(h) == str(g) and h.to_move == g.to_move:
            assert hash(h) == hash(g) and h == g
            met += 1
            _continue_alike(g, h, stream)
        else:
            assert hash(h) != hash(g) and h != g
    assert met == 5  # (the swaps do meet: a DAG over these keys has transpositions to share)


def test_the_key_is_the_same_in_every_process():
    # A digest, not Python's salted str hash: the key of a position is a fixed number.
    import subprocess
    import sys

    code = ("from treepolicies.games import make_game; g = make_game('openspiel:tic_tac_toe'); g.play(4); "
            "print(hash(g))")
    keys = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**__import__("os").environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2")}
    g = make_game("openspiel:tic_tac_toe")
    g.play(4)
    assert keys == {f"{hash(g)}\n"}


def test_the_solver_on_the_dag_proves_what_our_tic_tac_toe_proves():
    # The same draw position as above, searched with transpositions through the key: every root move's
    # proof equals the compiled game's (without transpositions), and the DAG shares positions (it keeps
    # fewer positions than the tree does for the same proof).
    g = make_game("openspiel:tic_tac_toe")
    ours = make_game("tictactoe")
    for mv in (0, 4, 8):
        g.play(mv)
        ours.play(mv)
    ref = search(ours, "ucb1", iterations=20000, seed=0, solver=True)
    dag = search(g, "ucb1", iterations=20000, seed=0, solver=True, transpositions=True)
    assert ref.stop_reason == dag.stop_reason == "proven"
    assert dict(zip((int(m) for m in dag.moves), dag.proven)) == dict(zip((int(m) for m in ref.moves), ref.proven))


def test_a_game_without_a_key_is_refused_with_the_reason():
    with pytest.raises(ValueError) as err:
        search(make_game("openspiel:checkers"), "ucb1", iterations=10, transpositions=True)
    assert "openspiel:checkers has no transposition key" in str(err.value) and "\n" not in str(err.value)


# -- chance nodes: expectimax ---------------------------------------------------------------------

class Gamble:
    """One player: choose 0 (a sure 0.6) or 1 (a chance node: win with 0.9, lose with 0.1; two
    outcomes, so a search drawing them uniformly would value it 0.5 and choose 0).

    Expectimax (hand-derived): value(0) = 0.6, value(1) = 0.9 * 1 + 0.1 * 0 = 0.9, so move 1."""

    num_players = 1

    def __init__(self):
        self.moves = []

    def copy(self):
        g = Gamble()
        g.moves = list(self.moves)
        return g

    @property
    def to_move(self):
        return -1 if self.moves == [1] else 0

    def legal_moves(self):
        return [] if self.terminal() else [0, 1]  # (at the chance node: its outcomes)

    def chance_outcomes(self):
        return [(0, 0.9), (1, 0.1)] if self.moves == [1] else []

    def play(self, move):
        self.moves.append(move)

    def terminal(self):
        return self.moves == [0] or len(self.moves) == 2

    def reward(self, player):
        if self.moves == [0]:
            return 0.6
        return 1.0 if self.moves[1] == 0 else 0.0


def test_chance_nodes_are_sampled_by_their_probabilities():
    r = search(Gamble(), "ucb1", iterations=3000, seed=3)
    assert r.move == 1
    # the mean of move 1 estimates 0.9 (binomial standard error sqrt(0.09 / n) < 0.01 for n > 900)
    i = list(r.moves).index(1)
    assert r.visits[i] > 900 and abs(r.values[i] - 0.9) < 0.04


def _expectimax(state):
    """Player 0's exact value of an OpenSpiel two-player zero-sum state in [-1, 1]: max for player
    0, min for player 1, the probability-weighted mean at a chance node (the whole tree, no memo)."""
    if state.is_terminal():
        return state.returns()[0]
    def child(a):
        c = state.clone()
        c.apply_action(a)
        return _expectimax(c)
    if state.is_chance_node():
        return sum(p * child(a) for a, p in state.chance_outcomes())
    values = [child(a) for a in state.legal_actions()]
    return max(values) if state.current_player() == 0 else min(values)


def test_pig_at_a_tiny_size_converges_to_its_expectimax_value():
    # Pig with a three-sided die, 6 points to win and 8 plies: OpenSpiel's own rules, valued
    # independently by full expectimax above (roll 0.212, stop -0.167 in [-1, 1]: roll).  The
    # search's mean of its best move estimates that move's value scaled to [0, 1], (v + 1) / 2
    # (the rarely visited stop is not converged, so only the best move is compared; standard
    # error about sqrt(0.24 / 4600) = 0.007).
    spec = "pig(winscore=6,diceoutcomes=3,horizon=8)"
    g = make_game("openspiel:" + spec)
    exact = {}
    for a in g.legal_moves():
        s = pyspiel.load_game(spec).new_initial_state()
        s.apply_action(a)
        exact[a] = (_expectimax(s) + 1.0) / 2.0
    best = max(exact, key=exact.get)
    r = search(g, "ucb1", iterations=5000, seed=1, early_stop=False)
    assert r.move == best
    assert abs(r.values[list(r.moves).index(best)] - exact[best]) < 0.025


# -- more than two players: max^n -------------------------------------------------------------------

def test_three_players_back_up_each_players_own_value():
    r = search(Triple(), "ucb1", iterations=3000, seed=5)
    assert r.move == 1
    # the root's means are player 0's: about 0.2 after 0 and 0.4 after 1 (player 1 exploring its
    # other move pulls each a little towards 0.9 and 0.5)
    v = dict(zip(r.moves, r.values))
    assert abs(v[0] - 0.2) < 0.1 and abs(v[1] - 0.4) < 0.1


def test_each_row_records_the_value_of_the_player_who_moved_into_it():
    # Hand-traced backup: a row's reward sum is its first visit's playout result plus, for each
    # child, the child's visits times the payoff of the row's own mover (every child is terminal).
    from bandits.stats import COUNT, MEAN

    r = search(Triple(), "ucb1", iterations=60, seed=2)
    t = r.tree.arrays
    for q in range(int(t.first[0]), int(t.first[0]) + int(t.nchild[0])):
        m0 = int(t.move[q])
        f, n = int(t.first[q]), int(t.nchild[q])
        assert t.mover[q] == 0 and n == 2
        total = t.stats[COUNT, q] * t.stats[MEAN, q]
        children = sum(t.stats[COUNT, c] * Triple.PAY[(m0, int(t.move[c]))][0] for c in range(f, f + n))
        first = total - children  # the playout of q's first visit: one of its two payoffs for player 0
        assert min(abs(first - Triple.PAY[(m0, b)][0]) for b in (0, 1)) < 1e-9
        for c in range(f, f + n):  # a terminal child's mean is the payoff of player 1, who moved into it
            assert t.mover[c] == 1 and abs(t.stats[MEAN, c] - Triple.PAY[(m0, int(t.move[c]))][1]) < 1e-12


# -- the contract on every searchable game ---------------------------------------------------------

#: games of the default tier (the rest run with --slow): two-player zero-sum, chance, general-sum, one player
QUICK = ("tic_tac_toe", "pig", "catch", "breakthrough", "oware", "2048")


def _conformance(name, iterations):
    g = make_game("openspiel:" + name)
    stream = make_stream(11)
    for depth in (0, 3):
        h = g.copy()
        for _ in range(depth):
            if h.terminal():
                break
            outcomes = getattr(h, "chance_outcomes", lambda: [])()
            moves = [a for a, _ in outcomes] if outcomes else h.legal_moves()
            h.play(moves[randint(stream.state, len(moves))])
        while not h.terminal() and getattr(h, "chance_outcomes", lambda: [])():
            h.play(h.chance_outcomes()[0][0])
        if h.terminal():
            continue
        r = search(h, "ucb1", iterations=iterations, seed=depth)
        # (every iteration passes through one root move; the early stop may end the search first)
        assert r.move in h.legal_moves() and int(r.visits.sum()) == r.iterations
        assert r.iterations == iterations or r.stop_reason == "early"
        assert np.all((r.values >= 0.0) & (r.values <= 1.0))


@pytest.mark.parametrize("name", QUICK)
def test_a_searchable_game_of_each_kind_searches(name):
    assert name in searchable_games()
    _conformance(name, 60)


_LOADABLE = {t.short_name for t in pyspiel.registered_games() if t.default_loadable}  # (efg_game needs a file)


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in searchable_games() if n not in QUICK and n in _LOADABLE])
def test_every_searchable_game_searches(name):
    _conformance(name, 30)


def test_a_zoo_policy_and_a_plugin_policy_play_a_chance_game_to_its_end():
    import os

    bandits.load_plugin(os.path.join(os.path.dirname(__file__), "plugin_policies.py"))  # (t_ucb1tuned)

    g = make_game("openspiel:pig", winscore=10)
    stream = make_stream(4)
    specs = ("klucb", "t_ucb1tuned")
    plies = 0
    while not g.terminal():
        outcomes = g.chance_outcomes()
        if outcomes:
            g.play(outcomes[randint(stream.state, len(outcomes))][0])
            continue
        mv = search(g, specs[g.to_move], iterations=80, seed=plies).move
        assert mv in g.legal_moves()
        g.play(mv)
        plies += 1
    assert sorted((g.reward(0), g.reward(1))) == [0.0, 1.0]


# -- what the general backup does not combine with -------------------------------------------------

@pytest.mark.parametrize("option, words", [
    (dict(solver=True), "solver=true does not combine with"),
    (dict(rave=True), "rave=true does not combine with"),
    (dict(transpositions=True), "transpositions=true does not combine with"),
    (dict(fpu="parent"), "fpu='parent' does not combine with"),
])
def test_options_that_need_two_players_are_refused_for_a_general_game(option, words):
    with pytest.raises(ValueError) as err:
        search(make_game("openspiel:pig"), "ucb1", iterations=10, **option)
    assert words in str(err.value) and "chance nodes" in str(err.value)


def test_a_search_at_a_chance_node_is_refused():
    g = make_game("openspiel:pig")
    g.play(0)  # roll: a chance node
    with pytest.raises(ValueError, match="chance node"):
        search(g, "ucb1", iterations=10)


def test_a_match_on_a_chance_game_draws_its_dice_from_its_seed():
    # The referee draws pig's die rolls from its own stream: the same seed gives the same game, and
    # every drawn roll is one of the die's six faces (pig: action 0 roll, 1 stop; outcomes 0..5).
    from treepolicies.match import play_game
    from treepolicies.players import make_player

    g = make_game("openspiel:pig", winscore=10)
    a, b = make_player("ucb1:reuse=true", playouts=60), make_player("random")  # (a reused tree keeps its chance nodes)
    first, second = play_game(g, a, b, seed=3), play_game(g, a, b, seed=3)
    assert first.moves == second.moves and first.winner == second.winner in (0, 1)
    assert play_game(g, a, b, seed=4).moves != first.moves
    with pytest.raises(ValueError, match="play_game is for two players; openspiel:catch has 1: use play_seats"):
        play_game(make_game("openspiel:catch"), a, b, seed=0)


def test_a_three_player_match_rotates_the_seats_and_scales_the_returns():
    # pig with three players: the winner's return is 1, each other's -1/2 (pig.cc: -1 / (n - 1)), and the
    # utility bounds are [-1, 1], so the rewards of a game are 1 for one seat and (-1/2 + 1) / 2 = 1/4 for
    # the two others; seats rotate (player (s + i) % 3 in seat s of game i), and a seed replays a match.
    from treepolicies import match_seats
    from treepolicies.players import make_player

    g = make_game("openspiel:pig(players=3,winscore=10)")
    players = [make_player("ucb1", playouts=30), make_player("klucb", playouts=30), make_player("random")]
    r = match_seats(players, g, 6, seed=2)
    for rec in r.records:
        assert sorted(rec.rewards) == [0.25, 0.25, 1.0]
    assert [rec.players[0] for rec in r.records] == [p.name for p in players] * 2
    assert all(len(seat) == 2 for player in r.scores for seat in player)
    assert r.records[0].moves == match_seats(players, g, 1, seed=2).records[0].moves


def test_the_match_command_plays_three_seats(capsys):
    # banditree match with one spec a seat prints each player's score, its interval and its mean by seat;
    # what only two-player matches have is refused in one line.
    from testbeds.cli import main
    from treepolicies import make_player, match_seats

    argv = ["match", "--game", "openspiel:pig(players=3,winscore=10)", "--players", "ucb1", "klucb", "random",
            "--playouts", "30", "--games", "6", "--seed", "2", "--no-progress"]
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    ref = match_seats([make_player(s, playouts=30) for s in ("ucb1", "klucb", "random")],
                      make_game("openspiel:pig(players=3,winscore=10)"), 6, seed=2)
    assert out[0] == "game openspiel:pig(players=3,winscore=10): 3 seats, 6 games, seats rotated"
    assert out[1].startswith(f"player 1 ucb1: score {ref.score(0):.4f}, Wilson 95% interval [{ref.interval(0)[0]:.4f}")
    assert main(argv + ["--workers", "2"]) == 2
    assert "--workers is for two-player matches" in capsys.readouterr().err
    assert main(argv[:3] + ["--a", "ucb1", "--b", "random", "--playouts", "5"]) == 2
    assert "has 3 players: give one spec a seat with --players" in capsys.readouterr().err


# -- the commands --------------------------------------------------------------------------------

def test_tables_run_their_grid_on_an_openspiel_game(tmp_path, capsys):
    # A cell of the grid is the match `banditree match --a MI --b ucb1:c=C` at the same seed (the
    # tables command's definition): the same wins, draws and losses.
    import csv

    from testbeds.cli import main

    db, out = tmp_path / "t.sqlite", tmp_path / "out"
    assert main(["tables", "--game", "openspiel:tic_tac_toe", "--c", "0.5", "--playouts", "20", "--games", "4",
                 "--workers", "1", "--no-progress", "--db", str(db), "--out", str(out)]) == 0
    capsys.readouterr()
    row = next(csv.DictReader(open(out / "table.csv")))
    assert main(["match", "--game", "openspiel:tic_tac_toe", "--a", "miucb:episodic=true", "--b", "ucb1:c=0.5",
                 "--playouts", "20", "--games", "4", "--no-progress"]) == 0
    line = [x for x in capsys.readouterr().out.splitlines() if x.startswith("A: ")][0]
    assert line == f"A: {row['wins']} wins, {row['draws']} draws, {row['losses']} losses in 4 games"
    assert (out / "table.md").read_text().startswith("# Mi-UCT against UCT, openspiel:tic_tac_toe, seed 0")


@pytest.mark.parametrize("command", ["tables", "tune"])
def test_commands_of_two_player_matches_refuse_more_players(tmp_path, capsys, command):
    from testbeds.cli import main

    argv = {"tables": ["tables", "--game", "openspiel:pig(players=3)", "--c", "0.5", "--playouts", "5"],
            "tune": ["tune", "--game", "openspiel:pig(players=3)", "--player", "ucb1:c={c}", "--grid", "c=1,2",
                     "--against", "random", "--playouts", "5"]}[command]
    assert main(argv + ["--db", str(tmp_path / "x.sqlite"), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert f"has 3 players: banditree {command} plays two-player matches" in err and err.count("\n") == 1
    assert not (tmp_path / "x.sqlite").exists() and not (tmp_path / "o").exists()


def test_tune_picks_a_candidate_on_an_openspiel_game(tmp_path, capsys):
    # c=0.05 against c=5 (two orders of magnitude apart) on tic-tac-toe against a random player: the
    # rounds are the ones the schedule gives (one round of 2 games each for 2 candidates at budget 4)
    import json

    from testbeds.cli import main

    out = tmp_path / "tune"
    assert main(["tune", "--game", "openspiel:tic_tac_toe", "--player", "ucb1:c={c}", "--grid", "c=0.05,5",
                 "--against", "random", "--playouts", "30", "--budget", "4", "--out", str(out), "--no-progress"]) == 0
    saved = json.loads((out / "tune.json").read_text())
    assert saved["tune"]["game"] == "openspiel:tic_tac_toe"
    assert saved["rounds"] == [{"round": 0, "candidates": ["ucb1:c=0.05", "ucb1:c=5"], "games_each": 2,
                                "kept": [saved["standings"][0]["spec"]]}]
    assert [s["wins"] + s["draws"] + s["losses"] for s in saved["standings"]] == [2, 2]
    assert f"best: {saved['standings'][0]['spec']} " in capsys.readouterr().out


def test_analyze_searches_an_openspiel_position(tmp_path, capsys):
    # --moves are OpenSpiel's action strings (Breakthrough 6x6: black a5a4, then white a2a3); the search
    # record is the search of that position with the same seed and budget.
    import json

    from testbeds.cli import main

    out = tmp_path / "an"
    assert main(["analyze", "--game", "openspiel:breakthrough(rows=6,columns=6)", "--moves", "a5a4 a2a3",
                 "--playouts", "200", "--out", str(out), "--no-progress"]) == 0
    record = json.loads((out / "search.json").read_text())["record"]
    g = make_game("openspiel:breakthrough(rows=6,columns=6)")
    for text in ("a5a4", "a2a3"):
        g.play(g.str_to_move(text))
    assert record["iterations"] == 200 and g.str_to_move(record["move"]) in g.legal_moves()
    assert "openspiel:breakthrough(rows=6,columns=6): move " in capsys.readouterr().out
