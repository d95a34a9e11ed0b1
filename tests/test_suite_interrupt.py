"""Ctrl-C and SIGTERM stop the test suite (issue 24, item 12): a real pytest, real signals.

Found: (1) during a notebook test, nbclient's handlers for SIGINT and SIGTERM (added to the main
thread's event loop by ``NotebookClient.execute``) only shut the kernel down; the test failed on
its dead kernel and the run went on with the next test, signal after signal (the notebook tests
now run notebooks through ``tests/notebook_helpers.py``).  (2) A Ctrl-C that lands in one of
numba's ctypes callbacks while a test compiles is 'ignored' by ctypes and the test goes on
(every test now runs inside ``bandits.compiling.interrupts_delivered``, ``tests/conftest.py``).
"""
import ctypes
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK_TEST = "tests/test_notebook_tree.py::test_notebook_runs_tiny[from-root]"
NEXT_TEST = "tests/test_plots_png.py"  # a quick test file after it: it must not run

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads processes from /proc (Linux)")


def _kernels_of(pid: int) -> list[int]:
    """The ipykernel processes whose parent is ``pid``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid and b"ipykernel" in cmdline:
            found.append(int(entry))
    return found


def _running(pid: int) -> bool:
    """Whether ``pid`` is a process that has not exited (a zombie has)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _default_sigint():  # (in the child, before exec)
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _pytest(args, cwd, log):
    """pytest in a session of its own (a terminal's foreground group), with SIGINT as a terminal
    gives it even when this suite runs as a background job (``cmd &`` starts with SIGINT ignored,
    which a child inherits, and Python then installs no KeyboardInterrupt handler)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", *args], cwd=cwd,
                            env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                            preexec_fn=_default_sigint)


def _signal_during_a_notebook(tmp_path, send):
    """Start the suite on a notebook test and a quick test file after it; once the notebook's
    kernel runs, ``send(pytest's pid)``; returns (exit status, output, the kernel's pid)."""
    log_path = tmp_path / "pytest.log"
    with open(log_path, "wb") as log:
        proc = _pytest([NOTEBOOK_TEST, NEXT_TEST], ROOT, log)
        try:
            deadline = time.monotonic() + 300  # (a guard for a broken machine, not a measurement)
            kernels = []
            while not kernels and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.1)
                kernels = _kernels_of(proc.pid)
            assert kernels, log_path.read_text()
            send(proc.pid)
            rc = proc.wait(timeout=120)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    return rc, log_path.read_text(), kernels[0]


def _kernel_exits(pid: int) -> bool:
    deadline = time.monotonic() + 60  # (ipykernel polls its parent every second)
    while _running(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not _running(pid)


def test_ctrl_c_during_a_notebook_test_stops_the_run(tmp_path):
    # a terminal's Ctrl-C: SIGINT to the foreground process group (the kernel has a session of its own)
    rc, out, kernel = _signal_during_a_notebook(tmp_path, lambda pid: os.killpg(pid, signal.SIGINT))
    assert rc == pytest.ExitCode.INTERRUPTED, out  # before: 1, the notebook test failed and the run went on
    assert "KeyboardInterrupt" in out, out
    assert "test_plots_png.py::" not in out, out  # no test ran after it
    assert _kernel_exits(kernel)


@pytest.mark.slow  # another pytest and kernel start (about 6 s); the Ctrl-C case above stays in the default run
def test_sigterm_during_a_notebook_test_ends_the_run(tmp_path):
    rc, out, kernel = _signal_during_a_notebook(tmp_path, lambda pid: os.kill(pid, signal.SIGTERM))
    assert rc == -signal.SIGTERM, out  # before: 1 (or 3), the run went on
    assert "test_plots_png.py::" not in out, out
    assert _kernel_exits(kernel)  # the kernel, polling its parent, exits with it


SYNTHETIC = textwrap.dedent('''
    import ctypes
    import os
    import signal

    CALLBACK = ctypes.CFUNCTYPE(None)


    def test_compiling():  # numba's compiler calls Python back from C: the Ctrl-C lands there
        CALLBACK(lambda: os.kill(os.getpid(), signal.SIGINT))()
        open("went_on", "w").close()


    def test_next():
        open("next_ran", "w").close()
''')


@pytest.fixture
def ctrl_c_delivered():
    """Ctrl-C as a terminal delivers it, even when this suite was started with SIGINT ignored."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


@pytest.mark.skipif(sys.gettrace() is not None, reason="under a tracer the interrupt waits for the test's end")
def test_a_ctrl_c_inside_a_ctypes_callback_interrupts_this_test(ctrl_c_delivered):
    # in this very process: a test runs inside interrupts_delivered (tests/conftest.py), so a
    # Ctrl-C that lands in a ctypes callback, as in numba's compiler, is raised at the next line
    # (before: ctypes printed "Exception ignored ..." and the test went on)
    reached = []
    with pytest.raises(KeyboardInterrupt):
        ctypes.CFUNCTYPE(None)(lambda: os.kill(os.getpid(), signal.SIGINT))()
        reached.append("went on")
    assert reached == []


@pytest.mark.slow  # another pytest (about 5 s); the in-process test above stays in the default run
def test_ctrl_c_inside_a_ctypes_callback_stops_the_run(tmp_path):
    # the suite's own conftest.py beside a test that is interrupted as numba's compiler is
    shutil.copy(ROOT / "tests" / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_synthetic.py").write_text(SYNTHETIC)
    with open(tmp_path / "pytest.log", "wb") as log:
        rc = _pytest(["test_synthetic.py"], tmp_path, log).wait(timeout=300)
    out = (tmp_path / "pytest.log").read_text()
    assert rc == pytest.ExitCode.INTERRUPTED, out  # before: 0, both tests passed
    assert not (tmp_path / "went_on").exists() and not (tmp_path / "next_ran").exists(), out
