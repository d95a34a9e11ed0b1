"""treepolicies.viz: the figures hold exactly the search's numbers; the exports parse and hold them."""
import json
import re

import numpy as np
import pytest

from bandits.stats import COUNT, MEAN
from treepolicies import make_game, search
from treepolicies import viz
from treepolicies.games import Go
from treepolicies.viz.board import board_grids, plot_root
from treepolicies.viz.export import iter_nodes, tree_dict
from treepolicies.viz.growth import checkpoints, visit_growth

DIAGRAM = """
. . . . .
. X O . .
. X O . .
. . . . .
. . . . .
"""


@pytest.fixture(scope="module")
def go_search():
    g = Go.from_diagram(DIAGRAM, to_move=0, komi=0.5)
    return g, search(g, "ucb1:c=0.5", iterations=800, seed=1, early_stop=False)


def brute_pv(tree):
    """The most-visited path, written independently: max visits, then max mean, then first child."""
    out, node = [], 0
    while tree.first[node] >= 0:
        f, n = int(tree.first[node]), int(tree.nchild[node])
        best = None
        for k in range(f, f + n):
            key = (tree.stats[COUNT, k], tree.stats[MEAN, k], -k)
            if tree.stats[COUNT, k] > 0 and (best is None or key > best[0]):
                best = (key, k)
        if best is None:
            break
        out.append(best[1])
        node = best[1]
    return out


def test_pv_is_the_most_visited_path(go_search):
    g, r = go_search
    nodes = brute_pv(r.tree)
    assert viz.principal_variation(r) == [int(r.tree.move[k]) for k in nodes]
    assert viz.principal_variation(r)[0] == r.move  # robust final move = first PV move
    assert len(nodes) >= 2


def test_go_heatmap_holds_the_root_numbers(go_search):
    g, r = go_search
    fig = plot_root(g, r)
    share_img, value_img = fig.axes[0].images[0].get_array(), fig.axes[1].images[0].get_array()
    total = r.visits.sum()
    expected_share = np.full((5, 5), np.nan)
    expected_value = np.full((5, 5), np.nan)
    pass_share = None
    for m, v, q in zip(r.moves, r.visits, r.values):
        if m == 25:
            pass_share = v / total
            continue
        row, col = divmod(m, 5)
        expected_share[row, col] = v / total
        if v > 0:
            expected_value[row, col] = q
    np.testing.assert_array_equal(np.ma.filled(share_img, np.nan), expected_share)
    np.testing.assert_array_equal(np.ma.filled(value_img, np.nan), expected_value)
    # occupied points are not root moves: blank in both panels
    for vertex in ("B4", "C4", "B3", "C3"):
        row, col = divmod(g.str_to_move(vertex), 5)
        assert share_img.mask[row, col] and value_img.mask[row, col]
    assert np.isclose(np.nansum(expected_share) + (pass_share or 0.0), 1.0)
    # numbered PV stones: texts "1", "2", ... at the PV's points
    pv = viz.principal_variation(r, 8)
    labels = {t.get_text(): t.get_position() for t in fig.axes[0].texts if t.get_gid() == "pv"}
    for k, m in enumerate(pv):
        if m != 25:
            row, col = divmod(m, 5)
            assert labels[str(k + 1)] == (col, row)


def test_connect4_bars_hold_the_root_numbers():
    c = make_game("connect4")
    for m in (3, 3, 2):
        c.play(m)
    r = search(c, "ucb1:c=1", iterations=600, seed=2, early_stop=False)
    fig = plot_root(c, r)
    share_heights = [p.get_height() for p in fig.axes[1].patches]
    value_heights = [p.get_height() for p in fig.axes[2].patches]
    total = r.visits.sum()
    assert share_heights == [r.visits[r.moves.index(col)] / total for col in range(7)]
    assert value_heights == [r.values[r.moves.index(col)] for col in range(7)]
    g = board_grids(c, r)
    assert g["visits"][0].tolist() == [int(r.visits[r.moves.index(col)]) for col in range(7)]


def test_tictactoe_heatmap_and_figures_save(tmp_path):
    t = make_game("tictactoe")
    t.play(4)
    r = search(t, "ucb1", iterations=300, seed=0, early_stop=False)
    fig = plot_root(t, r)
    img = np.ma.filled(fig.axes[0].images[0].get_array(), np.nan)
    assert np.isnan(img[1, 1])  # the centre is taken
    assert img[0, 0] == r.visits[r.moves.index(0)] / r.visits.sum()
    paths = viz.save_figure(fig, tmp_path, "root")
    assert [p[-3:] for p in paths] == ["png", "pdf"]
    assert open(paths[0], "rb").read(8) == b"\x89PNG\r\n\x1a\n" and open(paths[1], "rb").read(5) == b"%PDF-"


