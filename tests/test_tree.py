"""The array tree and its kernels: the seed's hand-traced UCB1 step, backup perspective, solver,
subtree extraction, memory statement."""
import math

import numpy as np

from bandits import UCB1, ImprovedUCB, ModifiedImprovedUCB, ThompsonSampling
from bandits.rng import Stream
from bandits.stats import COUNT, SUM, record
from treepolicies.mcts.tree import Tree, backup, bytes_per_node, expand, extract_subtree, mark_terminal, select_child


def _root_with_children(n, policy, mover_root=1):
    tree = Tree(64, policy.state_width, policy.arm_state_width)
    tree.init_root(mover_root)
    valid = np.ones(8, np.bool_)
    expand(tree.arrays, 0, np.arange(n, dtype=np.int64), n, 1 - mover_root, policy.kernels, policy.params, valid)
    return tree, valid


def test_hand_traced_ucb1_step_of_seed_000():
    # seeds/000: root N = 10; A = 4 wins of 6, B = 1 of 3, C = 0 of 1; c = sqrt(2).
    # scores: A 0.667 + sqrt(2 ln 10 / 6) = 1.543, B 0.333 + sqrt(2 ln 10 / 3) = 1.572,
    # C 0 + sqrt(2 ln 10 / 1) = 2.146  -> C.
    policy = UCB1(math.sqrt(2.0))
    tree, valid = _root_with_children(3, policy)
    f = tree.first[0]
    for child, (wins, visits) in enumerate([(4, 6), (1, 3), (0, 1)]):
        for k in range(visits):
            record(tree.stats, f + child, 1.0 if k < wins else 0.0)
    for _ in range(10):
        record(tree.stats, 0, 0.5)  # the root's own visit count N = 10
    work = np.empty(8)
    rng = Stream(0).state
    assert select_child(tree.arrays, 0, policy.kernels, policy.params, valid, rng, work, False) == f + 2
    # C loses again through a backup (0 of 2, N = 11): A 0.667 + sqrt(2 ln 11 / 6) = 1.561,
    # B 0.333 + sqrt(2 ln 11 / 3) = 1.597, C 0 + sqrt(2 ln 11 / 2) = 1.549  -> B.
    backup(tree.arrays, f + 2, 0.0, policy.kernels, policy.params, False)
    assert tree.stats[COUNT, 0] == 11 and tree.stats[COUNT, f + 2] == 2
    assert select_child(tree.arrays, 0, policy.kernels, policy.params, valid, rng, work, False) == f + 1


def test_backup_flips_the_value_at_each_level():
    # root (mover 1) -> child (mover 0) -> grandchild (mover 1); a result of 1 for the grandchild's
    # mover is 0 for the child's mover and 1 again at the root.
    policy = UCB1()
    tree, valid = _root_with_children(2, policy)
    c = tree.first[0]
    expand(tree.arrays, c, np.arange(2, dtype=np.int64), 2, 1, policy.kernels, policy.params, valid)
    g = tree.first[c]
    backup(tree.arrays, g, 1.0, policy.kernels, policy.params, False)
    assert tree.stats[SUM, g] == 1.0 and tree.stats[SUM, c] == 0.0 and tree.stats[SUM, 0] == 1.0
    assert tree.stats[COUNT, g] == tree.stats[COUNT, c] == tree.stats[COUNT, 0] == 1


def test_solver_proves_win_as_soon_as_one_child_wins_and_loss_when_all_lose():
    policy = UCB1()
    tree, valid = _root_with_children(3, policy)  # root: player 0 to move; children: mover 0
    f = tree.first[0]
    # child 0 is a terminal loss for its mover: not enough to prove the root
    mark_terminal(tree.arrays, f, 0.0)
    backup(tree.arrays, f, 0.0, policy.kernels, policy.params, True)
    assert tree.proven[0] == -1.0
    # selection now avoids the proven loss
    rng, work = Stream(1).state, np.empty(8)
    for _ in range(20):
        assert select_child(tree.arrays, 0, policy.kernels, policy.params, valid, rng, work, True) != f
    # child 1 is a terminal win for player 0: the root (mover 1) is proven lost for its mover
    mark_terminal(tree.arrays, f + 1, 1.0)
    backup(tree.arrays, f + 1, 1.0, policy.kernels, policy.params, True)
    assert tree.proven[0] == 0.0


