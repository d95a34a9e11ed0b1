"""The built-in playout policies: MAST, NST, LGRF-1, LGRF-2 and PPA, registered through
:func:`treepolicies.mcts.playouts.playout_policy` as a user's own would be (docs/playouts.md).

Notation: ``c`` = the game's move codes; a ply is ``2 * m + p`` (move m by player p); ``r_p`` the
playout's result for player p (the search's value for ``who``, 1 minus it for the other); plies[:k]
the whole simulation (the tree's moves, then the playout's from ``start``).  Statistics are kept
per player (a move code means another move for the other player) [ours: the papers' GGP setting
keys them per role, which is the same thing in a two-player game].

* ``mast`` (Finnsson & Bjornsson 2008, the Move-Average Sampling Technique): Q(p, m) = the average
  of r_p over the simulations' plies of move m by p (every ply of the simulation, tree and playout,
  each occurrence counted); a move without statistics has Q = ``q0`` (default 1: optimistic, so
  untried moves are tried [ours as a parameter]).  A playout draws m with probability
  exp(Q(p, m) / tau) / sum_b exp(Q(p, b) / tau) (Gibbs sampling, temperature ``tau``), or, with
  ``epsilon > 0``, epsilon-greedy: a uniformly random legal move with probability epsilon, else the
  best Q (ties at random) (Tak, Winands & Bjornsson 2012).  Statistics: (N, W, exp(Q / tau)) per
  (p, m), each player's sum and maximum of the exponentials (kept by the update, so a draw costs no
  exp), and their alias tables (Walker 1977; Vose 1991), rebuilt by the fast path only, when the
  update has marked them stale (the candidate path never reads them): 10c + 5 floats.  With a
  game's candidate draw (``game.move_draw``) a ply keeps the game's uniformly drawn legal
  candidate m with probability E(p, m) / max E(p, .)
  (:func:`mast_accept`: rejection sampling, the same distribution); with a move check and rollout
  only, it draws a code from all codes in O(1) and refuses the illegal ones (:func:`mast_propose`;
  the same distribution, no enumeration, but ever more refusals as the board fills).
* ``nst`` (Tak, Winands & Bjornsson 2012, N-gram Selection Technique): as MAST over n-grams of
  consecutive plies (a move with the 1 or 2 moves before it, whoever played them), n = 1..``n``
  (at most 3); the score of a move is the average of Q over its n-grams, the 1-gram always
  (``q0`` when unseen) and a longer one only once it has at least ``min_visits`` visits (the paper's
  threshold; its default 7 here is [ours] to change).  Gibbs (``tau``) or epsilon-greedy
  (``epsilon`` > 0) as MAST.  Statistics: (N, W) per n-gram and player: 4c + 4c^2 (+ 4c^3 with n=3).
* ``lgrf1``, ``lgrf2`` (Baier & Drake 2010, Last-Good-Reply with Forgetting): a reply table
  R1[p, a] (and, LGRF-2, R2[p, a', a]) holds the last reply m that player p played to the move a
  (to the two moves a', a) in a simulation p won.  In a playout p plays R2's reply to the last two
  moves if there is one and it is legal, else R1's to the last move if legal, else a uniformly
  random legal move.  After a simulation with winner w (value != 0.5; a draw changes nothing
  [ours]), for t = 1 .. k-1 in order, with (p, m) the ply at t: if p = w the reply is stored,
  R1[p, a_{t-1}] = m (and R2[p, a_{t-2}, a_{t-1}] = m, t >= 2); else, if the table holds m there,
  it is forgotten (-1).  Every ply of the simulation counts, tree and playout [ours].  Statistics:
  2c (+ 2c^2) floats, -1 = no reply.
* ``ppa`` (Cazenave 2015, Playout Policy Adaptation): a weight w(p, m) per move, 0 at first; a
  playout draws m with probability pi(m) = exp(w(p, m)) / sum_b exp(w(p, b)) over the legal moves;
  after it, for the winner p (no change after a draw [ours]) and every playout ply t of p:
  w(p, m_t) += alpha and w(p, b) -= alpha pi_t(b) for each legal b at t, with the pi_t of the
  playout (the old weights: Cazenave's copy polp), i.e. w(p) += alpha sum_t (e_{m_t} - pi_t).
  Only the playout's plies adapt the weights (the legal moves of the tree's plies are not known
  there), as in Cazenave's adapt, which replays the playout.  ``alpha`` default 0.32 [ours].
  Statistics: 2c weights; the per-playout scratch accumulates sum_t pi_t per player.
"""
from __future__ import annotations

