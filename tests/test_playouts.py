"""Playout policies as plugins (treepolicies.mcts.playouts, docs/playouts.md): the built-ins'
statistics against hand-traced values (their kernels called directly), the fast path's move check
against the enumerated legal moves, the specs, and searches with them (one loop variant in the
default tier: MAST on Connect Four; the rest, every game and policy, in the slow tier)."""
from __future__ import annotations

import math
import os

import numpy as np
import pytest

from bandits.rng import randint, stream_state, uniform
from treepolicies import make_game, reroot, search
from treepolicies.games import Nim
from treepolicies.games.go import Go
from treepolicies.mcts import playout_policies as pp
from treepolicies.mcts.playouts import make_playout, playout_names

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def ply(m, p):
    return 2 * m + p


def plies(*pairs):
    return np.array([ply(m, p) for m, p in pairs], np.int64)


def fresh(spec, codes):
    """The statistics of ``spec`` at their start, its parameters (as the search makes them)."""
    b = make_playout(spec)
    block = b.block(codes, codes)
    head = 4 + b.values.size
    return block[head:].copy(), b.values.copy()


def rng(seed=0):
    return stream_state(seed, 7, 0)


# ------------------------------------------------------------------------------------------------
# MAST


def test_mast_values_after_scripted_playouts():
    c = 3
    stats, params = fresh("mast", c)  # tau=1, epsilon=0, q0=1
    buf = np.zeros(2 * c + 2)
    # sim 1: p0 plays 0, p1 plays 1, p0 plays 2; p0 wins (who=0, value 1): r_0 = 1, r_1 = 0
    pp.mast_update(stats, params, c, plies((0, 0), (1, 1), (2, 0)), 1, 3, 0, 1.0, buf)
    # sim 2: p0 0, p1 2, p0 1, p1 0; value 0.75 for who=1: r_1 = 0.75, r_0 = 0.25
    pp.mast_update(stats, params, c, plies((0, 0), (2, 1), (1, 0), (0, 1)), 2, 4, 1, 0.75, buf)
    # sim 3: p0 2, p1 2; value 0 for who=0: r_0 = 0, r_1 = 1 (start=1: MAST counts the tree's plies too)
    pp.mast_update(stats, params, c, plies((2, 0), (2, 1)), 1, 2, 0, 0.0, buf)
    # (N, W): p0: move 0 (2, 1 + 0.25), move 1 (1, 0.25), move 2 (1 + 1, 1 + 0)
    #         p1: move 0 (1, 0.75), move 1 (1, 0), move 2 (1 + 1, 0.75 + 1)
    want_q = {(0, 0): 1.25 / 2, (0, 1): 0.25, (0, 2): 0.5, (1, 0): 0.75, (1, 1): 0.0, (1, 2): 1.75 / 2}
    want_n = {(0, 0): 2, (0, 1): 1, (0, 2): 2, (1, 0): 1, (1, 1): 1, (1, 2): 2}
    for (p, m), q in want_q.items():
        i = 3 * (p * c + m)
        assert stats[i] == want_n[(p, m)]
        assert pp.mast_q(stats, params, c, p, m) == pytest.approx(q)
        assert stats[i + 2] == pytest.approx(math.exp(q))          # E = exp(Q / tau), tau = 1
    assert stats[6 * c] == pytest.approx(sum(math.exp(want_q[(0, m)]) for m in range(c)))  # T_0
    assert stats[6 * c + 1] == pytest.approx(sum(math.exp(want_q[(1, m)]) for m in range(c)))


def test_mast_unseen_moves_take_q0_and_the_draw_is_gibbs():
    c = 3
    stats, params = fresh("mast:tau=0.5,q0=0.4", c)
    buf = np.zeros(2 * c + 2)
    pp.mast_update(stats, params, c, plies((1, 0)), 0, 1, 0, 1.0, buf)   # Q(0, 1) = 1; the others q0
    q = [0.4, 1.0, 0.4]
    w = np.exp(np.array(q) / 0.5)
    cdf = np.cumsum(w) / w.sum()
    moves = np.array([0, 1, 2], np.int64)
    for seed in range(50):  # the draw is the inverse CDF of exp(Q / tau) at the stream's uniform
        r = rng(seed)
        u = uniform(r.copy())
        j = pp.mast_choose(stats, params, c, plies(), 0, 0, moves, 3, r, buf)
        assert j == int(np.searchsorted(cdf, u, side="right"))


