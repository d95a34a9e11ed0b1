"""notebooks/go_nogo_tables.ipynb runs end to end on a tiny results database."""
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

from testbeds.tables import TablesSpec, run_tables  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "go_nogo_tables.ipynb"


def test_notebook_runs_on_a_tiny_grid(tmp_path):
    db = tmp_path / "tiny.sqlite"
    spec = TablesSpec(game="nogo", cs=(0.5, 1.0), playouts=(8, 16), mis=("miucb:episodic=true",), games=2,
                      seed=0, game_options={"size": 5})
    run_tables(spec, db, progress=False)
    nb = nbformat.read(NOTEBOOK, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code[0].source.lstrip().startswith("# Parameters")
    code[0].source = f"DB = {str(db)!r}\nGAMES = None"
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(ROOT)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.output_type == "error"]
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "4 cells, 8 games" in text
    markdown = [o["data"]["text/markdown"] for o in outputs if "text/markdown" in o.get("data", {})]
    assert len(markdown) == 1 and "| C \\ playouts | 8 | 16 |" in markdown[0]
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) == 2  # the heatmap and the rate against playouts