import math

import numba as nb
import numpy as np

from bandits.registry import Param
from bandits.rng import randint, uniform
from treepolicies.mcts.playouts import playout_policy

__all__ = ["gibbs_draw", "weighted_draw", "egreedy_draw", "mast_q", "mast_init", "mast_propose", "mast_accept",
           "lgrf1_propose", "lgrf2_propose",
           "mast_choose", "mast_update", "nst_choose", "nst_update", "lgrf1_choose",
           "lgrf2_choose", "lgrf_update", "ppa_choose", "ppa_update", "nst_offsets"]


@nb.njit(cache=True, _nrt=False)
def gibbs_draw(values, n, tau, rng):
    """An index j in 0..n-1 with probability exp(values[j] / tau) / sum exp(values[b] / tau)
    (values[:n] are overwritten with the unnormalised weights); one uniform draw."""
    mx = values[0]
    for j in range(1, n):
        if values[j] > mx:
            mx = values[j]
    total = 0.0
    for j in range(n):
        e = math.exp((values[j] - mx) / tau)
        values[j] = e
        total += e
    return weighted_draw(values, n, total, rng)


@nb.njit(cache=True, _nrt=False)
def weighted_draw(weights, n, total, rng):
    """An index j in 0..n-1 with probability weights[j] / total (total = sum weights[:n] > 0); one
    uniform draw, inverted by the cumulative sum."""
    u = uniform(rng) * total
    acc = 0.0
    for j in range(n):
        acc += weights[j]
        if u < acc:
            return j
    return n - 1


@nb.njit(cache=True, _nrt=False)
def egreedy_draw(values, n, epsilon, rng):
    """With probability epsilon a uniformly random index, else the argmax of values[:n] (ties: the
    i-th of T tied ones with probability 1/T, by reservoir sampling)."""
    if uniform(rng) < epsilon:
        return randint(rng, n)
    best = -math.inf
    pick = 0
    ties = 0
    for j in range(n):
        v = values[j]
        if v > best:
            best, pick, ties = v, j, 1
        elif v == best:
            ties += 1
            if randint(rng, ties) == 0:
                pick = j
    return pick


# ---- MAST: params tau, epsilon, q0.  stats: (N, W, E = exp(Q / tau)) at 3 (p c + m); T_p = sum_m E at 6c + p;
# the alias table of E_p (Walker 1977, Vose 1991) for the fast path: probability at 6c + 2 + p c + i, alias at
# 8c + 2 + p c + i; max_m E(p, m) at 10c + 2 + p (the candidate path's bound); 1 at 10c + 4 when the alias
# tables are stale (the update changed E; mast_propose rebuilds them).  scratch: buf[:c] values, buf[c:2c] the
# ply stamp of the codes refused (epsilon-greedy); the fast path's rebuild uses buf[:2c] as its work lists


@nb.njit(cache=True, _nrt=False)
def mast_q(stats, params, codes, p, m):
    """Q(p, m): the average result of move m by p, ``q0`` without statistics."""
    i = 3 * (p * codes + m)
    return stats[i + 1] / stats[i] if stats[i] > 0.0 else params[2]