def test_mast_alias_tables_give_the_gibbs_probabilities():
    c = 5
    stats, params = fresh("mast:tau=0.5", c)
    buf = np.zeros(2 * c)
    pp.mast_update(stats, params, c, plies((2, 0), (3, 1), (4, 0), (0, 1)), 0, 4, 0, 0.0, buf)
    pp.mast_update(stats, params, c, plies((2, 0), (1, 1)), 0, 2, 1, 0.25, buf)
    # the update only marks the tables stale (slot 10c + 4); the fast path's first draw rebuilds them
    assert stats[10 * c + 4] == 1.0
    pp.mast_propose(stats, params, c, plies(), 0, 0, rng(99), buf, 0)
    assert stats[10 * c + 4] == 0.0
    for p in range(2):
        e = np.array([math.exp(pp.mast_q(stats, params, c, p, m) / 0.5) for m in range(c)])
        prob = stats[6 * c + 2 + p * c: 6 * c + 2 + (p + 1) * c]
        alias = stats[8 * c + 2 + p * c: 8 * c + 2 + (p + 1) * c].astype(int)
        # Walker's table: P(m) = (prob[m] + sum over i with alias[i] = m of (1 - prob[i])) / c
        got = np.array([prob[m] + sum(1.0 - prob[i] for i in range(c) if alias[i] == m and i != m)
                        for m in range(c)]) / c
        assert got == pytest.approx(e / e.sum())
        # the fast path's draw: x = u c, code i = floor(x) kept if x - i < prob[i], else alias[i]
        for seed in range(20):
            r = rng(seed)
            x = uniform(r.copy()) * c
            i = int(x)
            want = i if x - i < prob[i] else alias[i]
            assert pp.mast_propose(stats, params, c, plies(), 0, p, r, buf, 0) == want


def test_egreedy_takes_the_best_or_a_random_move():
    values = np.array([0.2, 0.9, 0.9, 0.1])
    r = rng(1)
    picks = {pp.egreedy_draw(values, 4, 1e-300, r) for _ in range(200)}
    assert picks == {1, 2}                         # the best two, ties at random
    r = rng(2)
    u = uniform(r.copy())
    assert u < 0.99                                # (so epsilon = 0.99 takes the random branch)
    copy = r.copy()
    uniform(copy)
    assert pp.egreedy_draw(values, 4, 0.99, r) == randint(copy, 4)


# ------------------------------------------------------------------------------------------------
# NST


def test_nst_ngram_tables():
    c = 3
    stats, params = fresh("nst:n=3,min_visits=2", c)  # params: n, tau, epsilon, min_visits, q0
    o1, o2, o3 = pp.nst_offsets(c)
    buf = np.zeros(c)

    def entry(order, p, a2, a1, m):
        i = pp._nst_index(c, order, p, a2, a1, m)
        return stats[i], stats[i + 1]

    seq = plies((0, 0), (1, 1), (2, 0))
    pp.nst_update(stats, params, c, seq, 0, 3, 0, 1.0, buf)   # sim 1: p0 wins
    pp.nst_update(stats, params, c, seq, 0, 3, 0, 0.0, buf)   # sim 2: the same moves, p0 loses
    pp.nst_update(stats, params, c, plies((1, 0), (1, 1), (0, 0)), 0, 3, 1, 1.0, buf)  # sim 3: p1 wins
    # 1-grams (N, W): p0:0 sims 1, 2, 3 (1 + 0 + 0); p1:1 sims 1, 2, 3 (0 + 1 + 1); p0:2 (1 + 0); p0:1 (0)
    assert entry(1, 0, 0, 0, 0) == (3, 1) and entry(1, 1, 0, 0, 1) == (3, 2)
    assert entry(1, 0, 0, 0, 2) == (2, 1) and entry(1, 0, 0, 0, 1) == (1, 0)
    # 2-grams (after a1, move m by p): (p1: 0 -> 1) sims 1, 2: (2, 0 + 1); (p0: 1 -> 2): (2, 1 + 0);
    # sim 3: (p1: 1 -> 1): (1, 1), (p0: 1 -> 0): (1, 0)
    assert entry(2, 1, 0, 0, 1) == (2, 1) and entry(2, 0, 0, 1, 2) == (2, 1)
    assert entry(2, 1, 0, 1, 1) == (1, 1) and entry(2, 0, 0, 1, 0) == (1, 0)
    # 3-grams: (p0: 0, 1 -> 2) (2, 1); (p0: 1, 1 -> 0) (1, 0); nothing else
    assert entry(3, 0, 0, 1, 2) == (2, 1) and entry(3, 0, 1, 1, 0) == (1, 0)
    assert stats[o2:].reshape(-1, 2)[:, 0].sum() == 3 * 2 + 3 * 1   # per simulation: two 2-grams, one 3-gram
    # p0 to move after p0:0, p1:1 (a2 = 0, a1 = 1), min_visits 2: a move's score is the mean of its
    # 1-gram Q (q0 = 1 unseen) and the longer n-grams with >= 2 visits:
    #   move 0: 1-gram 1/3; 2-gram (1 -> 0) has 1 visit: 1/3
    #   move 1: 1-gram 0/1 = 0; no longer n-gram: 0
    #   move 2: 1-gram 1/2, 2-gram (1 -> 2) 1/2, 3-gram (0, 1 -> 2) 1/2: 1/2
    eps = make_playout("nst:n=3,min_visits=2,epsilon=1e-300").values  # (epsilon-greedy keeps the scores)
    moves = np.array([0, 1, 2], np.int64)
    j = pp.nst_choose(stats, eps, c, seq, 2, 0, moves, 3, rng(0), buf)
    assert buf[:3] == pytest.approx([1 / 3, 0.0, 0.5]) and j == 2
    # min_visits 1: move 0 also counts its 2-gram (1 -> 0): (1/3 + 0) / 2
    eps1 = make_playout("nst:n=3,min_visits=1,epsilon=1e-300").values
    pp.nst_choose(stats, eps1, c, seq, 2, 0, moves, 3, rng(0), buf)
    assert buf[:3] == pytest.approx([1 / 6, 0.0, 0.5])


