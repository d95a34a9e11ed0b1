"""notebooks/mcts_enhancements.ipynb runs end to end at a tiny size."""
import os

import nbformat
import pytest

from tests.notebook_helpers import execute_notebook

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.slow  # (its kernel compiles a search loop per enhancement: 50 s on a fresh clone)
@pytest.mark.parametrize("cwd", [ROOT, os.path.join(ROOT, "notebooks")], ids=["from-root", "from-notebooks"])
def test_notebook_runs_tiny(cwd):
    nb = nbformat.read(os.path.join(ROOT, "notebooks", "mcts_enhancements.ipynb"), as_version=4)
    first = next(c for c in nb.cells if c.cell_type == "code")
    first.source = ('PLAYOUTS = 40\nGAMES = 2\nSEED = 0\nBASE = "ucb1:c=0.5"\n'
                    'VARIANTS = {"RAVE": "rave=true", "heuristic rollouts": "rollout=heuristic"}\n'
                    'GAMES_PLAYED = ["connect4"]\n'
                    'SECOND = {"transpositions": "ucb1:c=0.5,transpositions=true", '
                    '"evaluator": "puct:c=1.5,evaluator=c4_windows,eval_batch=8"}')
    execute_notebook(nb, cwd)
    assert not [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    outputs = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    assert "RAVE                 chooses" in outputs and "of plain UCT" in outputs
    assert "connect4  heuristic rollouts" in outputs
    assert "positions" in outputs and "connect4  evaluator" in outputs
