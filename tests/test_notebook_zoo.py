"""notebooks/bandit_zoo.ipynb runs end to end at a tiny size and prints what the runner computes."""
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

from testbeds.bai import bai_testbed, budget  # noqa: E402
from testbeds.runner import run_testbed  # noqa: E402
from testbeds.testbed import BernoulliTestbed, NonStationaryTestbed  # noqa: E402
from tests.notebook_helpers import execute_notebook  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "bandit_zoo.ipynb"


@pytest.mark.slow  # (the zoo notebook compiles every zoo policy in its kernel: a minute on a fresh clone)
def test_zoo_notebook_runs_at_a_tiny_size():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code[0].source.lstrip().startswith("# Parameters")
    code[0].source += ("\nTASKS = 6\nHORIZON = 80\nBAI_TASKS = 8\nBAI_EXPERIMENTS = [4]\nNS_TASKS = 4\n"
                       "NS_HORIZON = 60\nWORKERS = 1\n")
    execute_notebook(nb, ROOT, timeout=900)
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
    # the non-stationary section shows the constant step-size estimates (Sutton & Barto 2.5)
    # beside D-UCB and SW-UCB, with the runner's numbers
    ns = run_testbed(["egreedy:epsilon=0.1,alpha=0.1", "ducb:gamma=0.9995", "swucb:window=1000"],
                     NonStationaryTestbed(n_tasks=4, n_arms=10, seed=0), 60, progress=False)
    for p, label in enumerate(["epsilon-greedy, alpha = 0.1", "discounted UCB", "sliding-window UCB"]):
        assert f"{label:28s} regret at 60: {ns.curves['regret'][p, -1]:8.1f}" in text, label
    assert "softmax, alpha = 0.1" in text