# ------------------------------------------------------------------------------------------------
# LGRF


def test_lgrf_reply_tables_with_forgetting():
    c = 3
    stats, params = fresh("lgrf2", c)                # R1 at p c + a, R2 at 2c + (p c + a2) c + a1; -1 none
    assert (stats == -1).all() and stats.size == 2 * c + 2 * c * c
    buf = np.zeros(c)

    def r1(p, a):
        return stats[p * c + a]

    def r2(p, a2, a1):
        return stats[2 * c + (p * c + a2) * c + a1]

    seq = plies((0, 0), (1, 1), (2, 0), (0, 1))
    # sim 1, p0 wins: t=2 (p0 plays 2 after 0, 1): R1[0, 1] = 2, R2[0, 0, 1] = 2; p1's plies hold no reply
    pp.lgrf_update(stats, params, c, seq, 0, 4, 0, 1.0, buf)
    assert r1(0, 1) == 2 and r2(0, 0, 1) == 2 and (stats == -1).sum() == stats.size - 2
    # sim 2, the same moves, p1 wins: t=1 R1[1, 0] = 1; t=2 p0 lost with 2 after (0, 1): both replies
    # forgotten; t=3 R1[1, 2] = 0, R2[1, 1, 2] = 0
    pp.lgrf_update(stats, params, c, seq, 0, 4, 1, 1.0, buf)
    assert r1(0, 1) == -1 and r2(0, 0, 1) == -1
    assert r1(1, 0) == 1 and r1(1, 2) == 0 and r2(1, 1, 2) == 0
    # sim 3, p0 wins (who=1 lost): p0 1, p1 0, p0 2, p1 1: t=2 R1[0, 0] = 2, R2[0, 1, 0] = 2;
    # t=3 p1 lost with 1 after 2, but R1[1, 2] holds 0, not 1: kept (forgetting removes only the lost reply)
    pp.lgrf_update(stats, params, c, plies((1, 0), (0, 1), (2, 0), (1, 1)), 0, 4, 1, 0.0, buf)
    assert r1(0, 0) == 2 and r2(0, 1, 0) == 2 and r1(1, 2) == 0
    before = stats.copy()
    pp.lgrf_update(stats, params, c, plies((1, 0), (0, 1), (2, 0)), 0, 3, 0, 0.5, buf)  # a draw: nothing
    assert np.array_equal(stats, before)
    assert sorted(np.flatnonzero(stats >= 0)) == sorted([0 * c + 0, 1 * c + 0, 1 * c + 2,
                                                         2 * c + (1 * c + 1) * c + 2, 2 * c + (0 * c + 1) * c + 0])
    # playouts: p0 to move after (1, 0): R2[0, 1, 0] = 2 legal -> 2; not legal: R1[0, 0] = 2 neither -> random
    hist = plies((1, 0), (0, 1))
    assert pp.lgrf2_choose(stats, params, c, hist, 2, 0, np.array([0, 2], np.int64), 2, rng(0), buf) == 1
    r = rng(5)
    copy = r.copy()
    assert pp.lgrf2_choose(stats, params, c, hist, 2, 0, np.array([0, 1], np.int64), 2, r, buf) == randint(copy, 2)
    # LGRF-1 reads R1 only; the fast path proposes R2's reply, then R1's, then -1 (the game's move)
    assert pp.lgrf1_choose(stats, params, c, hist, 2, 0, np.array([1, 2], np.int64), 2, rng(0), buf) == 1
    assert [pp.lgrf2_propose(stats, params, c, hist, 2, 0, rng(0), buf, t) for t in range(3)] == [2, -1, -1]
    assert [pp.lgrf2_propose(stats, params, c, plies((2, 1), (2, 0), (0, 1)), 3, 1, rng(0), buf, t)
            for t in range(2)] == [1, -1]   # p1 after (2, 0): no R2 reply, R1[1, 0] = 1, then the game's


# ------------------------------------------------------------------------------------------------
# PPA


