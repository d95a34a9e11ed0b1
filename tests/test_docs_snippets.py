"""Every ```python block of README.md and docs/*.md runs as written.

Each block runs in a fresh interpreter (``python -c``) with a temporary folder as its working
directory and the repository root on ``sys.path``, so a block may write files (``results/...``)
and must not depend on files another block or command made.  Blocks are found anew on every run
(``docs/*.md`` is globbed), so a snippet added later is tested without touching this file.

A block that cannot run here (it needs a SLURM cluster, say) is preceded in the markdown by the
line ``<!-- snippet: not run (REASON) -->``: the test then compiles it, runs its imports of this
project's packages (so the names it uses exist) and reports it skipped with REASON.
"""
from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FENCE = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)
NOT_RUN = re.compile(r"<!--\s*snippet:\s*not run\s*\((.+?)\)\s*-->\s*\Z")
PACKAGES = ("bandits", "treepolicies", "testbeds")


def markdown_files() -> list[Path]:
    """README.md and every docs/*.md, in a fixed order."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def snippets() -> list[tuple[str, int, int, str, str | None]]:
    """(file, index among the file's python blocks, first line, code, reason not run or None) per block."""
    found = []
    for path in markdown_files():
        text = path.read_text(encoding="utf-8")
        for index, match in enumerate(FENCE.finditer(text)):
            line = text.count("\n", 0, match.start()) + 2  # the block's first code line
            before = NOT_RUN.search(text[: match.start()])  # the marker must end right before the fence
            reason = before.group(1) if before else None
            found.append((path.relative_to(ROOT).as_posix(), index, line, match.group(1), reason))
    return found


SNIPPETS = snippets()


def run_python(code: str, cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    """Run ``code`` saved as ``cwd/snippet.py`` (as a user saves it: numba's ``cache=True`` needs a
    file), the repository root first on the import path."""
    env = dict(os.environ, MPLBACKEND="Agg",
               PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
    script = Path(cwd) / "snippet.py"
    script.write_text(code)
    return subprocess.run([sys.executable, str(script)], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


def project_imports(code: str) -> str:
    """The import statements of ``code`` that import from this project's packages, as source."""
    lines = []
    for node in ast.parse(code).body:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in PACKAGES:
            lines.append(ast.unparse(node))
        elif isinstance(node, ast.Import) and any(a.name.split(".")[0] in PACKAGES for a in node.names):
            lines.append(ast.unparse(node))
    return "\n".join(lines)


def test_the_docs_have_python_snippets():
    files = {file for file, *_ in SNIPPETS}
    assert "README.md" in files and len(SNIPPETS) >= 3


def test_the_not_run_marker_is_recognised():
    text = "x\n<!-- snippet: not run (needs a cluster) -->\n"
    assert NOT_RUN.search(text).group(1) == "needs a cluster"
    assert NOT_RUN.search("<!-- snippet: not run (a) -->\nsome prose\n") is None


# README's blocks in the default tier; the guides' blocks (each a fresh interpreter that compiles
# what it uses, 2-50 s apiece on a fresh clone) with --slow, which .ci/run runs for this file
@pytest.mark.parametrize("file, index, line, code, reason",
                         [pytest.param(*s, marks=() if s[0] == "README.md" else pytest.mark.slow) for s in SNIPPETS],
                         ids=[f"{file}-{index}" for file, index, *_ in SNIPPETS])
def test_snippet_runs(file, index, line, code, reason, tmp_path):
    where = f"{file}, python block {index} (line {line})"
    compile(code, where, "exec")
    if reason is not None:
        imports = project_imports(code)
        if imports:
            done = run_python(imports, tmp_path, timeout=300)
            assert done.returncode == 0, f"{where}: its imports fail:\n{done.stderr[-3000:]}"
        pytest.skip(f"{where} not run: {reason}")
    done = run_python(code, tmp_path)
    assert done.returncode == 0, f"{where} failed (exit {done.returncode}):\n{done.stderr[-3000:]}"