@nb.njit(cache=True, _nrt=False)
def _alias(stats, codes, p, small, large):
    """Player p's alias table of the weights E(p, .) (Vose's method): a code i drawn uniformly is
    kept with probability prob[i], else replaced by alias[i]; then P(m) = E(p, m) / T_p exactly."""
    prob, alias = 6 * codes + 2 + p * codes, 8 * codes + 2 + p * codes
    total = stats[6 * codes + p]
    ns = nl = 0
    for m in range(codes):
        v = stats[3 * (p * codes + m) + 2] * codes / total
        stats[prob + m] = v
        stats[alias + m] = m
        if v < 1.0:
            small[ns] = m
            ns += 1
        else:
            large[nl] = m
            nl += 1
    while ns > 0 and nl > 0:
        ns -= 1
        nl -= 1
        s, g = int(small[ns]), int(large[nl])
        stats[alias + s] = g
        stats[prob + g] -= 1.0 - stats[prob + s]
        if stats[prob + g] < 1.0:
            small[ns] = g
            ns += 1
        else:
            large[nl] = g
            nl += 1
    while nl > 0:
        nl -= 1
        stats[prob + int(large[nl])] = 1.0
    while ns > 0:  # (rounding)
        ns -= 1
        stats[prob + int(small[ns])] = 1.0


@nb.njit(cache=True, _nrt=False)
def _refresh(stats, codes):
    """Each player's T_p = sum_m E(p, m) and max_m E(p, m); marks the alias tables stale."""
    for p in range(2):
        total = top = 0.0
        for m in range(codes):
            e = stats[3 * (p * codes + m) + 2]
            total += e
            top = max(top, e)
        stats[6 * codes + p] = total
        stats[10 * codes + 2 + p] = top
    stats[10 * codes + 4] = 1.0


@nb.njit(cache=True, _nrt=False)
def mast_init(stats, params, codes):
    e = math.exp(params[2] / params[0])
    for i in range(2 * codes):
        stats[3 * i + 2] = e
    _refresh(stats, codes)


@nb.njit(cache=True, _nrt=False)
def mast_choose(stats, params, codes, plies, k, mover, moves, n, rng, buf):
    eps = params[1]
    base = mover * codes
    if eps > 0.0:
        for j in range(n):
            buf[j] = mast_q(stats, params, codes, mover, moves[j])
        return egreedy_draw(buf, n, eps, rng)
    total = 0.0
    for j in range(n):
        e = stats[3 * (base + moves[j]) + 2]
        buf[j] = e
        total += e
    return weighted_draw(buf, n, total, rng)


@nb.njit(cache=True, _nrt=False)
def mast_propose(stats, params, codes, plies, k, mover, rng, buf, tries):
    """The fast path.  Gibbs: a code drawn from exp(Q(mover, .) / tau) over every code (the alias
    table: one uniform); the loop refuses an illegal one and asks again, so the first accepted code
    is Gibbs over the legal moves (after MAX_TRIES refusals the loop draws among the enumerated
    legal moves: the same distribution).  Epsilon-greedy: -1 (the game's uniformly random move)
    with probability epsilon, else the best Q among the codes not refused at this ply (ties at
    random; -2 when every code is refused: the loop enumerates)."""
    eps = params[1]
    if eps <= 0.0:
        if stats[10 * codes + 4] != 0.0:  # (E changed since the last rebuild: buf[:2c] as the work lists)
            for p in range(2):
                _alias(stats, codes, p, buf[:codes], buf[codes:2 * codes])
            stats[10 * codes + 4] = 0.0
        x = uniform(rng) * codes
        i = min(int(x), codes - 1)
        if x - i < stats[6 * codes + 2 + mover * codes + i]:
            return i
        return int(stats[8 * codes + 2 + mover * codes + i])
    stamp = float(k + 1)
    if tries == 0:
        if uniform(rng) < eps:
            return -1
    else:
        buf[codes + int(buf[0])] = stamp  # (the code refused: proposed at the try before)
    best = -math.inf
    pick = -2
    ties = 0
    for m in range(codes):
        if buf[codes + m] == stamp:
            continue
        q = mast_q(stats, params, codes, mover, m)
        if q > best:
            best, pick, ties = q, m, 1
        elif q == best:
            ties += 1
            if randint(rng, ties) == 0:
                pick = m
    if pick >= 0:
        buf[0] = pick
    return pick


