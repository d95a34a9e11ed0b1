"""notebooks/go_nogo_tables.ipynb runs end to end on a tiny results database, from the root or notebooks/.

A relative ``DB`` is read from the repository root whatever the working directory; without the
database the notebook prints the command that makes it and shows a tiny demo grid instead.
"""
import os
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

from testbeds.tables import TablesSpec, run_tables  # noqa: E402
from tests.notebook_helpers import execute_notebook  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "go_nogo_tables.ipynb"
WHERE = pytest.mark.parametrize("cwd", [ROOT, pytest.param(ROOT / "notebooks", marks=pytest.mark.slow)],
                                ids=["from-root", "from-notebooks"])  # (the second: the slow tier)


def run_notebook(db: str, cwd: Path):
    """Execute the notebook with ``DB = db`` in ``cwd``; its outputs: (stream text, markdown, images)."""
    nb = nbformat.read(NOTEBOOK, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code[0].source.lstrip().startswith("# Parameters")
    code[0].source = f"DB = {db!r}\nGAMES = None"
    execute_notebook(nb, cwd)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.output_type == "error"]
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    markdown = [o["data"]["text/markdown"] for o in outputs if "text/markdown" in o.get("data", {})]
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    return text, markdown, images


@WHERE
def test_notebook_runs_on_a_tiny_grid(tmp_path, cwd):
    db = tmp_path / "tiny.sqlite"
    spec = TablesSpec(game="nogo", cs=(0.5, 1.0), playouts=(8, 16), mis=("miucb:episodic=true",), games=2,
                      seed=0, game_options={"size": 5})
    run_tables(spec, db, progress=False)
    relative = os.path.relpath(db, ROOT)  # relative to the root, not to notebooks/: the notebook must find it
    text, markdown, images = run_notebook(relative, cwd)
    assert "No results database" not in text
    assert f"{db.resolve()}: nogo" in text and "4 cells, 8 games" in text
    assert len(markdown) == 1 and "| C \\ playouts | 8 | 16 |" in markdown[0]
    assert len(images) == 2  # the heatmap and the rate against playouts


def test_notebook_without_its_database_says_what_to_run(tmp_path):
    missing = os.path.relpath(tmp_path / "nogo9_tables.sqlite", ROOT)
    text, markdown, images = run_notebook(missing, ROOT / "notebooks")
    assert f"No results database at {(tmp_path / 'nogo9_tables.sqlite').resolve()}" in text
    assert f"banditree tables --game nogo --db {missing}" in text and "DEMO" in text
    assert not (tmp_path / "nogo9_tables.sqlite").exists()  # the demo is not written where results go
    assert "4 cells, 8 games" in text
    assert len(markdown) == 1 and "| C \\ playouts | 8 | 16 |" in markdown[0]
    assert len(images) == 2