def test_solver_proves_draw_only_when_every_child_is_proven():
    policy = UCB1()
    tree, valid = _root_with_children(2, policy)
    f = tree.first[0]
    mark_terminal(tree.arrays, f, 0.5)
    backup(tree.arrays, f, 0.5, policy.kernels, policy.params, True)
    assert tree.proven[0] == -1.0
    mark_terminal(tree.arrays, f + 1, 0.0)
    backup(tree.arrays, f + 1, 0.0, policy.kernels, policy.params, True)
    assert tree.proven[0] == 0.5  # best of (draw, loss) for player 0 is a draw; 1 - 0.5 for mover 1


def test_extract_subtree_keeps_statistics_and_contiguous_children():
    policy = UCB1()
    tree, valid = _root_with_children(3, policy)
    f = tree.first[0]
    expand(tree.arrays, f + 1, np.array([7, 8], np.int64), 2, 1, policy.kernels, policy.params, valid)
    g = tree.first[f + 1]
    backup(tree.arrays, g + 1, 1.0, policy.kernels, policy.params, False)
    new = Tree(64, 1, 1)
    assert extract_subtree(tree.arrays, f + 1, new.arrays) == 3
    assert new.parent[0] == -1 and new.first[0] == 1 and new.nchild[0] == 2
    assert list(new.move[1:3]) == [7, 8] and list(new.parent[1:3]) == [0, 0]
    assert new.stats[COUNT, 2] == 1 and new.stats[COUNT, 0] == 1 and new.size == 3


def test_tree_too_small_for_the_subtree_reports_it():
    policy = UCB1()
    tree, _ = _root_with_children(3, policy)
    assert extract_subtree(tree.arrays, 0, Tree(2, 1, 1).arrays) == -1


def test_stated_memory_per_node():
    # 77 + 8 (max(1, S) + max(1, A)): UCB1 S = A = 0 -> 93; Thompson A = 2 -> 101; Mi-UCB S = 7 -> 141;
    # I-UCB S = 7, A = 3 -> 157 (the widths the policies declare)
    assert bytes_per_node(0, 0) == 93 and bytes_per_node(0, 2) == 101
    assert bytes_per_node(7, 0) == 141 and bytes_per_node(7, 3) == 157
    for policy, size in ((UCB1(), 93), (ThompsonSampling(), 101), (ModifiedImprovedUCB(episodic=True), 141),
                         (ImprovedUCB(episodic=True), 157)):
        assert bytes_per_node(policy.state_width, policy.arm_state_width) == size
    t = Tree(1000, 7, 0)
    # per-node arrays (a tree without RAVE holds a (4, 1) placeholder for the AMAF rows)
    arrays_bytes = sum(a.nbytes for name, a in zip(t.arrays._fields, t.arrays) if name not in ("meta", "amaf", "prior"))
    assert arrays_bytes == 1000 * 141 and t.arrays.amaf.shape == (4, 1) and t.arrays.prior.shape == (1,)
    # RAVE: 4 float64 AMAF rows more -> 141 + 32 = 173
    t = Tree(1000, 7, 0, amaf=True)
    arrays_bytes = sum(a.nbytes for name, a in zip(t.arrays._fields, t.arrays) if name not in ("meta", "prior"))
    assert arrays_bytes == 1000 * 173 == 1000 * bytes_per_node(7, 0, amaf=True)
    # priors: one float64 per node more -> 141 + 32 + 8 = 181
    t = Tree(1000, 7, 0, amaf=True, prior=True)
    arrays_bytes = sum(a.nbytes for name, a in zip(t.arrays._fields, t.arrays) if name != "meta")
    assert arrays_bytes == 1000 * 181 == 1000 * bytes_per_node(7, 0, amaf=True, prior=True)
