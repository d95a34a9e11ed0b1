"""Running a notebook the documented way, ``jupyter nbconvert --to notebook --execute``, works once
the test extras are installed (issue 24, item 24).

Found: the test extras held the notebook runner the tests use (nbclient, nbformat, ipykernel) but
not nbconvert, so after ``pip install -e ".[test]"`` the command answered "Jupyter command
`jupyter-nbconvert` not found".  The extras now hold nbconvert (pyproject.toml).
"""
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _extra(name: str) -> set[str]:
    """The distribution names in the optional dependency group ``name`` of pyproject.toml."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        tomllib = pytest.importorskip("tomli")
    with open(ROOT / "pyproject.toml", "rb") as f:
        requirements = tomllib.load(f)["project"]["optional-dependencies"][name]
    return {re.split(r"[<>=!~\[; ]", r, maxsplit=1)[0].strip().lower() for r in requirements}


def _jupyter() -> str | None:
    """The ``jupyter`` command installed beside this Python (where pip puts the extras' scripts)."""
    here = Path(sys.executable).with_name("jupyter")
    return str(here) if here.is_file() else shutil.which("jupyter")


def test_the_test_extras_hold_what_running_a_notebook_needs():
    # nbconvert: the command; nbclient and ipykernel: what it runs the cells through and in
    assert {"nbconvert", "nbclient", "nbformat", "ipykernel"} <= _extra("test"), _extra("test")


def test_jupyter_nbconvert_is_there_with_the_test_extras():
    # `jupyter nbconvert` runs the script jupyter-nbconvert that nbconvert installs beside the
    # jupyter command (the command itself runs in the slow test below)
    from importlib.metadata import PackageNotFoundError, version

    try:
        installed = version("nbconvert")
    except PackageNotFoundError:  # before: the test extras did not install it
        pytest.fail("nbconvert is not installed: pip install -e '.[test]'")
    assert int(installed.split(".")[0]) >= 7, installed  # the version pyproject.toml asks for
    jupyter = _jupyter()
    assert jupyter is not None and Path(jupyter).with_name("jupyter-nbconvert").is_file(), jupyter


@pytest.mark.slow  # a kernel and a tiny tables demo: about 12 s
def test_a_notebook_runs_as_shipped_with_jupyter_nbconvert(tmp_path):
    # go_nogo_tables.ipynb as shipped, run in its own folder as nbconvert does; without its
    # database (a clone has none) it shows a tiny demo grid
    proc = subprocess.run([_jupyter(), "nbconvert", "--to", "notebook", "--execute", "notebooks/go_nogo_tables.ipynb",
                           "--output-dir", str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    nb = json.loads((tmp_path / "go_nogo_tables.ipynb").read_text())
    outputs = [o for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])]
    assert outputs and not [o for o in outputs if o["output_type"] == "error"]
    assert all(c.get("execution_count") for c in nb["cells"] if c["cell_type"] == "code")  # every cell ran
