"""Capabilities declared once (treepolicies.mcts.capabilities): every declared refusal is one line naming
both sides; every pair the table calls supported runs, every pair it refuses is refused for the
reason it gives; docs/options.md's tables are the declarations'."""
import os

import numpy as np
import pytest

from treepolicies import make_game, search
from treepolicies.games.connect4 import ConnectFour
from treepolicies.mcts import capabilities as cap
from treepolicies.mcts.options import OPTIONS, SearchOptions

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def half(states, moves, counts):
    """An evaluator: uniform priors, value 1/2."""
    return np.ones(moves.shape), np.full(len(states), 0.5)


def test_the_docs_tables_are_the_declarations():
    with open(os.path.join(ROOT, "docs", "options.md")) as fh:
        text = fh.read()
    assert cap.generated_docs() in text  # regenerate: python -m treepolicies.mcts.write_docs docs/options.md
    for name in OPTIONS:  # every declared option has its row, with its default
        assert f"| `{name}` |" in text


class NoKey:
    """A Python game without a position hash (the identity hash only)."""

    to_move = 0

    def copy(self):
        return NoKey()

    def legal_moves(self):
        return [0, 1]

    def play(self, move):
        self.to_move = 1
        self.done = True

    def terminal(self):
        return getattr(self, "done", False)

    def reward(self, player):
        return 1.0 if player == 0 else 0.0


class GeneralSumFour(ConnectFour):
    """Connect Four declared general-sum: the same rewards, searched by the general backup
    (treepolicies.mcts.tree.backup_values) from Python, with Connect Four's kernels (its rollouts
    and priors)."""

    general_sum = True


#: one search per declared refusal: (game, search keywords, the start of its one-line refusal)
REFUSALS = [
    ("nim", dict(threads=2, parallel="tree"), "parallel='tree' does not combine with a game searched from Python (nim)"),
    ("nim", dict(threads=2, parallel="leaf"), "parallel='leaf' does not combine with a game searched from Python (nim)"),
    ("connect4", dict(threads=2, parallel="leaf", evaluator=half),
     "parallel='leaf' needs a playout at the leaf: evaluator=... with value_mix=0 plays none"),
    ("nokey", dict(compiled=True), "compiled=True needs a compiled game (with kernels): NoKey is a Python game"),
    ("nokey", dict(transpositions=True), "transpositions=true needs a position key: NoKey has only the identity hash"),
    ("tictactoe", dict(rollout="heuristic"), "rollout='heuristic' needs a rollout the game offers: tictactoe offers "
                                             "random"),
    ("nim", dict(rave=True, rollout_cap=3), "rollout_cap needs a way to score an unfinished position: give Nim a "
                                            "value(player) method"),
    ("nim", dict(prior="heuristic"), "prior='heuristic' needs a prior the game offers: nim offers uniform"),
    ("nim", dict(evaluator=half), "evaluator does not combine with a game searched from Python (nim)"),
    ("connect4", dict(evaluator=half, prior="heuristic"), "evaluator needs the children's priors from one source: "
                                                           "prior='heuristic' and the evaluator are two sources"),
    ("nim", dict(specialize=True), "specialize=true does not combine with a game searched from Python (nim)"),
    ("connect4", dict(specialize=True, policy="t_scipy_ucb"),
     "specialize=true needs a policy numba compiles: 't_scipy_ucb:c=1.0' runs as plain Python"),
    ("general", dict(compiled=True), "compiled=True does not combine with a game with chance nodes, other than two "
                                     "players or general-sum (connect4): the compiled loops back up"),
    ("general", dict(solver=True), "solver=true does not combine with a game with chance nodes"),
    ("general", dict(rave=True), "rave=true does not combine with a game with chance nodes"),
    ("general", dict(transpositions=True), "transpositions=true does not combine with a game with chance nodes"),
    ("general", dict(fpu="parent"), "fpu='parent' does not combine with a game with chance nodes"),
    ("connect4", dict(threads=2, parallel="root", final="recommend"),
     "final='recommend' does not combine with parallel='root'"),
    ("tictactoe", dict(transpositions=True, policy="hmcts"),
     "a policy that hands budgets down (hmcts) does not combine with transpositions=true: a node's budget"),
    ("tictactoe", dict(root_policy="seqhalving", policy="shot"),
     "a policy that hands budgets down (shot) needs a root policy that hands budgets down too, or none: the root's "
     "children would read the per-arm state of root_policy=seqhalving"),
    ("connect4", dict(threads=2, parallel="leaf", rollout="mast"),
     "parallel='leaf' needs a rollout without search-wide statistics: rollout='mast' is a playout policy"),
    ("general", dict(rollout="lgrf1"), "rollout='lgrf1' needs two players who alternate: connect4 has chance nodes"),
]


def _game(name):
    return NoKey() if name == "nokey" else GeneralSumFour() if name == "general" else make_game(name)


