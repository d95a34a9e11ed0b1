"""Dirichlet noise on the root's priors (``root_noise=eps``, ``root_noise_alpha=alpha``; AlphaZero):
P = (1 - eps) p + eps eta with eta ~ Dir(alpha) at the root's expansion, on every driver."""
import numpy as np
import pytest

from treepolicies import make_game, search


def _root_priors(r):
    f, n = int(r.tree.first[0]), int(r.tree.nchild[0])
    return r.tree.prior[f:f + n].copy(), r.tree.move[f:f + n].copy()


@pytest.mark.parametrize("kw", [dict(), dict(compiled=False), dict(transpositions=True),
                                dict(threads=2, parallel="tree"),
                                dict(evaluator=lambda s, m, c: (np.ones(m.shape), np.full(len(s), 0.5)))])
def test_the_root_priors_are_uniform_plus_dirichlet_noise(kw):
    # Connect Four without a prior kernel: p = 1/7 for each of the 7 moves; with eps = 0.25 every
    # prior is at least (1 - eps) / 7 = 0.107142..., they sum to 1, and below the root none is noisy
    eps = 0.25
    r = search(make_game("connect4"), "puct:c=1.5", iterations=200, seed=3, root_noise=eps, root_noise_alpha=0.3,
               early_stop=False, **kw)
    p, _ = _root_priors(r)
    assert p.size == 7 and np.isclose(p.sum(), 1.0) and np.all(p >= (1 - eps) / 7 - 1e-12)
    assert not np.allclose(p, 1 / 7)  # (the noise is there)
    tree = r.tree
    below = [c for c in range(tree.size) if tree.parent[c] > 0]
    if tree.dag is None:
        assert np.allclose(tree.prior[below], [1.0 / tree.nchild[tree.parent[c]] for c in below])


def test_the_noise_has_the_dirichlet_mean_and_the_prior_kernel_s_weight():
    # E[eta_j] = 1/K for a symmetric Dirichlet: over 300 seeds the mean root prior of each move is
    # (1 - eps) p_j + eps / K, with p the heuristic prior kernel's (the same at every seed); the standard
    # error of each mean is eps sqrt(Var eta_j / 300) with Var eta_j = (1/K)(1 - 1/K) / (K alpha + 1)
    # = (1/7)(6/7) / 3.1 = 0.0395 for K = 7, alpha = 0.3: 0.5 * 0.0115 = 0.0057; we allow 4 of them
    eps, alpha, runs = 0.5, 0.3, 300
    game = make_game("connect4")
    base, moves = _root_priors(search(game, "puct:c=1.5", iterations=2, seed=0, prior="heuristic"))
    total = np.zeros(7)
    for seed in range(runs):
        p, m = _root_priors(search(game, "puct:c=1.5", iterations=2, seed=seed, prior="heuristic", root_noise=eps,
                                   root_noise_alpha=alpha))
        assert np.array_equal(m, moves)  # (the children in the kernel's prior order, as without noise)
        total += p
    want = (1 - eps) * base + eps / 7
    assert np.all(np.abs(total / runs - want) < 4 * 0.0057)


def test_no_noise_is_the_search_without_it_and_the_same_seed_the_same_noise():
    game = make_game("tictactoe")
    a = search(game, "puct", iterations=300, seed=5)
    b = search(game, "puct", iterations=300, seed=5, root_noise=0.0)
    assert np.array_equal(a.visits, b.visits)
    c = search(game, "puct", iterations=300, seed=5, root_noise=0.3)
    d = search(game, "puct", iterations=300, seed=5, root_noise=0.3)
    assert np.array_equal(_root_priors(c)[0], _root_priors(d)[0]) and np.array_equal(c.visits, d.visits)
    with pytest.raises(ValueError, match=r"^root_noise must be a number in \[0, 1\], got 2"):
        search(game, "puct", iterations=10, root_noise=2)
