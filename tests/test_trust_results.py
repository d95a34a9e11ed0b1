"""Nothing of a testbed run is lost on the way to its results folder (issue 24, items 1, 2, 5, 6).

Before: ``run_testbed`` removed ``OUT.checkpoints`` before the folder swap, so a swap that failed
(a folder of notes made meanwhile, a full disk while the plots were written, a dangling ``--out``
link) lost every computed chunk; two runs with the same ``--out`` replaced each other silently;
a full disk while saving a checkpoint was a traceback with a ``.npz.part`` left behind; a link
given as ``--out`` was replaced by a folder.

The process-level tests run the real command in a child process that pauses once its first
chunk is saved (it waits for a line on stdin), so what the test does meanwhile always lands in the
middle of the run, however fast the machine.
"""
import errno
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import testbeds.checkpoints
import testbeds.plots
import testbeds.runner
from testbeds.cli import main
from testbeds.results import METRICS, read_results
from testbeds.runner import run_testbed
from testbeds.testbed import GaussianTestbed

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# 120 tasks in chunks of 50: 3 chunks of work (tasks 0, 50, 100)
RUN = ["testbed", "--tasks", "120", "--arms", "4", "--horizon", "30", "--seed", "5", "--workers", "1",
       "--no-progress"]
CHUNKS = 3

PAUSED = textwrap.dedent("""
    import sys
    import testbeds.checkpoints as cp
    from testbeds.cli import main
    real = cp.ChunkStore.save
    state = {"paused": False}
    def save(self, *a, **k):
        real(self, *a, **k)
        if not state["paused"]:  # the first chunk is on disk: let the test act, then go on
            state["paused"] = True
            print("SAVED", file=sys.stderr, flush=True)
            sys.stdin.readline()
    cp.ChunkStore.save = save
    sys.exit(main(sys.argv[1:]))
""")


def paused_run(*argv):
    """Start the command in a child process; returns it once its first chunk is saved."""
    proc = subprocess.Popen([sys.executable, "-c", PAUSED, *argv], cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONPATH=ROOT))
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if line.startswith("SAVED"):
            return proc
    proc.wait()
    pytest.fail("the run ended before saving a chunk: " + "".join(seen))


def go_on(proc):
    """Let a paused run go on; returns (status, stdout, stderr)."""
    out, err = proc.communicate("\n", timeout=300)
    return proc.returncode, out, err


@pytest.fixture(scope="module")
def ref():
    """The same run in this process, without checkpoints."""
    return run_testbed(["ucb1"], GaussianTestbed(n_tasks=120, n_arms=4, seed=5), 30, seed=5, progress=False)


def assert_same_curves(folder, ref):
    got = read_results(folder)
    for name in METRICS:
        np.testing.assert_array_equal(got.curves[name], ref.curves[name], err_msg=name)


def chunk_files(folder):
    return sorted(os.listdir(folder)) if os.path.isdir(folder) else []


def no_computing(monkeypatch):
    """A rerun may load checkpoints only: computing a chunk fails the test."""
    monkeypatch.setattr(testbeds.runner, "_chunk_job", lambda *a, **k: pytest.fail("a chunk was computed again"))


def test_a_swap_refused_at_the_end_keeps_every_computed_chunk_and_the_rerun_resumes(tmp_path, monkeypatch, ref):
    out = tmp_path / "fx"
    proc = paused_run(*RUN, "--no-plots", "--out", str(out))
    out.mkdir()  # meanwhile, someone keeps notes in the output folder (issue 24, item 1)
    (out / "notes.txt").write_text("notes")
    rc, _, err = go_on(proc)
    assert rc == 2, err
    chunks = f"{out}.checkpoints"
    assert len(chunk_files(chunks)) == CHUNKS and all(n.endswith(".npz") for n in chunk_files(chunks))  # all kept
    assert err.splitlines()[-1] == (
        f"banditree testbed: error: --out {str(out)!r} holds files that are not results (notes.txt); the results "
        f"folder is replaced as a whole, so give it a folder of its own; saved {CHUNKS} of {CHUNKS} task chunks "
        f"in {chunks}; {out} is as it was; rerun the same command to resume")
    assert sorted(os.listdir(out)) == ["notes.txt"]
    assert sorted(os.listdir(tmp_path)) == ["fx", "fx.checkpoints"]  # no lock file, no temporary folder

    (out / "notes.txt").unlink()
    no_computing(monkeypatch)
    assert main(RUN + ["--no-plots", "--out", str(out)]) == 0
    assert_same_curves(out, ref)
    assert sorted(os.listdir(tmp_path)) == ["fx"]  # the checkpoints are removed once the folder is in