@pytest.mark.parametrize("game_name, kw, words", REFUSALS, ids=[w[:40] for _, _, w in REFUSALS])
def test_every_declared_refusal_is_one_line_naming_both_sides(game_name, kw, words):
    import bandits

    bandits.load_plugin(os.path.join(ROOT, "tests", "plugin_policies.py"))  # (t_scipy_ucb: numba cannot compile it)
    kw = dict(kw)
    policy = kw.pop("policy", "ucb1")
    with pytest.raises(ValueError) as err:
        search(_game(game_name), policy, iterations=20, **kw)
    assert str(err.value).startswith(words) and "\n" not in str(err.value)


def test_the_refusal_cases_cover_every_declaration():
    declared = sum(len(f.excludes) + len(f.needs) for f in cap.FEATURES)
    # (the root-parallel reuse refusal and the transpositions' reuse refusal need a tree: tested in
    # test_parallel.py and test_transpositions.py; rave's rollout kernel: test_enhancement_conformance.py)
    assert len(REFUSALS) + 3 == declared


#: a value of each row's option, and the search keywords of each column
ROW_VALUES = {"root_policy": dict(root_policy="thompson:prior=beta"), "solver": dict(solver=True),
              "specialize": dict(specialize=True), "rave": dict(rave=True, grave_ref=4),
              "rollout": dict(rollout="heuristic"), "rollout_cap": dict(rollout_cap=5),
              "reward_bounds": dict(reward_bounds=(-1.0, 2.0)), "fpu": dict(fpu="parent", fpu_reduction=0.1),
              "prior": dict(prior="heuristic"), "widen_k": dict(widen_k=2.0),
              "evaluator": dict(evaluator=half, value_mix=0.5), "transpositions": dict(transpositions=True),
              "final": dict(final="recommend", root_policy="seqhalving"),
              "shot, hmcts": dict(policy="shot"),   # (the tree policy: SHOT at every node)
              "prior_visits": dict(prior_visits=10.0)}
COLUMN_KW = {"one thread": {}, "parallel='tree'": dict(threads=2), "parallel='leaf'": dict(threads=2, parallel="leaf"),
             "parallel='root'": dict(threads=2, parallel="root"), "transpositions": dict(transpositions=True),
             "Python game": dict(compiled=False), "chance or n players": dict(compiled=False)}
#: the cells the default tier runs (the rest with --slow): each row once and each column once, and the
#: whole column of general games (searched from Python: no compiled loop of its own)
_LOOPS = [col for col in COLUMN_KW if col != "chance or n players"]
DIAGONAL = {(row, _LOOPS[i % len(_LOOPS)]) for i, row in enumerate(cap.TABLE_ROWS[:14])} | {
    (row, "chance or n players") for row in cap.TABLE_ROWS} | {("prior_visits", "one thread")}
# (prior_visits, the fifteenth row, would fall on leaf parallelism, whose enhanced loop only the slow
# tier compiles: its default cell is one thread's)


def test_every_row_and_column_of_the_table_is_tested():
    assert set(ROW_VALUES) == set(cap.TABLE_ROWS) and set(COLUMN_KW) == set(cap.COLUMNS)


def _cells():
    out = []
    for row in cap.TABLE_ROWS:
        for col in cap.COLUMNS:
            marks = () if (row, col) in DIAGONAL else pytest.mark.slow
            out.append(pytest.param(row, col, marks=marks, id=f"{row}-{col}"))
    return out


@pytest.mark.parametrize("row, col", _cells())
def test_each_cell_of_the_table_is_what_a_search_does(row, col):
    kw = {**ROW_VALUES[row], **COLUMN_KW[col]}
    policy = kw.pop("policy", "ucb1:c=0.5")
    cell = cap._cell(row, col)
    game = make_game("connect4")
    if col == "chance or n players":
        # A general game is searched from Python (compiled=None chooses the Python driver), so where
        # its own cell says yes the Python game's cell holds as well.
        game = GeneralSumFour()
        if cell == "yes":
            cell = cap._cell(row, "Python game")
    if cell.startswith("no: "):
        with pytest.raises(ValueError) as err:
            search(game, policy, iterations=60, seed=0, **kw)
        assert cell[4:] in str(err.value) and "\n" not in str(err.value)
        return
    r = search(game, policy, iterations=60, seed=0, early_stop=False, **kw)
    assert r.iterations == 60 and r.move in game.legal_moves()


def test_options_record_and_keywords_are_the_same_search():
    # search() takes an options record, keywords (the same names), or both (keywords replace fields)
    o = SearchOptions(rave=True, final="max")
    a = search(make_game("connect4"), "ucb1", iterations=300, seed=1, options=o)
    b = search(make_game("connect4"), "ucb1", iterations=300, seed=1, rave=True, final="max")
    c = search(make_game("connect4"), "ucb1", iterations=300, seed=1, options=SearchOptions(final="max"), rave=True)
    assert np.array_equal(a.visits, b.visits) and np.array_equal(b.visits, c.visits) and a.move == b.move == c.move
    with pytest.raises(ValueError, match="unknown search option 'rav'; valid options: final, solver"):
        search(make_game("connect4"), "ucb1", iterations=10, rav=True)
