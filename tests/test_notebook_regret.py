"""notebooks/regret_curves.ipynb runs end to end at a tiny size and prints what the runner computes."""
from pathlib import Path

import numpy as np
import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

from testbeds.runner import run_testbed  # noqa: E402
from testbeds.testbed import make_testbed  # noqa: E402
from tests.notebook_helpers import execute_notebook  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "regret_curves.ipynb"


@pytest.mark.parametrize("cwd, workers", [(ROOT, 1), pytest.param(ROOT / "notebooks", 2, marks=pytest.mark.slow)],
                         ids=["from-root", "from-notebooks"])  # (the second: the slow tier)
def test_notebook_runs_at_a_tiny_size(cwd, workers):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code[0].source.lstrip().startswith("# Parameters")
    # keep the notebook's POLICIES; pin the testbed and shrink the run (workers=2: spawned from a kernel)
    code[0].source += f"\nENV = 'gaussian'\nARMS = 60\nSEED = 0\nTASKS = 4\nHORIZON = 60\nWORKERS = {workers}\n"
    execute_notebook(nb, cwd)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.output_type == "error"]
    assert not [o for o in outputs if "running in this process" in o.get("text", "")]  # a kernel can spawn
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) == 2  # regret and % optimal action
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    lines = [line for line in text.splitlines() if line.startswith("UCB ")]
    assert len(lines) == 1
    # the printed UCB regret is the runner's number for the same configuration
    testbed = make_testbed("gaussian", n_tasks=4, n_arms=60, seed=0)
    expected = run_testbed(["ucb1"], testbed, 60, seed=0, progress=False).curves["regret"][0, -1]
    assert f"regret {expected:9.1f}" in lines[0]
    assert np.isfinite(expected)