def test_a_full_disk_while_the_plots_are_written_keeps_the_chunks(tmp_path, capsys, monkeypatch, ref):
    out = tmp_path / "fx"

    def full(fig, path, dpi=150):
        with open(path, "wb") as f:
            f.write(b"\x89PNG partial")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    with monkeypatch.context() as m:
        m.setattr(testbeds.plots, "save_png", full)
        assert main(RUN + ["--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err == (f"banditree testbed: error: cannot write --out {out} (No space left on device: {out}/regret.png); "
                   f"saved {CHUNKS} of {CHUNKS} task chunks in {out}.checkpoints; {out} is as it was; rerun the same "
                   f"command to resume\n")
    assert sorted(os.listdir(tmp_path)) == ["fx.checkpoints"]  # no folder, no partial PNG, no temporary folder
    assert len(chunk_files(f"{out}.checkpoints")) == CHUNKS

    no_computing(monkeypatch)
    assert main(RUN + ["--no-plots", "--out", str(out)]) == 0  # (the same run: its plots are not in its key)
    assert_same_curves(out, ref)
    assert sorted(os.listdir(tmp_path)) == ["fx"]


def test_a_full_disk_while_saving_a_checkpoint_is_one_line_and_leaves_no_partial_file(tmp_path, capsys, monkeypatch,
                                                                                     ref):
    out = tmp_path / "fx"
    real, calls = np.savez, []

    def savez(f, **arrays):
        calls.append(1)
        if len(calls) == 2:  # the second chunk: the disk fills up half way through the file
            f.write(b"PK\x03\x04 half a zip")
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(f, **arrays)

    with monkeypatch.context() as m:
        m.setattr(testbeds.checkpoints.np, "savez", savez)
        assert main(RUN + ["--no-plots", "--out", str(out)]) == 1
    chunks = tmp_path / "fx.checkpoints"
    assert capsys.readouterr().err == (
        f"banditree testbed: error: cannot write a checkpoint in {chunks} (No space left on device); saved 1 of "
        f"{CHUNKS} task chunks in {chunks}; {out} is as it was; rerun the same command to resume\n")
    assert len(chunk_files(chunks)) == 1 and chunk_files(chunks)[0].endswith("-0.npz")  # no .part beside it
    assert sorted(os.listdir(tmp_path)) == ["fx.checkpoints"]
    assert main(RUN + ["--no-plots", "--out", str(out)]) == 0  # resumes: the other two chunks computed
    assert_same_curves(out, ref)


def test_results_that_appear_during_the_run_are_not_replaced_without_overwrite(tmp_path, capsys, monkeypatch, ref):
    # the check of --out is made again at the swap: results written meanwhile (by another program,
    # or a banditree that took no lock) are refused like results that were there at the start
    out = tmp_path / "fx"
    real = testbeds.runner.run_testbed

    def run_and_someone_writes(*a, **k):
        result = real(*a, **k)
        from testbeds.results import write_results

        other = run_testbed(["ucb1"], GaussianTestbed(n_tasks=2, n_arms=4, seed=9), 30, seed=9, progress=False)
        write_results(other, out)
        return result

    monkeypatch.setattr(testbeds.runner, "run_testbed", run_and_someone_writes)
    assert main(RUN + ["--no-plots", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"banditree testbed: error: {out} already holds results (curves.npz, manifest.json, "
                          f"summary.csv); choose another output folder (--out) or pass --overwrite") and \
        err.count("\n") == 1
    assert read_results(out).n_tasks == 2  # the other results, untouched
    monkeypatch.setattr(testbeds.runner, "run_testbed", real)
    no_computing(monkeypatch)
    assert main(RUN + ["--no-plots", "--overwrite", "--out", str(out)]) == 0  # resumes from the kept chunks
    assert_same_curves(out, ref)


def test_a_second_run_with_the_same_out_is_refused_while_the_first_runs(tmp_path, capsys, ref):
    # the first run is another process, paused half way; the second writers run here (the lock is
    # between processes: this one does not hold it)
    out = tmp_path / "fx"
    link = tmp_path / "link"
    link.symlink_to("fx")  # the same folder under another name (issue 24, item 7's class: locks follow links)
    first = paused_run(*RUN, "--no-plots", "--out", str(out))
    try:
        second = main(RUN + ["--seed", "6", "--no-plots", "--overwrite", "--out", str(out)])
        second_err = capsys.readouterr().err
        sweep = main(["sweep", "--policy", "ucb1", "--horizon", "5", "--tasks", "2", "--arms", "2", "--workers", "1",
                      "--out", str(link)])
        sweep_err = capsys.readouterr().err
    finally:
        rc, _, err = go_on(first)

    def busy(name):
        return (f"--out {name} is in use by another banditree process (process {first.pid}) writing the same "
                f"folder; wait for it to finish or choose another --out")

    assert second == 2 and second_err == f"banditree testbed: error: {busy(out)}\n", second_err
    assert sweep == 2 and sweep_err == f"banditree sweep: error: {busy(link)}\n", sweep_err
    assert rc == 0, err
    assert read_results(out).config["seed"] == 5  # the first run's results, whole
    assert_same_curves(out, ref)
    assert sorted(os.listdir(tmp_path)) == ["fx", "link"]  # its checkpoints and its lock file are gone


@pytest.mark.parametrize("dangling", [False, True])
def test_an_out_that_is_a_symbolic_link_is_written_through(tmp_path, capsys, dangling, ref):
    target = tmp_path / "real"
    if not dangling:
        target.mkdir()
    link = tmp_path / "link"
    link.symlink_to(target)
    assert main(RUN + ["--no-plots", "--out", str(link)]) == 0, capsys.readouterr().err
    assert os.path.islink(link) and os.readlink(link) == str(target)  # the link stays a link ...
    assert sorted(os.listdir(target)) == ["curves.npz", "manifest.json", "summary.csv"]  # ... to the results
    assert sorted(os.listdir(tmp_path)) == ["link", "real"]  # no .link.old-*, no checkpoints, no lock file
    assert_same_curves(link, ref)
    # replaced through the link too (--overwrite)
    assert main(RUN + ["--no-plots", "--overwrite", "--out", str(link)]) == 0
    assert os.path.islink(link) and sorted(os.listdir(tmp_path)) == ["link", "real"]
