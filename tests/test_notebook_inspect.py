"""notebooks/inspect_search.ipynb runs end to end at a tiny size."""
import os

import nbformat
import pytest

from tests.notebook_helpers import execute_notebook

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.parametrize("cwd", [ROOT, pytest.param(os.path.join(ROOT, "notebooks"), marks=pytest.mark.slow)],
                         ids=["from-root", "from-notebooks"])  # (the second: the slow tier)
def test_notebook_runs_tiny(cwd):
    nb = nbformat.read(os.path.join(ROOT, "notebooks", "inspect_search.ipynb"), as_version=4)
    first = next(c for c in nb.cells if c.cell_type == "code")
    first.source = ('PLAYOUTS = 200\nGO_MOVES = "E5 C3 G7"\nC4_MOVES = "3 3 2"\nPLAYER = "ucb1:c=0.5"\nSEED = 0\n'
                    'TUNE_GRID = "0.5,50"\nTUNE_AGAINST = "ucb1:c=1.4"\nTUNE_PLAYOUTS = 300\nTUNE_BUDGET = 80')
    execute_notebook(nb, cwd)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.output_type == "error"]
    text = "".join(o.get("text", "") for o in outputs)
    assert "principal variation: ['" in text and "visit shares by column:" in text
    assert "schedule (candidates, games each) per round: [(2, 40)]" in text
    assert "best: ucb1:c=0.5, score " in text  # the planted difference (c = 50 explores blindly)
    images = sum("image/png" in o.get("data", {}) for o in outputs)
    assert images >= 5  # Go heatmaps, tree view, Connect Four bars, growth, tuning plot