@nb.njit(cache=True, _nrt=False)
def mast_accept(stats, params, codes, plies, k, mover, c, rng, buf, tries):
    """The candidate path.  Gibbs: the game's candidate ``c`` (a legal move drawn uniformly) is
    kept with probability E(mover, c) / max_m E(mover, m), E = exp(Q / tau): rejection sampling, so
    the move played has probability exp(Q(c) / tau) / sum over the legal moves of exp(Q / tau),
    choose's Gibbs draw (after MAX_TRIES refusals the loop enumerates: the same distribution).
    Epsilon-greedy: -1 (the proposals: ``mast_propose``)."""
    if params[1] > 0.0:
        return -1
    return 1 if uniform(rng) * stats[10 * codes + 2 + mover] < stats[3 * (mover * codes + c) + 2] else 0


@nb.njit(cache=True, _nrt=False)
def mast_update(stats, params, codes, plies, start, k, who, value, buf):
    tau = params[0]
    for t in range(k):
        m, p = plies[t] >> 1, plies[t] & 1
        if m >= codes:
            continue
        i = 3 * (p * codes + m)
        stats[i] += 1.0
        stats[i + 1] += value if p == who else 1.0 - value
        stats[i + 2] = math.exp(stats[i + 1] / stats[i] / tau)
    _refresh(stats, codes)


_TAU = Param(1.0, low=0.01, high=1e6, doc="Gibbs temperature tau: P(m) ~ exp(Q(m) / tau)")
_EPS = Param(0.0, low=0.0, high=1.0, doc="> 0: epsilon-greedy (Tak et al. 2012) instead of Gibbs sampling")
_Q0 = Param(1.0, low=0.0, high=1.0, doc="Q of a move without statistics [ours; 1 = optimistic]")

playout_policy("mast", choose=mast_choose, update=mast_update, init=mast_init, propose=mast_propose,
               accept=mast_accept, size=lambda codes, params: 10 * codes + 5, scratch=lambda codes, params: 2 * codes,
               tau=_TAU, epsilon=_EPS, q0=_Q0,
               doc="MAST (Finnsson & Bjornsson 2008): Gibbs sampling over each move's average result")


# ---- NST: params n, tau, epsilon, min_visits, q0


@nb.njit(cache=True, _nrt=False)
def nst_offsets(codes):
    """Where the 1-, 2- and 3-gram tables start: 0, 4c, 4c + 4c^2."""
    return 0, 4 * codes, 4 * codes + 4 * codes * codes


@nb.njit(cache=True, _nrt=False)
def _nst_index(codes, order, p, a2, a1, m):
    o1, o2, o3 = nst_offsets(codes)
    if order == 1:
        return o1 + 2 * (p * codes + m)
    if order == 2:
        return o2 + 2 * ((p * codes + a1) * codes + m)
    return o3 + 2 * (((p * codes + a2) * codes + a1) * codes + m)


@nb.njit(cache=True, _nrt=False)
def nst_choose(stats, params, codes, plies, k, mover, moves, n, rng, buf):
    order, tau, eps, minv, q0 = int(params[0]), params[1], params[2], max(1.0, params[3]), params[4]
    a1 = plies[k - 1] >> 1 if k >= 1 else -1
    a2 = plies[k - 2] >> 1 if k >= 2 else -1
    if a1 >= codes:
        a1 = -1
    if a2 >= codes:
        a2 = -1
    for j in range(n):
        m = moves[j]
        i = _nst_index(codes, 1, mover, 0, 0, m)
        score = stats[i + 1] / stats[i] if stats[i] > 0.0 else q0
        terms = 1.0
        if order >= 2 and a1 >= 0:
            i = _nst_index(codes, 2, mover, 0, a1, m)
            if stats[i] >= minv:
                score += stats[i + 1] / stats[i]
                terms += 1.0
            if order >= 3 and a2 >= 0:
                i = _nst_index(codes, 3, mover, a2, a1, m)
                if stats[i] >= minv:
                    score += stats[i + 1] / stats[i]
                    terms += 1.0
        buf[j] = score / terms
    if eps > 0.0:
        return egreedy_draw(buf, n, eps, rng)
    return gibbs_draw(buf, n, tau, rng)


