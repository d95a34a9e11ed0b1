"""Ctrl-C (issue 15, item 9): an interrupt always stops the run with exit 130 and a true message.

Before, a Ctrl-C that landed in one of numba's ctypes callbacks while compiling was printed as
"Exception ignored on calling ctypes callback ... KeyboardInterrupt" and the match ran to its end
with exit 0; ``testbed`` and ``figures`` said "interrupted; finished work is saved." while nothing
was saved.  The ctypes callback below stands for numba's: a Python function called from C.
"""
import ctypes
import os
import signal
import subprocess
import sys
import textwrap

import pytest

import testbeds.figures
import testbeds.runner
import testbeds.tournament
from bandits.compiling import interrupts_delivered, notice
from testbeds.cli import main

REAL_PLAY = testbeds.tournament.play_task
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CALLBACK = ctypes.CFUNCTYPE(None)


@pytest.fixture(autouse=True)
def ctrl_c_delivered():
    """Ctrl-C as a terminal delivers it, even when the suite itself was started with SIGINT ignored
    (a shell's background job, ``cmd &``, starts with SIGINT ignored, and Python then installs no
    KeyboardInterrupt handler): these tests are about what happens when it arrives."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def _default_sigint():  # (in the child, before exec: Python installs its handler for SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_an_interrupt_inside_a_ctypes_callback_stops_the_block(capfd):
    reached = []

    def compiling():  # numba's compiler calls Python back from C; Ctrl-C arrives there
        os.kill(os.getpid(), signal.SIGINT)
        reached.append("callback")

    def next_step():
        reached.append("after")

    callback = CALLBACK(compiling)
    with pytest.raises(KeyboardInterrupt):
        with notice("a test kernel"):
            callback()  # ctypes swallows the KeyboardInterrupt raised in here ...
            next_step()  # ... so, before, the block went on
    assert reached == []  # the callback was interrupted, nothing after it ran
    assert "Exception ignored" not in capfd.readouterr().err
    with pytest.raises(KeyboardInterrupt):  # the command line's wrapper, the same way
        with interrupts_delivered():
            callback()
            next_step()
    assert reached == []


def test_other_unraisable_exceptions_still_reach_the_previous_hook(monkeypatch):
    seen = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: seen.append(repr(u.exc_value)))

    def broken():
        raise RuntimeError("a callback bug")

    with interrupts_delivered():
        CALLBACK(broken)()  # not an interrupt: reported as before, and the block goes on
    assert seen == ["RuntimeError('a callback bug')"]
    assert sys.unraisablehook is not None and seen  # the previous hook is back


def interrupt(*a, **k):
    raise KeyboardInterrupt


@pytest.mark.parametrize("command, patch", [("testbed", (testbeds.runner, "run_testbed")),
                                            ("figures", (testbeds.figures, "run_testbed"))])
def test_testbed_and_figures_say_that_nothing_is_saved(tmp_path, capsys, monkeypatch, command, patch):
    out = tmp_path / "out"
    args = [command, "--tasks", "2", "--arms", "3", "--horizon", "5", "--workers", "1", "--no-progress",
            "--out", str(out)]
    assert main(args) == 0
    before = sorted(os.listdir(out))
    monkeypatch.setattr(*patch, interrupt)
    capsys.readouterr()
    assert main(args + ["--overwrite"]) == 130
    assert capsys.readouterr().err == (f"banditree {command}: interrupted; nothing is saved (the results are written "
                                       f"when the run ends; {out} is as it was); rerun the command to start again\n")
    assert sorted(os.listdir(out)) == before


def stop_after(monkeypatch, n):
    """play_task plays ``n`` games, then Ctrl-C."""
    real, played = REAL_PLAY, []

    def play(task):
        if len(played) == n:
            raise KeyboardInterrupt
        played.append(task.index)
        return real(task)
    monkeypatch.setattr(testbeds.tournament, "play_task", play)


def test_match_says_how_many_games_are_saved(tmp_path, capsys, monkeypatch):
    base = ["match", "--game", "nim", "--a", "random", "--b", "random", "--playouts", "5", "--games", "4",
            "--no-progress"]
    stop_after(monkeypatch, 1)
    assert main(base) == 130
    assert capsys.readouterr().err == ("banditree match: interrupted; nothing is saved (without --db the games are "
                                       "kept in memory only)\n")
    db = tmp_path / "m.sqlite"
    stop_after(monkeypatch, 3)
    assert main(base + ["--db", str(db)]) == 130
    assert capsys.readouterr().err == (f"banditree match: interrupted; 3 finished games are saved in {db}; rerun the "
                                       f"same command to resume\n")


def test_tables_say_what_is_saved_and_write_the_partial_tables(tmp_path, capsys, monkeypatch):
    db, out = tmp_path / "t.sqlite", tmp_path / "out"
    stop_after(monkeypatch, 1)
    assert main(["tables", "--game", "nogo", "--size", "5", "--c", "0.5,1", "--playouts", "4", "--games", "2",
                 "--workers", "1", "--no-progress", "--db", str(db), "--out", str(out)]) == 130
    # (a compilation notice comes first when this process compiles NoGo's loop: which test does
    # that first depends on the tier and the order, so it is not part of what is checked)
    err = "".join(line for line in capsys.readouterr().err.splitlines(True)
                  if not line.startswith("banditree: compiling "))
    assert err == (f"banditree tables: interrupted; 1 finished game is saved in {db}, the partial "
                   f"tables in {out}; rerun the same command to resume\n")
    assert "(partial)" in (out / "table.md").read_text()


def run_child(script, *argv):
    """Start ``script``; send SIGINT once it prints READY on stderr; returns (status, stderr)."""
    proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent(script), *argv], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, preexec_fn=_default_sigint)
    lines = []
    try:
        for line in proc.stderr:
            lines.append(line)
            if line.startswith("READY"):
                proc.send_signal(signal.SIGINT)
                break
        lines += proc.stderr.readlines()
        return proc.wait(timeout=120), "".join(lines)
    finally:
        proc.kill()
        proc.wait()


def test_a_real_ctrl_c_during_compilation_stops_the_command_with_130(tmp_path):
    # a real SIGINT, sent once the child is inside a ctypes callback standing for numba's compiler
    status, err = run_child("""
        import ctypes, sys, time
        import testbeds.runner
        from bandits.compiling import notice
        from testbeds.cli import main

        def compiling():
            print("READY", file=sys.stderr, flush=True)
            time.sleep(60)  # Ctrl-C interrupts the sleep: a KeyboardInterrupt inside the callback

        def run_testbed(*a, **k):
            with notice("the testbed loop"):
                ctypes.CFUNCTYPE(None)(compiling)()
                print("WENT ON", file=sys.stderr, flush=True)
            sys.exit(0)

        testbeds.runner.run_testbed = run_testbed
        sys.exit(main(sys.argv[1:]))
    """, "testbed", "--workers", "1", "--no-progress", "--out", str(tmp_path / "o"))
    assert status == 130, err
    assert "WENT ON" not in err and "Exception ignored" not in err
    assert err.splitlines()[-1].startswith("banditree testbed: interrupted; nothing is saved")


def test_testbed_interrupt_message_counts_the_saved_chunks(tmp_path):
    # 2 policies x ceil(120 / 50) = 3 chunks each: 6 units; 4 chunk files saved so far
    import argparse

    from testbeds.commands.testbed import interrupted
    chunks = tmp_path / "out.checkpoints"
    chunks.mkdir()
    for k in range(4):
        (chunks / f"key-{50 * k}.npz").write_bytes(b"")
    args = argparse.Namespace(out=str(tmp_path / "out"), _checkpoints=str(chunks), _units=2 * 3)
    assert interrupted(args) == (f"saved 4 of 6 task chunks in {chunks}; {tmp_path / 'out'} is as it was; "
                                 f"rerun the same command to resume")