def test_ppa_weight_update():
    c, alpha = 3, 0.5
    stats, params = fresh(f"ppa:alpha={alpha}", c)
    assert (stats == 0).all()
    buf = np.zeros(3 * c)
    r = rng(4)
    seq = [ply(1, 0)]                                 # a tree ply (start = 1): not adapted
    for mover, legal in ((0, [0, 1, 2]), (1, [1, 2]), (0, [0, 2])):
        moves = np.array(legal, np.int64)
        j = pp.ppa_choose(stats, params, c, np.array(seq, np.int64), len(seq), mover, moves, len(legal), r, buf)
        seq.append(ply(legal[j], mover))
    # every weight 0: pi = 1/3 at step 1 (p0), 1/2 at steps 2 (p1) and 3 (p0):
    # sum_t pi_t for p0 = (1/3 + 1/2, 1/3, 1/3 + 1/2); for p1 (0, 1/2, 1/2)
    assert buf[c:2 * c] == pytest.approx([5 / 6, 1 / 3, 5 / 6]) and buf[2 * c:] == pytest.approx([0, .5, .5])
    pp.ppa_update(stats, params, c, np.array(seq, np.int64), 1, 4, 0, 1.0, buf)   # p0 won
    m1, m3 = seq[1] >> 1, seq[3] >> 1
    want = -alpha * np.array([5 / 6, 1 / 3, 5 / 6])
    want[m1] += alpha
    want[m3] += alpha
    assert stats[:c] == pytest.approx(want) and (stats[c:] == 0).all()   # the loser's weights unchanged
    assert stats[:c].sum() == pytest.approx(0.0)       # each step's e_m - pi sums to 0
    # a second playout, p0 to move among all three: pi = softmax(w0); p0 loses: w1 += alpha (e_m - pi1)
    w0 = stats[:c].copy()
    buf[:] = 0.0
    r2 = rng(9)
    u = uniform(r2.copy())
    pi = np.exp(w0) / np.exp(w0).sum()
    j = pp.ppa_choose(stats, params, c, np.zeros(1, np.int64), 0, 0, np.array([0, 1, 2], np.int64), 3, r2, buf)
    assert j == int(np.searchsorted(np.cumsum(pi), u, side="right"))      # the draw: inverse CDF of pi
    assert buf[c:2 * c] == pytest.approx(pi)
    k = pp.ppa_choose(stats, params, c, np.zeros(1, np.int64), 1, 1, np.array([0, 1], np.int64), 2, r2, buf)
    seq2 = np.array([ply(j, 0), ply(k, 1)], np.int64)
    pp.ppa_update(stats, params, c, seq2, 0, 2, 0, 0.0, buf)
    want1 = -alpha * np.array([0.5, 0.5, 0.0])
    want1[k] += alpha
    assert stats[:c] == pytest.approx(w0) and stats[c:] == pytest.approx(want1)


# ------------------------------------------------------------------------------------------------
# the move check of the fast path, the specs


@pytest.mark.parametrize("name", ["go", "nogo"])
def test_the_move_check_is_the_enumerated_legal_moves(name):
    g0 = make_game(name, size=7)
    move_check = g0.move_check
    r = np.random.default_rng(0)
    out = np.empty(g0.max_moves, np.int64)
    checked = 0
    for game_no in range(8):
        g = g0.copy()
        for _ in range(int(r.integers(0, 90 if name == "go" else 25))):   # (NoGo ends sooner)
            if g.terminal():
                break
            g.play(int(r.choice(g.legal_moves())))
        if g.terminal():
            continue
        n = g.kernels.legal(g.state, out)
        legal = set(int(m) for m in out[:n]) - {g.size * g.size}   # (Go's pass: never checked true)
        assert {m for m in range(g.max_moves + 1) if move_check(g.state, m)} == legal
        checked += 1
    assert checked >= 3


def _mast_position(name, tau):
    """A 5x5 position with six stones, MAST's statistics after 30 random simulations with random
    results for Black, the legal points (the pass left out) and Black's exact Gibbs probabilities
    exp(Q / tau) / sum over them: (game, codes, stats, params, buf, legal, want)."""
    g = make_game(name, size=5)
    for mv in (6, 7, 12, 13, 8, 18):
        g.play(mv)
    c = g.move_codes
    stats, params = fresh(f"mast:tau={tau}", c)
    buf = np.zeros(2 * c)
    for _ in range(30):
        seq = np.array([ply(int(m), i & 1) for i, m in enumerate(np.random.default_rng(_).permutation(c)[:10])])
        pp.mast_update(stats, params, c, seq, 0, 10, 0, float(_ % 3) / 2, buf)
    legal = [m for m in g.legal_moves() if m != g.size * g.size]
    e = np.array([math.exp(pp.mast_q(stats, params, c, 0, m) / tau) for m in legal])
    return g, c, stats, params, buf, legal, e / e.sum()


