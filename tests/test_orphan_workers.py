"""Worker processes do not outlive a killed ``banditree testbed`` (issue 24, item 4).

Before, ``kill -9`` of ``banditree testbed --workers 2`` left both worker processes running for
good: re-parented, each waited on a pipe whose writing end it held itself.  Now each worker watches
its parent (testbeds.pools) and exits when it is gone.  A real command, a real SIGKILL of the parent
alone (not of its process group), and the workers looked up in /proc.
"""
import os
import signal
import subprocess
import sys
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs Linux /proc")


def children(pid):
    """Process ids whose parent is ``pid``."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(entry))
    return out


def alive(pid):
    """Whether ``pid`` is a process that has not exited (a zombie has exited: its parent has not reaped it)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.slow  # (a process test: the slow tier and CI's part of it)
def test_the_workers_of_a_killed_testbed_exit(tmp_path):
    out = tmp_path / "run"
    chunks = tmp_path / "run.checkpoints"
    # 20 000 tasks in chunks of 50: 400 chunks of work, never finished before the kill below
    proc = subprocess.Popen([sys.executable, "-m", "testbeds.cli", "testbed", "--tasks", "20000", "--arms", "10",
                             "--horizon", "10000", "--workers", "2", "--no-progress", "--out", str(out)],
                            cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT), start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    workers = []
    try:
        deadline = time.monotonic() + 300
        while not (chunks.is_dir() and any(n.endswith(".npz") for n in os.listdir(chunks))):  # the pool works
            if proc.poll() is not None:
                pytest.fail(f"the run ended before it could be killed: {proc.stderr.read()}")
            if time.monotonic() > deadline:
                pytest.fail("no chunk was saved in time")
            time.sleep(0.01)
        workers = [pid for pid in children(proc.pid) if alive(pid)]
        assert len(workers) >= 2  # the two workers (and multiprocessing's resource tracker)
        os.kill(proc.pid, signal.SIGKILL)  # the parent alone, as `kill -9 PID` does
        proc.wait(timeout=60)
        deadline = time.monotonic() + 60  # a bound on the wait, not a measurement: they exit at once
        while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [pid for pid in workers if alive(pid)] == [], "worker processes outlived their parent"
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # whatever is left of the session (the old code's workers)
        except ProcessLookupError:
            pass
        proc.wait()
