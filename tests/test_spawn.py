"""run_testbed(workers=2) from programs that spawned workers cannot start from: it runs in-process instead.

Reference: the workers=1 run in this process (the runner is bit-identical for any worker count).
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from testbeds import GaussianTestbed, run_testbed
from testbeds._spawn import _guarded

ROOT = Path(__file__).resolve().parents[1]
POLICIES = ["ucb1", "thompson:prior=gaussian"]

RUN = f"""
import json
import testbeds
result = testbeds.run_testbed({POLICIES!r}, testbeds.GaussianTestbed(2, 3, seed=0), 5, seed=0, workers=2,
                              progress=False)
print(json.dumps({{name: values.tolist() for name, values in result.curves.items()}}))
"""
GUARDED = "if __name__ == '__main__':\n" + "".join(f"    {line}\n" for line in RUN.strip().splitlines())
PROBE = "from testbeds._spawn import spawn_problem\nprint(spawn_problem())\n"


def python(args, cwd, stdin=None, timeout=600):
    """Run the interpreter with the repository root first on the import path."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, input=stdin, capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture(scope="module")
def reference():
    result = run_testbed(POLICIES, GaussianTestbed(2, 3, seed=0), 5, seed=0, workers=1, progress=False)
    return result.curves


def assert_same_numbers(stdout, reference):
    curves = json.loads(stdout.strip().splitlines()[-1])
    assert set(curves) == set(reference)
    for name, values in reference.items():
        np.testing.assert_array_equal(np.array(curves[name]), values, err_msg=name)


def test_workers_from_stdin_run_in_this_process(tmp_path, reference):
    done = python(["-"], tmp_path, stdin=RUN)
    assert done.returncode == 0, done.stderr
    notice = [line for line in done.stderr.splitlines() if "running in this process" in line]
    assert len(notice) == 1 and "'<stdin>'" in notice[0] and "workers=1" in notice[0], done.stderr
    assert "BrokenProcessPool" not in done.stderr
    assert_same_numbers(done.stdout, reference)


def test_unguarded_script_runs_in_this_process(tmp_path, reference):
    script = tmp_path / "unguarded.py"
    script.write_text(RUN)
    done = python([str(script)], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "running in this process" in done.stderr and "unguarded.py line 4" in done.stderr, done.stderr
    assert len(done.stdout.strip().splitlines()) == 1  # the script ran once, not again in workers
    assert_same_numbers(done.stdout, reference)


def test_guarded_script_uses_worker_processes(tmp_path, reference):
    script = tmp_path / "guarded.py"
    script.write_text(GUARDED)
    done = python([str(script)], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "running in this process" not in done.stderr
    assert_same_numbers(done.stdout, reference)


@pytest.mark.parametrize("how, expected", [("stdin", "'<stdin>'"), ("-c", "None"), ("guarded file", "None"),
                                           ("unguarded file", "without `if __name__"), ("-m", "None")])
def test_spawn_problem_by_kind_of_main(tmp_path, how, expected):
    if how == "stdin":
        done = python(["-"], tmp_path, stdin=PROBE)
    elif how == "-c":
        done = python(["-c", PROBE], tmp_path)
    elif how == "-m":
        (tmp_path / "probe_pkg").mkdir()
        (tmp_path / "probe_pkg" / "__init__.py").write_text("")
        (tmp_path / "probe_pkg" / "__main__.py").write_text(PROBE)
        done = python(["-m", "probe_pkg"], tmp_path)
    else:
        script = tmp_path / "probe.py"
        script.write_text(PROBE if how == "unguarded file" else
                          "if __name__ == '__main__':\n" + "".join(f"    {x}\n" for x in PROBE.splitlines()))
        done = python([str(script)], tmp_path)
    assert done.returncode == 0, done.stderr
    assert expected in done.stdout.strip(), done.stdout
    if expected == "None":
        assert done.stdout.strip() == "None"


def test_guard_detection_reads_the_block_structure():
    source = ("import x\nx.run()\nif __name__ == '__main__':\n    x.run()\n    x.run()\n"
              "else:\n    x.run()\nif '__main__' == __name__:\n    x.run()\n")
    assert [_guarded(source, line) for line in range(1, 10)] == [False, False, False, True, True, False, False,
                                                                 False, True]
    assert _guarded("def broken(:\n", 1)  # unreadable source: nothing is claimed