def test_mast_fast_path_draws_gibbs_over_the_legal_moves_on_go():
    # the fast path (treepolicies.mcts.playouts._fast_ply): propose from all codes, refuse what
    # go_move_check refuses, up to MAX_TRIES, then the enumeration: the accepted move is distributed
    # as exp(Q/tau) over the legal moves alone; checked on a position with stones (occupied codes
    # carry weight and are refused) against the exact probabilities, 20000 draws
    from treepolicies.games.go import go_move_check
    from treepolicies.mcts.playouts import MAX_TRIES

    g, c, stats, params, buf, legal, want = _mast_position("go", 0.2)
    r = rng(11)
    counts = np.zeros(len(legal))
    moves = np.array(legal, np.int64)
    for _ in range(20000):
        got = -1
        for tries in range(MAX_TRIES):
            code = pp.mast_propose(stats, params, c, plies(), 0, 0, r, buf, tries)
            if go_move_check(g.state, code):
                got = code
                break
        if got < 0:
            got = legal[pp.mast_choose(stats, params, c, plies(), 0, 0, moves, len(legal), r, buf)]
        counts[legal.index(got)] += 1
    assert np.abs(counts / 20000 - want).max() < 0.015   # (binomial sd at most 0.0036)


@pytest.mark.parametrize("name", ["go", "nogo"])
def test_the_candidate_draw_is_uniform_over_the_legal_points(name):
    # game.move_draw (the candidate path of treepolicies.mcts.playouts): every code it draws is one
    # of legal's (the pass excluded) and each comes up equally often: on positions from random
    # play, 200 draws a legal point, the count of each within 5 binomial sd of 200 (n draws,
    # p = 1/L: sd = sqrt(n p (1 - p)) < sqrt(200)); when legal offers no point, Go draws its pass
    # (legal's only move then) and NoGo -1 (no move: the player to move has lost); over, -1
    g0 = make_game(name, size=5)
    out = np.empty(g0.max_moves, np.int64)
    r = np.random.default_rng(3)
    s_rng = rng(5)
    seen_none = seen_some = 0
    for game_no in range(12):
        g = g0.copy()
        for _ in range(int(r.integers(0, 40 if name == "go" else 14))):
            if g.terminal():
                break
            g.play(int(r.choice(g.legal_moves())))
        n = g.kernels.legal(g.state, out)
        legal = sorted(set(int(m) for m in out[:n]) - {g.size * g.size})
        state = g.state.copy()
        if not legal:
            forced = name == "go" and not g.terminal()   # (over: no move, -1)
            assert g.move_draw(state, s_rng) == (g.size * g.size if forced else -1)
            seen_none += 1
            continue
        draws = [int(g.move_draw(state, s_rng)) for _ in range(200 * len(legal))]
        counts = {m: draws.count(m) for m in set(draws)}
        assert sorted(counts) == legal
        assert max(abs(v - 200) for v in counts.values()) < 5 * math.sqrt(200)
        seen_some += 1
    assert seen_some >= 6


#: Black's one group fills the 5x5 board but for two one-point eyes (A1, E5): no point is legal
#: for either side (Black: its own eyes; White: suicide), so go_legal offers only the pass (code 25)
TWO_EYES = """
    X X X X .
    X X X X X
    X X X X X
    X X X X X
    . X X X X
"""


def test_the_candidate_draw_gives_gos_forced_pass():
    # where legal offers only the pass, move_draw draws it, every time (it answered -1 before, and
    # the playout loop then scanned the board a second time with legal); so for White too
    g = Go.from_diagram(TWO_EYES)
    out = np.empty(g.max_moves, np.int64)
    r = rng(4)
    for _ in range(2):
        assert [int(m) for m in out[:g.kernels.legal(g.state, out)]] == [25]
        assert {int(g.move_draw(g.state.copy(), r)) for _ in range(50)} == {25}
        g.play(25)


@pytest.mark.slow
def test_a_mast_playout_plays_gos_forced_passes_from_the_draw():
    # from TWO_EYES a MAST playout (the compiled loop, candidate path) is Black's pass and White's;
    # Black has all 25 points of area against komi 7.5, so the value for Black (who = 0) is 1, and
    # MAST's statistics count one pass for each player: N(Black, 25) = N(White, 25) = 1, with
    # W = 1 for Black's and 0 for White's (stats at 3 (p codes + m): N, W, E)
    import numba as nb

    from treepolicies.mcts.calls import game_key, rollout_key
    from treepolicies.mcts.options import SearchOptions
    from treepolicies.mcts.playouts import HEADER, play_playout

    g = Go.from_diagram(TWO_EYES)
    bound = make_playout("mast")
    pkey, gkey = bound.key_for(g.move_check, g.move_draw), game_key(g.kernels)
    rkey = rollout_key(g.rollouts["random"])

    @nb.njit
    def one(s, r, plies, opts):
        return play_playout(pkey, gkey, rkey, s, r, plies, 0, -1, opts, 0)

    base = SearchOptions().array()
    opts = np.concatenate([base, bound.block(g.move_codes, g.max_moves)])
    plies = np.zeros(8, np.int64)
    value, k = one(g.state.copy(), rng(9), plies, opts)
    assert (value, k) == (1.0, 2) and list(plies[:2]) == [2 * 25 + 0, 2 * 25 + 1]
    stats = opts[base.size + HEADER + bound.values.size:]
    c = g.move_codes
    assert list(stats[3 * 25:3 * 25 + 2]) == [1.0, 1.0] and list(stats[3 * (c + 25):3 * (c + 25) + 2]) == [1.0, 0.0]