def test_json_export_parses_and_holds_visits_and_pv(go_search):
    g, r = go_search
    doc = json.loads(viz.tree_to_json(g, r, depth=3, width=4))
    assert doc["pv"] == [g.move_to_str(m) for m in viz.principal_variation(r)]
    root = doc["root"]
    assert root["visits"] == int(r.tree.stats[COUNT, 0]) == 800
    first = sorted(root["children"], key=lambda d: -d["visits"])
    top4 = sorted(zip(r.visits, [g.move_to_str(m) for m in r.moves]), key=lambda x: -x[0])[:4]
    assert [d["visits"] for d in first] == [int(v) for v, _ in top4]
    for d, parent in iter_nodes(root):  # every node's numbers are the tree's
        assert d["visits"] == int(r.tree.stats[COUNT, d["id"]])
        if parent is not None:
            assert r.tree.parent[d["id"]] == parent["id"]
            assert d["value"] == pytest.approx(r.tree.stats[MEAN, d["id"]])
    path, node = [], root  # the flagged path is the PV (to the depth drawn)
    while True:
        nxt = [c for c in node["children"] if c["pv"]]
        if not nxt:
            break
        assert len(nxt) == 1
        node = nxt[0]
        path.append(node["move"])
    assert path == doc["pv"][:3]


def test_dot_export_parses_and_holds_visits_and_pv(go_search):
    g, r = go_search
    dot = viz.tree_to_dot(g, r, depth=2, width=3)
    assert dot.startswith("digraph search {") and dot.rstrip().endswith("}")
    nodes = dict((int(k), int(v)) for k, v in re.findall(r'^\s+n(\d+) \[label="[^"]*", visits=(\d+)', dot, re.M))
    edges = re.findall(r"^\s+n(\d+) -> n(\d+)( \[color=red)?", dot, re.M)
    assert nodes[0] == 800 and all(r.tree.stats[COUNT, k] == v for k, v in nodes.items())
    assert len(edges) == len(nodes) - 1
    red = {int(b) for a, b, flag in edges if flag}
    assert red == set(brute_pv(r.tree)[:2])
    labels = dict(re.findall(r'^\s+n(\d+) \[label="([^\\"]*)\\n', dot, re.M))
    assert [labels[str(k)] for k in brute_pv(r.tree)[:2]] == [g.move_to_str(m) for m in viz.principal_variation(r, 2)]


def test_tree_view_draws_the_exported_nodes(go_search):
    g, r = go_search
    fig = viz.plot_tree(g, r, depth=2, width=3)
    drawn = fig.axes[0]._banditree_nodes
    assert [d["visits"] for d in drawn] == [d["visits"] for d, _ in iter_nodes(tree_dict(g, r, 2, 3))]
    sizes = fig.axes[0].collections[0].get_sizes()
    np.testing.assert_allclose(sizes, [20 + 2500 * d["visits"] / 800 for d in drawn])  # area ~ visits


def test_growth_is_one_search_in_chunks():
    c = make_game("connect4")
    whole = search(c, "ucb1:c=1", iterations=2000, seed=5, early_stop=False)
    growth = visit_growth(c, "ucb1:c=1", 2000, seed=5)
    assert growth.iterations.tolist() == [20, 40, 100, 200, 400, 1000, 2000]
    assert growth.visits.sum(axis=1).tolist() == growth.iterations.tolist()
    np.testing.assert_array_equal(growth.visits[-1], whole.visits)
    np.testing.assert_array_equal(growth.values[-1], whole.values)
    assert (np.diff(growth.visits, axis=0) >= 0).all()
    fig = viz.plot_growth(c, growth, top=3)
    lines = fig.axes[0].lines
    order = np.argsort(-whole.visits, kind="stable")[:3]
    for line, i in zip(lines, order):
        np.testing.assert_array_equal(line.get_ydata(), growth.visits[:, i] / growth.iterations)


def test_growth_with_a_horizon_policy_on_go():
    g = make_game("go", size=5)
    whole = search(g, "miucb", iterations=300, seed=0, early_stop=False)  # bound to horizon 300
    growth = visit_growth(g, "miucb", 300, seed=0, fractions=(0.01, 0.5))
    np.testing.assert_array_equal(growth.visits[-1], whole.visits)
    assert growth.result.policy == whole.policy


def test_bad_arguments_name_themselves():
    with pytest.raises(ValueError, match="budget must be an integer >= 1"):
        checkpoints(0)
    with pytest.raises(ValueError, match="fractions must lie in"):
        checkpoints(10, (0.0,))
    g = make_game("nim")
    r = search(g, "ucb1", iterations=50, seed=0)
    with pytest.raises(ValueError, match="has no board"):
        plot_root(g, r)
    with pytest.raises(ValueError, match="depth must be an integer >= 0"):
        tree_dict(g, r, depth=-1)
    assert viz.principal_variation(r)[0] == r.move  # Python-driven trees work too
