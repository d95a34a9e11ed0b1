"""notebooks/bandit_zoo.ipynb runs end to end at a tiny size and prints what the runner computes."""
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

from testbeds.bai import bai_testbed, budget  # noqa: E402
from testbeds.runner import run_testbed  # noqa: E402
from testbeds.testbed import BernoulliTestbed  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "bandit_zoo.ipynb"


def test_zoo_notebook_runs_at_a_tiny_size():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code[0].source.lstrip().startswith("# Parameters")
    code[0].source += ("\nTASKS = 6\nHORIZON = 80\nBAI_TASKS = 8\nBAI_EXPERIMENTS = [4]\nNS_TASKS = 4\n"
                       "NS_HORIZON = 60\nWORKERS = 1\n")
    nbclient.NotebookClient(nb, timeout=900, kernel_name="python3",
                            resources={"metadata": {"path": str(ROOT)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.output_type == "error"]
    assert len([o for o in outputs if "image/png" in o.get("data", {})]) == 4
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "Lai & Robbins constant C = " in text
    # the printed numbers are the runner's for the same configuration
    means = [0.1, 0.05, 0.05, 0.05, 0.02, 0.02, 0.02, 0.01, 0.01, 0.01]
    r = run_testbed(["klucb"], BernoulliTestbed(n_tasks=6, n_arms=10, means=means, seed=0), 80, progress=False)
    assert f"KL-UCB         pseudo-regret at 80: {r.curves['pseudo_regret'][0, -1]:8.1f}" in text
    b = run_testbed(["sr"], bai_testbed(4, 8, seed=0), budget(4), progress=False)
    assert f"successive rejects       P(wrong arm) {b.recommendation[0]['p_error']:.3f}" in text