@nb.njit(cache=True, _nrt=False)
def nst_update(stats, params, codes, plies, start, k, who, value, buf):
    order = int(params[0])
    for t in range(k):
        m, p = plies[t] >> 1, plies[t] & 1
        if m >= codes:
            continue
        r = value if p == who else 1.0 - value
        i = _nst_index(codes, 1, p, 0, 0, m)
        stats[i] += 1.0
        stats[i + 1] += r
        if order >= 2 and t >= 1 and (plies[t - 1] >> 1) < codes:
            a1 = plies[t - 1] >> 1
            i = _nst_index(codes, 2, p, 0, a1, m)
            stats[i] += 1.0
            stats[i + 1] += r
            if order >= 3 and t >= 2 and (plies[t - 2] >> 1) < codes:
                i = _nst_index(codes, 3, p, plies[t - 2] >> 1, a1, m)
                stats[i] += 1.0
                stats[i + 1] += r


def _nst_size(codes, params):
    order = int(params[0])
    return 4 * codes + (4 * codes ** 2 if order >= 2 else 0) + (4 * codes ** 3 if order >= 3 else 0)


playout_policy("nst", choose=nst_choose, update=nst_update, size=_nst_size,
               n=Param(2, low=1, high=3, doc="the longest n-gram (1 = MAST's values)"), tau=_TAU, epsilon=_EPS,
               min_visits=Param(7, low=0, high=10 ** 9, doc="visits before an n-gram with n > 1 counts"), q0=_Q0,
               doc="NST (Tak, Winands & Bjornsson 2012): MAST over n-grams of moves")


# ---- LGRF-1 / LGRF-2: R1 at p c + a, R2 at 2c + (p c + a') c + a; -1 = none


@nb.njit(cache=True, _nrt=False)
def _lgrf_init(stats, params, codes):
    stats[:] = -1.0


@nb.njit(cache=True, _nrt=False)
def _find(moves, n, m):
    for j in range(n):
        if moves[j] == m:
            return j
    return -1


@nb.njit(cache=True, _nrt=False)
def _reply1(stats, codes, plies, k, mover, moves, n):
    if k >= 1:
        a = plies[k - 1] >> 1
        if a < codes:
            r = stats[mover * codes + a]
            if r >= 0.0:
                return _find(moves, n, int(r))
    return -1


@nb.njit(cache=True, _nrt=False)
def lgrf1_choose(stats, params, codes, plies, k, mover, moves, n, rng, buf):
    j = _reply1(stats, codes, plies, k, mover, moves, n)
    return j if j >= 0 else randint(rng, n)


@nb.njit(cache=True, _nrt=False)
def lgrf2_choose(stats, params, codes, plies, k, mover, moves, n, rng, buf):
    if k >= 2:
        a2, a1 = plies[k - 2] >> 1, plies[k - 1] >> 1
        if a1 < codes and a2 < codes:
            r = stats[2 * codes + (mover * codes + a2) * codes + a1]
            if r >= 0.0:
                j = _find(moves, n, int(r))
                if j >= 0:
                    return j
    j = _reply1(stats, codes, plies, k, mover, moves, n)
    return j if j >= 0 else randint(rng, n)


@nb.njit(cache=True, _nrt=False)
def _r1(stats, codes, plies, k, mover):
    if k >= 1:
        a = plies[k - 1] >> 1
        if a < codes:
            return int(stats[mover * codes + a])
    return -1


@nb.njit(cache=True, _nrt=False)
def lgrf1_propose(stats, params, codes, plies, k, mover, rng, buf, tries):
    """The fast path: the reply to the last move, then (-1) the game's uniformly random move."""
    return _r1(stats, codes, plies, k, mover) if tries == 0 else -1


