"""notebooks/bandit_as_tree_policy.ipynb runs end to end at a tiny size."""
import os

import nbformat
import pytest

from tests.notebook_helpers import execute_notebook

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.parametrize("cwd", [ROOT, pytest.param(os.path.join(ROOT, "notebooks"), marks=pytest.mark.slow)],
                         ids=["from-root", "from-notebooks"])  # (the second: the slow tier)
def test_notebook_runs_tiny(cwd):
    nb = nbformat.read(os.path.join(ROOT, "notebooks", "bandit_as_tree_policy.ipynb"), as_version=4)
    first = next(c for c in nb.cells if c.cell_type == "code")
    first.source = ('PLAYOUTS = 50\nGAMES = 2\nSEED = 0\nBASELINE = "ucb1:c=1.4"\n'
                    'POLICIES = ["miucb:episodic=true", "thompson"]\nTASKS, PLAYS = 4, 60')
    execute_notebook(nb, cwd)
    assert not [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    outputs = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    assert "miucb:episodic=true vs ucb1:c=1.4" in outputs and "visits by column" in outputs
    assert "regret at the last play:" in outputs and "nb_ucb1tuned vs ucb1" in outputs  # section 3