def test_the_candidate_draw_leaves_out_the_roots_superko_list():
    # the candidate path plays what move_draw gives without a move check, so the draw must keep to
    # go_legal's moves where a search starts from a game whose superko list is not empty.  The
    # position of tests/go_helpers.py (test_go.py::test_positional_superko_refused): after Black A4
    # and White A3, Black A5 is legal under simple ko but repeats the start, so the list holds it.
    # A draw over the L legal points plus A5 (random_point's candidates: L + 1 points) gives each
    # legal code with probability 1 / (L + 1) and -1 (the caller enumerates) when it lands on A5:
    # 300 (L + 1) draws, every count within 5 binomial sd (sd < sqrt(300)) of 300, and never A5
    from tests.go_helpers import superko_position

    g, a5, _ = superko_position()
    out = np.empty(g.max_moves, np.int64)
    n = g.kernels.legal(g.state, out)
    legal = sorted(int(m) for m in out[:n])
    assert a5 not in legal and g.size * g.size not in legal and len(legal) >= 3
    state = g.state.copy()
    r = rng(21)
    draws = [int(g.move_draw(state, r)) for _ in range(300 * (len(legal) + 1))]
    counts = {m: draws.count(m) for m in set(draws)}
    assert sorted(counts) == [-1] + legal
    assert max(abs(v - 300) for v in counts.values()) < 5 * math.sqrt(300)


@pytest.mark.parametrize("name", ["go", "nogo"])
def test_mast_candidate_path_draws_gibbs_over_the_legal_moves(name):
    # the candidate path (treepolicies.mcts.playouts._fast_ply): the game draws a legal candidate
    # uniformly (move_draw), mast_accept keeps it with probability E(c) / max E, E = exp(Q / tau),
    # up to MAX_TRIES candidates, then the enumeration: rejection sampling, so the move played is
    # distributed as exp(Q / tau) over the legal moves; checked against the exact probabilities on a
    # position with stones, 20000 plies (tau = 0.1: both the acceptances and the enumeration occur)
    from treepolicies.mcts.playouts import MAX_TRIES

    g, c, stats, params, buf, legal, want = _mast_position(name, 0.1)
    r = rng(12)
    counts = np.zeros(len(legal))
    moves = np.array(legal, np.int64)
    state = g.state.copy()
    fallbacks = 0
    for _ in range(20000):
        got = -1
        for tries in range(MAX_TRIES):
            cand = int(g.move_draw(state, r))
            if cand < 0:
                break
            a = pp.mast_accept(stats, params, c, plies(), 0, 0, cand, r, buf, tries)
            if a == 1:  # (a draw is legal: the candidate path plays it without a move check)
                got = cand
                break
        if got < 0:
            fallbacks += 1
            got = legal[pp.mast_choose(stats, params, c, plies(), 0, 0, moves, len(legal), r, buf)]
        counts[legal.index(got)] += 1
    assert 0 < fallbacks < 20000
    assert np.abs(counts / 20000 - want).max() < 0.015   # (binomial sd at most 0.0036)
    # epsilon-greedy MAST leaves the candidate path (-1): its proposals take the best Q
    stats_e, params_e = fresh("mast:epsilon=0.1", c)
    assert pp.mast_accept(stats_e, params_e, c, plies(), 0, 0, legal[0], r, buf, 0) == -1


def test_specs_and_their_one_line_errors():
    assert {"mast", "nst", "lgrf1", "lgrf2", "ppa"} <= set(playout_names())
    b = make_playout("mast:tau=0.5,epsilon=0.1,keep=true")
    assert list(b.values) == [0.5, 0.1, 1.0] and b.keep
    for spec, words in [("mast:tau=0", "tau must be a number in [0.01, 1e+06]"),
                        ("nst:n=4", "n must be an integer in [1, 3]"),
                        ("ppa:beta=1", "unknown parameter 'beta' of playout policy 'ppa'"),
                        ("lgrf1:keep=maybe", "keep must be true or false")]:
        with pytest.raises(ValueError, match=words.replace("[", r"\[").replace("+", r"\+")) as err:
            make_playout(spec)
        assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match="needs a rollout the game offers: .*playout policies"):
        search(make_game("connect4"), "ucb1", iterations=5, rollout="mastx")
    with pytest.raises(ValueError, match="parallel='leaf' needs a rollout without search-wide statistics"):
        search(make_game("connect4"), "ucb1", iterations=5, threads=2, parallel="leaf", rollout="lgrf1")
    from treepolicies.games import TicTacToe
    from treepolicies.mcts.playouts import playout_policy

    class NoCodes(TicTacToe):
        move_codes = 0

    with pytest.raises(ValueError, match="needs a rollout the game offers: tictactoe declares no move_codes"):
        search(NoCodes(), "ucb1", iterations=5, rollout="mast")
    with pytest.raises(ValueError, match="needs 190277336 floats of statistics for 362 move codes"):
        make_playout("nst:n=3").block(362, 362)      # 4c + 4c^2 + 4c^3 floats on 19x19 Go
    with pytest.raises(ValueError, match="is a game's rollout"):
        playout_policy("heuristic", choose=pp.mast_choose, update=pp.mast_update, size=lambda c, p: 1)


