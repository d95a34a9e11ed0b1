"""Root schemes for simple regret (docs/root-policies.md): sequential halving's schedules, SR+CR's
samplers, the Gumbel root and interior, and ``final="recommend"``."""
import math

import numpy as np
import pytest

from bandits import make_policy
from bandits.rng import Stream
from bandits.stats import COUNT, MEAN, NVIEW, PRIOR, SUM
from bandits.zoo.gumbel import considered_visit, gumbel_select, gumbelq_select, sigma_completed_q
from test_evaluator import exact, positions_with_a_forced_win, value_of
from test_root_policy import Arms, root_ucb  # noqa: F401  (root_ucb: a user's plugin policy, registered there)
from treepolicies import make_game, make_player, search


class Fixed(Arms):
    """A one-move game whose move k ends it with reward rewards[k] (no noise)."""

    def __init__(self, rewards):
        super().__init__(rewards, None)

    def copy(self):
        new = Fixed(self.probs)
        new.result, new.to_move = self.result, self.to_move
        return new

    def play(self, k):
        self.result = float(self.probs[k])
        self.to_move = 1


# -- sequential halving's schedules -------------------------------------------------------------------

@pytest.mark.parametrize("rewards, budget, visits", [
    # K = 4, T = 8: R = ceil(log2 4) = 2 rounds; round 0: floor(8 / (4 * 2)) = 1 pull each (4);
    # the two best (0.9, 0.8) then floor(8 / (2 * 2)) = 2 more each (4): 8 pulls, the budget used
    # exactly, so the last halving is made by the recommendation
    ([0.2, 0.9, 0.5, 0.8], 8, [1, 3, 1, 3]),
    # K = 5, T = 30: R = 3; round 0: floor(30 / 15) = 2 each (10); the best 3 (0.5, 0.7, 0.9):
    # floor(30 / 9) = 3 more (9); the best 2: floor(30 / 6) = 5 more (10); 29 pulls, the last one
    # goes to the survivor (0.9): 2, 2, 2 + 3, 5 + 5, 10 + 1
    ([0.1, 0.3, 0.5, 0.7, 0.9], 30, [2, 2, 5, 10, 11]),
    # K = 3, T = 12: R = 2; floor(12 / 6) = 2 each (6); the best 2: floor(12 / 4) = 3 more (6): exact
    ([0.6, 0.2, 0.4], 12, [5, 2, 5]),
])
def test_sequential_halving_at_the_root_gives_the_visits_of_its_formula(rewards, budget, visits):
    r = search(Fixed(rewards), "ucb1", iterations=budget, seed=0, root_policy="seqhalving", final="recommend",
               early_stop=False)
    assert r.visits.tolist() == visits
    assert r.move == int(np.argmax(rewards))


def test_an_exact_budget_ends_with_the_last_halving():
    # K = 4, T = 8 with Bernoulli arms: round 0 pulls each arm once, round 1 pulls the two survivors
    # twice each; the budget is used exactly, so the recommendation must make round 1's halving:
    # the survivor of the higher round-1 mean (recomputed here from the rewards the search drew),
    # which need not be the arm of the higher overall mean.
    probs = [0.5, 0.45, 0.55, 0.5]
    checked = 0
    for seed in range(40):
        game = Arms(probs, np.random.default_rng(seed))
        r = search(game, "ucb1", iterations=8, seed=Stream(seed), root_policy="seqhalving", final="recommend",
                   early_stop=False)
        draws = np.random.default_rng(seed)  # the same rewards, in the order the search played them
        policy = make_policy("seqhalving").bind(8)
        batch = policy.init(1, 4)
        stream, round1 = Stream(seed), {}
        for step in range(8):
            arm = int(policy.select(batch, stream)[0])
            reward = float(draws.random() < probs[arm])
            policy.update(batch, np.array([arm]), np.array([reward]))
            if step >= 4:
                round1.setdefault(arm, []).append(reward)
        assert sorted(len(v) for v in round1.values()) == [2, 2]
        means = {a: np.mean(v) for a, v in round1.items()}
        if len(set(means.values())) == 2:  # (a tie is broken at random)
            assert r.move == max(means, key=means.get)
            checked += 1
    assert checked >= 10


