"""notebooks/root_policies.ipynb runs end to end at a tiny size: the study's figures from the files in
docs/results/, and the live comparison's numbers are the searches' own (recomputed here)."""
import json
from pathlib import Path

import numpy as np
import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

from treepolicies import make_game  # noqa: E402
from treepolicies.players import make_player  # noqa: E402
from tests.notebook_helpers import execute_notebook  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "root_policies.ipynb"


@pytest.mark.slow  # (its kernel compiles the root schemes' search loops: a minute on a fresh clone)
def test_root_policies_notebook_runs_and_prints_the_searches_numbers():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code[0].source.lstrip().startswith("# Parameters")
    code[0].source += ('\nLIVE_ITERATIONS = 60\nLIVE_RUNS = 3\n'
                       'LIVE_SCHEMES = {"UCT (robust)": "ucb1:c=0.5", '
                       '"seqhalving": "ucb1:c=0.5,root_policy=seqhalving,final=recommend"}\n')
    execute_notebook(nb, ROOT / "notebooks", timeout=900)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.output_type == "error"]
    assert len([o for o in outputs if "image/png" in o.get("data", {})]) == 4  # strength, 2 x regret, live
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    strength = json.loads((ROOT / "docs/results/root_policies_strength.json").read_text())
    regret = json.loads((ROOT / "docs/results/root_policies_regret.json").read_text())
    assert f"{len(strength)} strength cells, {len(regret)} regret cells" in text
    tune = json.loads((ROOT / "docs/results/root_policies_tune.json").read_text())
    regret_c4 = json.loads((ROOT / "docs/results/root_policies_regret_connect4.json").read_text())
    assert f"{len(tune)} tuning cells, {sum('scheme' in c for c in regret_c4.values())} Connect Four regret cells" in text
    for b in (c for k, c in tune.items() if k.startswith("best|")):  # the tuned c's table, from the file
        scores = [tune[f"{b['game']}|{b['playouts']}|c={c}|n={b['games']}"]["score"] for c in b["grid"][1:]]
        assert (f"{b['game']:10s} {b['playouts']:8d}  " + "  ".join(f"{s:7.3f}" for s in scores)
                + f"  {b['best_c']}") in text
    # O to move after X 0, O 4, X 8: the edges (1, 3, 5, 7) draw, the corners (2, 6) lose -- by hand:
    # a corner lets X take the other free corner with two threats at once
    assert "exact values: {1: 0.5, 2: 0.0, 3: 0.5, 5: 0.5, 6: 0.0, 7: 0.5}" in text
    for label, spec in (("UCT (robust)", "ucb1:c=0.5"),
                        ("seqhalving", "ucb1:c=0.5,root_policy=seqhalving,final=recommend")):
        game = make_game("tictactoe")
        for m in (0, 4, 8):
            game.play(m)
        player = make_player(spec, playouts=60)
        chosen = [player.choose(game.copy(), seed) for seed in range(3)]
        right = np.mean([m in (1, 3, 5, 7) for m in chosen])
        sr = np.mean([0.0 if m in (1, 3, 5, 7) else 0.5 for m in chosen])
        assert f"{label:18s} best move {right:6.3f}   simple regret {sr:.4f}" in text