@nb.njit(cache=True, _nrt=False)
def lgrf2_propose(stats, params, codes, plies, k, mover, rng, buf, tries):
    """The fast path: the reply to the last two moves, then the reply to the last one, then (-1)
    the game's uniformly random move."""
    r2 = -1
    if k >= 2:
        a2, a1 = plies[k - 2] >> 1, plies[k - 1] >> 1
        if a1 < codes and a2 < codes:
            r2 = int(stats[2 * codes + (mover * codes + a2) * codes + a1])
    if tries == 0 and r2 >= 0:
        return r2
    if tries == 0 or (tries == 1 and r2 >= 0):
        r1 = _r1(stats, codes, plies, k, mover)
        return r1 if r1 != r2 or r1 < 0 else -1
    return -1


@nb.njit(cache=True, _nrt=False)
def _store(stats, i, m, won):
    if won:
        stats[i] = m
    elif stats[i] == m:
        stats[i] = -1.0


@nb.njit(cache=True, _nrt=False)
def lgrf_update(stats, params, codes, plies, start, k, who, value, buf):
    """LGRF-1's table (and LGRF-2's second one when ``stats`` holds it: 2c + 2c^2 entries)."""
    if value == 0.5:
        return
    winner = who if value > 0.5 else 1 - who
    two = stats.shape[0] >= 2 * codes + 2 * codes * codes
    for t in range(1, k):
        m, p = plies[t] >> 1, plies[t] & 1
        a1 = plies[t - 1] >> 1
        if m >= codes or a1 >= codes:
            continue
        won = p == winner
        _store(stats, p * codes + a1, m, won)
        if two and t >= 2:
            a2 = plies[t - 2] >> 1
            if a2 < codes:
                _store(stats, 2 * codes + (p * codes + a2) * codes + a1, m, won)


playout_policy("lgrf1", choose=lgrf1_choose, update=lgrf_update, init=_lgrf_init, propose=lgrf1_propose,
               size=lambda codes, params: 2 * codes,
               doc="LGRF-1 (Baier & Drake 2010): the last good reply to the last move, with forgetting")
playout_policy("lgrf2", choose=lgrf2_choose, update=lgrf_update, init=_lgrf_init, propose=lgrf2_propose,
               size=lambda codes, params: 2 * codes + 2 * codes * codes,
               doc="LGRF-2 (Baier & Drake 2010): the last good reply to the last two moves, then to the last "
                   "one, with forgetting")


# ---- PPA: params alpha; stats w at p c + m; scratch: buf[:c] this step's weights, buf[c + p c + b] sum_t pi_t(b)


@nb.njit(cache=True, _nrt=False)
def ppa_choose(stats, params, codes, plies, k, mover, moves, n, rng, buf):
    base = mover * codes
    mx = stats[base + moves[0]]
    for j in range(1, n):
        w = stats[base + moves[j]]
        if w > mx:
            mx = w
    total = 0.0
    for j in range(n):
        e = math.exp(stats[base + moves[j]] - mx)
        buf[j] = e
        total += e
    acc_at = codes + base
    for j in range(n):
        buf[acc_at + moves[j]] += buf[j] / total
    return weighted_draw(buf, n, total, rng)


@nb.njit(cache=True, _nrt=False)
def ppa_update(stats, params, codes, plies, start, k, who, value, buf):
    if value == 0.5:
        return
    alpha = params[0]
    winner = who if value > 0.5 else 1 - who
    base = winner * codes
    for t in range(start, k):
        m, p = plies[t] >> 1, plies[t] & 1
        if p == winner and m < codes:
            stats[base + m] += alpha
    for b in range(codes):
        stats[base + b] -= alpha * buf[codes + base + b]


playout_policy("ppa", choose=ppa_choose, update=ppa_update, size=lambda codes, params: 2 * codes,
               scratch=lambda codes, params: 3 * codes,
               alpha=Param(0.32, low=0.0, high=100.0, low_open=True, doc="the learning rate alpha [ours: default]"),
               doc="PPA (Cazenave 2015): softmax playouts over weights learned online from the winner's moves")