# ------------------------------------------------------------------------------------------------
# searches: MAST on Connect Four (a loop variant of its own: the slow tier, in CI's part; the default
# tier checks the playout policies' kernels above, called directly)


@pytest.mark.slow
def test_mast_search_is_reproducible_and_keeps_its_values_across_moves():
    game = make_game("connect4")
    a = search(game, "ucb1:c=0.5", iterations=400, seed=3, early_stop=False, rollout="mast:keep=true")
    b = search(game, "ucb1:c=0.5", iterations=400, seed=3, early_stop=False, rollout="mast:keep=true")
    assert np.array_equal(a.visits, b.visits) and np.array_equal(a.tree.playout_stats, b.tree.playout_stats)
    n = a.tree.playout_stats[:6 * 7].reshape(2, 7, 3)
    # every simulation from the empty board starts with Black: Black's plies are White's or one more
    # (each simulation: its tree plies and its playout plies, all counted)
    assert 0 <= n[0, :, 0].sum() - n[1, :, 0].sum() <= 400 and n[:, :, 0].sum() > 400 * 7
    assert (n[:, :, 1] <= n[:, :, 0]).all()
    after = game.copy()
    after.play(a.move)
    kept = search(after, "ucb1:c=0.5", iterations=100, seed=4, early_stop=False, rollout="mast:keep=true",
                  tree=reroot(a.tree, a.move, after))
    # keep=true: the counts go on from the first search's (they only grow)
    m = kept.tree.playout_stats[:6 * 7].reshape(2, 7, 3)
    assert (m[:, :, 0] >= n[:, :, 0]).all() and m[:, :, 0].sum() > n[:, :, 0].sum()


# ------------------------------------------------------------------------------------------------
# the slow tier: a user's playout policy on every game, every built-in reproducible, threads


PLUGIN = os.path.join(ROOT, "tests", "plugin_playouts.py")
GAMES = [("tictactoe", {}), ("connect4", {}), ("go", {"size": 5}), ("nogo", {"size": 5})]


def _plugin_counts(r, game):
    codes = int(getattr(game, "move_codes", 0) or 64)
    stats = r.tree.playout_stats
    return stats[:2 * codes], stats[2 * codes]


@pytest.mark.slow
@pytest.mark.parametrize("name, kw", GAMES, ids=[g for g, _ in GAMES])
def test_a_plugin_playout_policy_runs_on_every_compiled_game(name, kw):
    import bandits

    bandits.load_plugin(PLUGIN)
    game = make_game(name, **kw)
    a = search(game, "ucb1:c=0.5", iterations=300, seed=2, early_stop=False, rollout="leastplayed")
    b = search(game, "ucb1:c=0.5", iterations=300, seed=2, early_stop=False, rollout="leastplayed")
    assert a.move in game.legal_moves() and a.visits.sum() == 300
    assert np.array_equal(a.visits, b.visits) and np.array_equal(a.tree.playout_stats, b.tree.playout_stats)
    counts, playouts = _plugin_counts(a, game)
    # each iteration that reached an unfinished leaf played one playout of at least one ply, through
    # the plugin's kernels (its update counts it); the leaves at a game's end play none
    assert 0 < playouts <= 300 and counts.sum() >= playouts
    # the plugin's choices: every playout ply is a legal move code of its player's row
    assert (counts >= 0).all() and counts.size == 2 * game.move_codes


@pytest.mark.slow
@pytest.mark.parametrize("name", ["go", "nogo", "connect4"])
def test_a_plugin_accept_kernel_takes_the_candidate_path(name):
    # the plugin's `evens` (tests/plugin_playouts.py): accept keeps even codes and counts the
    # candidates; where the game draws candidates (Go, NoGo: move_draw) the loop asks it about each
    # ply's candidates, elsewhere (Connect Four) never and choose decides alone.  Either way an even
    # code is played whenever one is legal, so every playout's first move (from a position of the
    # tree, where even points are free) has an even code, where a uniform playout's would be odd
    # about half the time
    import bandits

    bandits.load_plugin(PLUGIN)
    game = make_game(name, size=5) if name != "connect4" else make_game(name)
    c = game.move_codes
    a = search(game, "ucb1:c=0.5", iterations=200, seed=4, early_stop=False, rollout="evens")
    b = search(game, "ucb1:c=0.5", iterations=200, seed=4, early_stop=False, rollout="evens")
    assert np.array_equal(a.tree.playout_stats, b.tree.playout_stats)
    counts, playouts = _plugin_counts(a, game)
    asked = a.tree.playout_stats[2 * c + 1]
    first = a.tree.playout_stats[2 * c + 2:3 * c + 2]
    assert playouts > 0 and first.sum() == playouts
    if name == "connect4":
        assert asked == 0
    else:
        assert asked >= playouts   # (at least one candidate a ply)
    assert first[1::2].sum() == 0 and first[0::2].sum() == playouts