def _mctx_sequence(m, budget):
    """mctx's documented rule for the visit counts of sequential halving with Gumbel (get_sequence_of_
    considered_visits): phases of m, m/2, ... (at least 2) arms; each phase gives its arms
    max(1, floor(T / (ceil(log2 m) * arms))) extra visits, one round of the arms at a time; the n-th
    simulation goes to an arm whose visits equal the n-th entry."""
    if m <= 1:
        return list(range(budget))
    log2max = math.ceil(math.log2(m))
    sequence, visits, arms = [], [0] * m, m
    while len(sequence) < budget:
        for _ in range(max(1, budget // (log2max * arms))):
            sequence.extend(visits[:arms])
            visits[:arms] = [v + 1 for v in visits[:arms]]
        arms = max(2, arms // 2)
    return sequence[:budget]


def test_considered_visits_equal_mctx_s_table():
    # by hand: m = 4, T = 12: log2 4 = 2; phase 1: 4 arms, floor(12 / 8) = 1 visit each (0 0 0 0);
    # phase 2: 2 arms, floor(12 / 4) = 3 visits each (1 1 2 2 3 3); phase 3 (2 arms) starts (4 4)
    assert [considered_visit(4, 12.0, n) for n in range(12)] == [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
    for m in (2, 4, 16):
        for budget in range(2, 65):
            assert [considered_visit(m, float(budget), n) for n in range(budget)] == _mctx_sequence(m, budget), \
                (m, budget)


# -- one level: the search is the bandit --------------------------------------------------------------

@pytest.mark.parametrize("root", ["halfgreedy", "ucbsqrt:c=2", "gumbel:m=4", "gumbel", "seqhalving", "sr"])
def test_a_one_level_tree_makes_the_root_scheme_s_choices_and_recommendation(root):
    # the root's visits and means are the pulls and means of the root policy on one bandit with the
    # same rewards and stream, and final="recommend" is the policy's recommend after them
    n = 200
    r = search(Arms([0.2, 0.5, 0.45, 0.7, 0.1], np.random.default_rng(5)), "ucb1", iterations=n, seed=Stream(7),
               early_stop=False, root_policy=root, final="recommend")
    policy = make_policy(root)
    policy = policy.bind(n) if policy.needs_horizon else policy
    batch = policy.init(1, 5)
    rewards, stream = np.random.default_rng(5), Stream(7)
    for _ in range(n):
        arm = policy.select(batch, stream)
        policy.update(batch, arm, np.array([float(rewards.random() < [0.2, 0.5, 0.45, 0.7, 0.1][arm[0]])]))
    assert r.visits.tolist() == batch.counts[0].tolist()
    assert np.array_equal(r.values, batch.means[0])
    assert r.move == int(policy.recommend(batch, stream)[0])
    assert r.visits.sum() == n  # (the budget accounting of SR+CR: every iteration is one root visit)


# -- the Gumbel root and interior ---------------------------------------------------------------------

def _node(counts, means, priors):
    stats = np.zeros((NVIEW, len(counts)))
    stats[COUNT], stats[MEAN], stats[PRIOR] = counts, means, priors
    stats[SUM] = stats[COUNT] * stats[MEAN]
    return stats


def test_completed_q_on_a_hand_built_node():
    # N = (2, 0, 1), Q = (0.6, -, 0.3), p = (0.5, 0.3, 0.2), c_visit 50, c_scale 1:
    # v_hat = (2 * 0.6 + 1 * 0.3) / 3 = 0.5; the visited arms' prior-weighted Q = (0.5 * 0.6 + 0.2 * 0.3)
    # / 0.7 = 0.36 / 0.7; v_mix = (0.5 + 3 * 0.36 / 0.7) / 4 = 0.5107142857...; completed Q = (0.6,
    # v_mix, 0.3), rescaled by (q - 0.3) / 0.3 = (1, 0.7023809..., 0); sigma = (50 + 2) * that
    stats = _node([2, 0, 1], [0.6, 0.0, 0.3], [0.5, 0.3, 0.2])
    out = np.empty(3)
    sigma_completed_q(50.0, 1.0, 0.5, stats, np.ones(3, bool), out)
    v_mix = (0.5 + 3 * 0.36 / 0.7) / 4
    assert np.allclose(out, [52.0, 52.0 * (v_mix - 0.3) / 0.3, 0.0])
    # interior (gumbelq) with c_scale 0.02: l + sigma = log p + 1.04 (1, 0.70238, 0) =
    # (0.3469, -0.4735, -1.6094); softmax = (0.6323, 0.2784, 0.0894); minus N / (1 + 3) =
    # (0.1323, 0.2784, -0.1606): arm 1, although arm 0 has the best mean and the best prior
    pi = np.exp(np.log([0.5, 0.3, 0.2]) + 1.04 * np.array([1.0, (v_mix - 0.3) / 0.3, 0.0]))
    pi /= pi.sum()
    assert np.allclose(pi, [0.6323, 0.2784, 0.0894], atol=1e-4)
    params = np.array([50.0, 0.02, 0.5])
    assert gumbelq_select(params, np.zeros(1), np.zeros((1, 3)), stats, np.ones(3, bool), 3.0, Stream(0).state,
                          np.empty(3)) == 1


def test_gumbel_considers_the_top_m_of_g_plus_logits():
    # fixed draws g and priors p: g + log p = (1.5 - 2.303, -0.2 - 0.916, 0.3 - 1.609, 0 - 1.609, 0.4 - 2.303)
    # = (-0.803, -1.116, -1.309, -1.609, -1.903): with m = 2 and T = 8 (one phase of 2 arms: visits
    # 0 0 1 1 2 2 3 3) the first two simulations take arms 0 and 1 (the unvisited arms share one
    # completed Q, so sigma does not reorder them) and every later one is arm 0 or 1
    g = np.array([[1.5, -0.2, 0.3, 0.0, 0.4]])
    p = np.array([0.1, 0.4, 0.2, 0.2, 0.1])
    params = np.array([8.0, 2.0, 50.0, 1.0, 0.5])
    state = np.array([1.0])  # drawn
    stats = _node([0] * 5, [0.0] * 5, p)
    rewards = [0.3, 0.6, 0.9, 0.9, 0.9]  # (the arms outside the considered set would be better)
    taken = []
    for _ in range(8):
        arm = gumbel_select(params, state, g, stats, np.ones(5, bool), stats[COUNT].sum(), Stream(1).state,
                            np.empty(5))
        taken.append(arm)
        stats[SUM, arm] += rewards[arm]
        stats[COUNT, arm] += 1
        stats[MEAN, arm] = stats[SUM, arm] / stats[COUNT, arm]
    assert taken[:2] == [0, 1] and set(taken) == {0, 1}
    assert stats[COUNT].tolist() == [4, 4, 0, 0, 0]


@pytest.mark.slow  # (the evaluator's loop with a root policy compiles outside the default tier)
def test_the_gumbel_root_finds_every_forced_win_at_16_simulations():
    # exact values (tic-tac-toe's minimax value as the evaluator's) and uniform priors: the Gumbel root
    # visits every move once (K <= 7 < m = 16), then halves on g + l + sigma, where a winning move's
    # completed Q (1) puts sigma >= 51 above a non-winning one's 0 or 1/2 rescaled
    found = positions_with_a_forced_win(30)
    for g in found:
        move = search(g, "gumbelq", iterations=16, seed=0, evaluator=exact, root_policy="gumbel",
                      final="recommend").move
        h = g.copy()
        h.play(move)
        assert (h.terminal() and h.reward(g.to_move) == 1.0) or value_of(h.state) == 0.0, str(g)


# -- the slot's options -------------------------------------------------------------------------------

def test_final_recommend_in_player_specs_and_its_refusal():
    p = make_player("ucb1:c=0.5,root_policy=(gumbel:m=4,c_scale=0.1),final=recommend", playouts=100)
    assert p.options.root_policy == "gumbel:m=4,c_scale=0.1" and p.options.final == "recommend"
    assert p.choose(make_game("connect4"), 0) in range(7)
    with pytest.raises(ValueError, match="final='recommend' does not combine with parallel='root'"):
        search(make_game("connect4"), "ucb1", iterations=100, threads=2, parallel="root", final="recommend")
    with pytest.raises(ValueError, match="final must be"):
        search(make_game("connect4"), "ucb1", iterations=100, final="best")


def test_the_tree_policy_recommends_without_a_root_policy():
    # final="recommend" without a root policy: the tree policy's recommend (UCB1's default: the best
    # mean, ties at random); on one level that is the arm of the highest mean
    r = search(Fixed([0.2, 0.9, 0.5]), "ucb1", iterations=30, seed=0, final="recommend", early_stop=False)
    assert r.move == 1


@pytest.mark.parametrize("game", ["connect4", "nim"])
@pytest.mark.parametrize("root", ["seqhalving", "halfgreedy", "ucbsqrt", "gumbel"])
def test_every_scheme_with_a_plugin_below_plays_legal_moves(game, root):
    g = make_game(game, stones=9) if game == "nim" else make_game(game)
    for final in ("recommend", "robust"):
        r = search(g, "root_ucb:c=0.7", iterations=300, seed=2, root_policy=root, final=final)
        assert r.move in g.legal_moves() and r.visits.sum() == r.iterations


GAMES = [("tictactoe", {}), ("connect4", {}), ("go", {"size": 5}), ("nogo", {"size": 5})]
MODES = {"one thread": {}, "parallel='tree'": dict(threads=2, parallel="tree"),
         "parallel='leaf'": dict(threads=2, parallel="leaf")}


@pytest.mark.slow  # (the root loops of Go, NoGo and the threaded executors compile outside the default tier)
@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("game_name, options", GAMES, ids=[g for g, _ in GAMES])
def test_every_scheme_on_every_compiled_game_and_executor_keeps_the_tree_s_accounts(game_name, options, mode):
    # conformance: each root scheme over a user's plugin (root_ucb) on each compiled game and executor:
    # a legal move, root visits = the iterations (SR+CR's and the halving schemes' budget accounting),
    # and under tree parallelism the tree's invariants (test_parallel.check_tree: counts add up, no
    # virtual loss left, blocks allocated once); final=recommend is the scheme's own recommendation,
    # recomputed here from the root's statistics for the best-mean samplers
    from test_parallel import check_tree

    game = make_game(game_name, **options)
    for root in ("seqhalving", "halfgreedy", "ucbsqrt", "gumbel:m=4"):
        r = search(game, "root_ucb:c=0.7", iterations=400, seed=5, root_policy=root, final="recommend",
                   early_stop=False, **MODES[mode])
        assert r.move in game.legal_moves() and r.iterations == 400 and r.visits.sum() == 400, root
        if mode == "parallel='tree'":
            check_tree(r.tree, 400)
        if root in ("halfgreedy", "ucbsqrt"):  # their recommendation: the best mean (ties at random)
            best = max(v for v, n in zip(r.values, r.visits) if n > 0)
            assert r.values[r.moves.index(r.move)] == best, root


# -- SHOT and H-MCTS (bandits/zoo/shot.py) --------------------------------------------------------------

class TwoPly:
    """Player 0 picks a0, a1 or a2, player 1 then picks b0 or b1, and the game ends: after a0 player 0
    wins, after a1 it is a draw, after a2 player 0 loses, whatever player 1 picks (so every playout's
    value is known: the search's visits are fixed numbers)."""

    RESULT = (1.0, 0.5, 0.0)

    def __init__(self):
        self.moves = ()

    def copy(self):
        g = TwoPly()
        g.moves = self.moves
        return g

    @property
    def to_move(self):
        return len(self.moves) % 2

    def legal_moves(self):
        return [] if self.terminal() else ([0, 1, 2] if not self.moves else [0, 1])

    def play(self, move):
        self.moves += (move,)

    def terminal(self):
        return len(self.moves) == 2

    def reward(self, player):
        r = self.RESULT[self.moves[0]]
        return r if player == 0 else 1.0 - r


def _children(tree, node):
    f, n = int(tree.first[node]), int(tree.nchild[node])
    return tree.stats[COUNT, f:f + n].astype(int).tolist()


def test_shot_splits_the_budget_as_derived_by_hand():
    # SHOT with T = 20 on TwoPly (K = 3 at the root, R = ceil(log2 3) = 2; K = 2 below, R = 1):
    # - untried first: a0, a1, a2 one visit each (3 used, 17 left);
    # - round 0: target floor(20 / (3 * 2)) = 3, each a_i topped up by 3 - 1 = 2 visits: a_i's call
    #   has target 3; it was visited once (a playout from itself), is expanded now and gives b0 and b1
    #   one visit each (its untried children).  9 used, 11 left; a0 = 3, a1 = 3, a2 = 3;
    # - sorted by mean (1, 0.5, 0): a0, a1 survive; target 3 + floor(20 / (2 * 2)) = 8;
    # - round 1 (|S| = 2, the last): a0 gets max(8 - 3, 11 - (8 - 3)) = 6 (the remainder rule), so its
    #   call has target 3 + 6 = 9: K = 2, R = 1, target floor(9 / (2 * 1)) = 4, left 6; b0 (first: the
    #   means tie, the stable sort keeps index order) gets max(4 - 1, 6 - (4 - 1)) = 3, b1 min(4 - 1,
    #   3) = 3: a0's children 4, 4;  a1 gets min(8 - 3, 5) = 5, target 8: floor(8 / 2) = 4, left 5;
    #   b0 gets max(3, 5 - 3) = 3, b1 the last 2: a1's children 4, 3;  a2 keeps 3 (children 1, 1).
    r = search(TwoPly(), "shot", iterations=20, seed=0, early_stop=False)
    assert r.visits.tolist() == [9, 8, 3] and r.visits.sum() == r.iterations == 20
    f = int(r.tree.first[0])
    assert [_children(r.tree, f + i) for i in range(3)] == [[4, 4], [4, 3], [1, 1]]
    # SHOT at the root only (UCB1 below it): every line after a_i has a_i's value, so the root's means,
    # and with them its split, do not depend on how a_i's visits are spread: the same root visits
    assert search(TwoPly(), "ucb1", iterations=20, seed=0, early_stop=False, root_policy="shot").visits.tolist() \
        == [9, 8, 3]
    # H-MCTS with B = 10: the root's call (budget 20) halves; a0's call of 6 and a1's of 5 are below B and
    # run UCT: the same totals at the root (the same argument)
    h = search(TwoPly(), "hmcts:threshold=10", iterations=20, seed=0, early_stop=False)
    assert h.visits.tolist() == [9, 8, 3]


def test_shot_at_the_root_of_tictactoe_gives_the_halving_schedule():
    # K = 9, T = 200, R = 4: 1 visit each (untried first), round 0 to floor(200 / 36) = 5 each (45
    # used), the best 5 to 5 + floor(200 / 20) = 15 (95), the best 3 to 15 + floor(200 / 12) = 31 (143),
    # the best 2 to 31 + floor(200 / 8) = 56, the first of them max(56 - 31, 57 - 25) = 32 more: 63, 56
    r = search(make_game("tictactoe"), "shot", iterations=200, seed=1, early_stop=False)
    assert sorted(r.visits.tolist()) == [5, 5, 5, 5, 15, 15, 31, 56, 63] and r.visits.sum() == 200
    again = search(make_game("tictactoe"), "shot", iterations=200, seed=1, early_stop=False)
    assert np.array_equal(r.visits, again.visits) and r.move == again.move   # same seed, same search
    # final=recommend: SHOT's best arm, the first of the last sort (the better of the last two by mean)
    rec = search(make_game("tictactoe"), "shot", iterations=200, seed=1, early_stop=False, final="recommend")
    last = [i for i, n in enumerate(rec.visits) if n >= 56]
    assert rec.move == rec.moves[max(last, key=lambda i: rec.values[i])]


def test_hmcts_with_a_threshold_above_the_budget_is_uct():
    # every call's budget is below B: UCB1 with H-MCTS's c (sqrt 2, ucb1's default) at every node
    g = make_game("tictactoe")
    u = search(g, "ucb1", iterations=500, seed=3, early_stop=False)
    h = search(g, "hmcts:threshold=100000", iterations=500, seed=3, early_stop=False)
    assert np.array_equal(u.visits, h.visits) and u.move == h.move


@pytest.mark.parametrize("scheme", ["shot", "hmcts:threshold=50"])
def test_shot_and_hmcts_over_a_plugin_and_their_refusal(scheme):
    # as the root policy over a user's plugin (root_ucb), on a compiled and a Python game: legal moves
    # and root visits = iterations; with transpositions refused in one line
    for game in (make_game("connect4"), make_game("nim", stones=9)):
        r = search(game, "root_ucb:c=0.7", iterations=300, seed=2, root_policy=scheme, early_stop=False)
        assert r.move in game.legal_moves() and r.visits.sum() == r.iterations == 300
    r = search(make_game("nim", stones=9), scheme, iterations=300, seed=2, early_stop=False)
    assert r.visits.sum() == 300
    name = scheme.split(":")[0]
    with pytest.raises(ValueError, match=rf"^a policy that hands budgets down \({name}\) does not combine with "
                                         r"transpositions=true: [^\n]*$"):
        search(make_game("tictactoe"), scheme, iterations=100, transpositions=True)
    # as the tree policy under a root policy that hands nothing down (gumbel keeps other things in
    # its children's per-arm row 0, which they would read as their budget): refused in one line
    with pytest.raises(ValueError, match=rf"^a policy that hands budgets down \({name}\) needs a root policy that "
                                         r"hands budgets down too, or none: [^\n]*root_policy=gumbel[^\n]*$"):
        search(make_game("tictactoe"), scheme, iterations=100, root_policy="gumbel")
    assert make_player(f"ucb1:c=0.5,root_policy={name}", playouts=100).choose(make_game("connect4"), 0) in range(7)
    assert make_player(scheme, playouts=100).choose(make_game("connect4"), 0) in range(7)


@pytest.mark.slow  # (the loops of Go, NoGo and the threaded executors compile outside the default tier)
@pytest.mark.parametrize("mode", list(MODES) + ["parallel='root'"])
@pytest.mark.parametrize("game_name, options", GAMES, ids=[g for g, _ in GAMES])
def test_shot_and_hmcts_on_every_compiled_game_and_executor_keep_the_tree_s_accounts(game_name, options, mode):
    # conformance: SHOT and H-MCTS as the tree policy, and as the root policy over a user's plugin
    # (root_ucb), on each compiled game and executor: a legal move, root visits = the iterations,
    # the tree-parallel invariants, and one thread the same search again from the same seed
    from test_parallel import check_tree

    game = make_game(game_name, **options)
    kw = dict(threads=2, parallel="root") if mode == "parallel='root'" else MODES[mode]
    for policy, root in (("shot", None), ("hmcts:threshold=50", None), ("root_ucb:c=0.7", "shot"),
                         ("root_ucb:c=0.7", "hmcts:threshold=50")):
        r = search(game, policy, iterations=400, seed=5, root_policy=root, early_stop=False, **kw)
        assert r.move in game.legal_moves() and r.iterations == 400 and r.visits.sum() == 400, (policy, root)
        if mode == "parallel='tree'":
            check_tree(r.tree, 400)
        if mode == "one thread":
            again = search(game, policy, iterations=400, seed=5, root_policy=root, early_stop=False)
            assert np.array_equal(r.visits, again.visits), (policy, root)


def test_a_reused_tree_gives_shot_s_root_a_new_call_of_the_iterations():
    # the subtree below the move played keeps its visits n; the next search's root call has target
    # n + iterations (SHOT: budgetNode + budget) and spends it exactly
    from bandits.zoo.shot import TARGET
    from treepolicies.mcts.search import reroot

    g = make_game("tictactoe")
    first = search(g, "shot", iterations=300, seed=4, early_stop=False)
    g.play(first.move)
    tree = reroot(first.tree, first.move)
    n = tree.stats[COUNT, 0]
    again = search(g, "shot", iterations=300, seed=5, early_stop=False, tree=tree)
    assert n > 0 and again.tree.pstate[0, TARGET] == n + 300 == again.tree.stats[COUNT, 0]


@pytest.mark.slow  # (the loops with SHOT's code compiled in are variants of their own)
@pytest.mark.parametrize("policy", ["shot", "hmcts:threshold=20"])
def test_shot_s_specialised_loop_searches_as_the_shared_one(policy):
    # the hands_down flag is a constant in a specialised loop and a field of the kernels in the shared
    # one: the same tree bit for bit
    g = make_game("tictactoe")
    a = search(g, policy, iterations=300, seed=4, early_stop=False, specialize=False)
    b = search(g, policy, iterations=300, seed=4, early_stop=False, specialize=True)
    assert np.array_equal(a.tree.stats[:, :a.tree.size], b.tree.stats[:, :b.tree.size]) and a.move == b.move


def test_shot_recommends_the_better_of_the_last_two_after_their_round():
    # a budget used exactly ends with the last round's samples in and its sort not yet made; SHOT's
    # recommendation makes it: the better mean of the last two (the two most visited), which in some
    # runs is not the one the remainder rule gave the most visits (counted: the test can tell them apart)
    from test_root_policy import PROBS, Arms

    flips = 0
    for seed in range(30):
        r = search(Arms(PROBS, np.random.default_rng(seed)), "ucb1", iterations=100, seed=seed, early_stop=False,
                   root_policy="shot", final="recommend")
        top = [int(i) for i in np.argsort(-r.visits, kind="stable")[:2]]
        better = max(top, key=lambda i: r.values[i])   # (a tie keeps the first: the stable sort's rule)
        flips += better != top[0]
        assert r.move == r.moves[better], seed
    assert flips > 0