@pytest.mark.slow
@pytest.mark.parametrize("compiled_game", [False, True], ids=["nim", "tictactoe-from-python"])
def test_a_plugin_playout_policy_runs_in_the_python_driver(compiled_game):
    import bandits

    bandits.load_plugin(PLUGIN)
    game = make_game("tictactoe") if compiled_game else Nim(10)
    a = search(game, "ucb1:c=0.5", iterations=300, seed=2, early_stop=False, rollout="leastplayed", compiled=False)
    b = search(game, "ucb1:c=0.5", iterations=300, seed=2, early_stop=False, rollout="leastplayed", compiled=False)
    assert np.array_equal(a.visits, b.visits) and np.array_equal(a.tree.playout_stats, b.tree.playout_stats)
    counts, playouts = _plugin_counts(a, game)
    assert 0 < playouts <= 300 and counts.sum() >= playouts
    if not compiled_game:
        assert a.move == 2                            # from 10 stones take 2
        # the least-played rule makes a playout's moves spread: no move code holds them all
        assert (counts[:64].reshape(-1)[:a.tree.codes.__len__()] < counts.sum()).all()


def test_a_playout_policy_typed_at_a_prompt_registers_and_plays_as_from_a_file():
    """Kernels with no source file (typed at a prompt, ``python -c``, exec) cannot be cached on
    disk; registering them raised numba's "cannot cache function ... no locator available".  They
    are now compiled uncached, and play exactly as the same kernels loaded from a file."""
    import bandits

    bandits.load_plugin(PLUGIN)
    with open(PLUGIN) as f:
        text = f.read().replace('playout_policy("leastplayed"', 'playout_policy("leastplayed_typed"')
    exec(compile(text.replace('playout_policy("evens"', 'playout_policy("evens_typed"'), "<prompt>", "exec"), {})
    game = Nim(10)
    runs = [search(game, "ucb1:c=0.5", iterations=200, seed=3, early_stop=False, rollout=ro, compiled=False)
            for ro in ("leastplayed", "leastplayed_typed")]
    assert np.array_equal(runs[0].visits, runs[1].visits)
    assert np.array_equal(runs[0].tree.playout_stats, runs[1].tree.playout_stats)
    counts, playouts = _plugin_counts(runs[1], game)
    assert 0 < playouts <= 200 and counts.sum() >= playouts   # (an iteration at a proved end plays none)


BUILTIN = ["mast", "mast:epsilon=0.1", "nst", "nst:n=3", "lgrf1", "lgrf2", "ppa"]


@pytest.mark.slow
@pytest.mark.parametrize("spec", BUILTIN)
def test_every_playout_policy_same_seed_same_result(spec):
    game = make_game("connect4")
    runs = [search(game, "ucb1:c=0.5", iterations=300, seed=5, early_stop=False, rollout=spec) for _ in range(2)]
    assert np.array_equal(runs[0].visits, runs[1].visits)
    assert np.array_equal(runs[0].tree.playout_stats, runs[1].tree.playout_stats)
    assert runs[0].tree.playout_stats.any()           # the statistics were learned
    # root parallelism: a table per tree, the same seed the same result
    roots = [search(game, "ucb1:c=0.5", iterations=300, seed=5, threads=2, parallel="root", rollout=spec)
             for _ in range(2)]
    assert np.array_equal(roots[0].visits, roots[1].visits)


@pytest.mark.slow
@pytest.mark.parametrize("spec", ["mast", "lgrf2", "ppa"])
def test_tree_parallel_playout_policies_keep_the_invariants(spec):
    # one table shared by the threads, updated without locks (benign races): not reproducible,
    # but every iteration is recorded and the table is learned
    game = make_game("go", size=7)
    r = search(game, "ucb1:c=0.5", iterations=600, seed=1, early_stop=False, threads=2, rollout=spec)
    assert r.visits.sum() == 600 and r.move in game.legal_moves() and r.tree.playout_stats.any()


@pytest.mark.slow
def test_rave_with_a_playout_policy_credits_its_plies():
    game = make_game("connect4")
    r = search(game, "ucb1:c=0.5", iterations=300, seed=1, early_stop=False, rollout="lgrf1", rave=True)
    f, n = int(r.tree.first[0]), int(r.tree.nchild[0])
    assert r.tree.amaf[0, f:f + n].sum() > r.visits.sum()   # AMAF visits beyond the moves' own
