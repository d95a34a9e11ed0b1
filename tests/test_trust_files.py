"""Files and folders a command is given: nothing wrong, nothing left behind (issue 24, items 7, 8, 10,
11, 17, 22, 23).

Before (fac6c75): a second writer reached a database through a symbolic link without meeting its
lock; ``--db /dev/null`` was "damaged (disk I/O error)" and left ``/dev/null.lock`` and
``/dev/null-journal``; every refused ``--db`` and every finished match/tune/tables left a
``*.sqlite.lock``; ``analyze --overwrite`` mixed old and new files when it failed half-way, gave an
IsADirectoryError traceback, and wrote its files 0600; ``plot`` gave tracebacks on damaged or crafted
folders, drew a truncated array without a word, and merged runs of different testbeds under one
Lai & Robbins bound; ``testbed`` printed no numbers; ``tables --db results/tables.sqlite`` wrote to
``results/tables_tables/``; an unknown option named the top-level help and suggested nothing.
"""
import errno
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from testbeds.cli import main
from testbeds.results import METRICS, read_results, write_results
from testbeds.runner import run_testbed
from testbeds.store import ResultStore
from testbeds.testbed import BernoulliTestbed, GaussianTestbed

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MATCH = ["match", "--game", "nim", "--a", "random", "--b", "random", "--playouts", "4", "--no-progress"]


def listing(folder):
    return sorted(os.listdir(folder))


def games_in(db):
    with ResultStore(db) as store:
        return sum(len(store.games(run.run_id)) for run in store.runs())


# -- item 7: the database lock is taken on the file a link names --------------------------------------
HOLD = textwrap.dedent("""
    import sys
    from testbeds.store import ResultStore
    store = ResultStore(sys.argv[1], lock=True)  # the writer lock of an existing database, held
    print("LOCKED", flush=True)
    sys.stdin.readline()
    store.close()
""")


@pytest.mark.parametrize("holder, writer", [("real", "link"), ("link", "real"), ("real", "chain")])
def test_a_second_writer_is_refused_through_a_symbolic_link(tmp_path, capsys, holder, writer):
    real = tmp_path / "games.sqlite"
    paths = {"real": real, "link": tmp_path / "link.sqlite", "chain": tmp_path / "chain.sqlite"}
    paths["link"].symlink_to("games.sqlite")  # (relative, as `ln -s` makes it)
    paths["chain"].symlink_to(paths["link"])  # a link to the link
    assert main(MATCH + ["--games", "2", "--db", str(real)]) == 0
    capsys.readouterr()
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(paths[holder])], cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONPATH=ROOT))
    try:
        assert proc.stdout.readline() == "LOCKED\n", proc.stderr.read()
        # the same match, resumed to 4 games through another name of the same file: refused at once
        assert main(MATCH + ["--games", "4", "--db", str(paths[writer])]) == 2
    finally:
        proc.communicate("\n", timeout=60)
    assert capsys.readouterr().err == (
        f"banditree match: error: {paths[writer]} is in use by another banditree process (process {proc.pid}); wait "
        f"for it to finish or use another --db (lock file {os.path.realpath(real)}.lock)\n")
    assert games_in(real) == 2  # nothing was added by the refused writer
    assert listing(tmp_path) == ["chain.sqlite", "games.sqlite", "link.sqlite"]  # the holder's lock file is gone


# -- item 8: a --db that is not a regular file; lock files left behind ------------------------------------
@pytest.fixture
def dev_null_left_alone():
    """Remove what a run of the old code creates beside /dev/null (this test runs it as root there)."""
    leftovers = ["/dev/null.lock", "/dev/null-journal", "/dev/null-wal", "/dev/null-shm"]
    before = {p for p in leftovers if os.path.lexists(p)}
    yield leftovers, before
    for path in leftovers:
        if path not in before and os.path.lexists(path):
            os.unlink(path)


@pytest.mark.parametrize("kind", ["/dev/null", "fifo", "folder"])
def test_a_db_that_is_not_a_regular_file_is_refused_and_nothing_is_created(tmp_path, capsys, kind,
                                                                           dev_null_left_alone):
    if kind == "/dev/null":
        db, what = "/dev/null", "not a regular file"
    elif kind == "fifo":
        db, what = str(tmp_path / "pipe.sqlite"), "not a regular file"
        os.mkfifo(db)
    else:
        db, what = str(tmp_path / "folder.sqlite"), "a folder"
        os.mkdir(db)
    before = listing(tmp_path)
    assert main(MATCH + ["--games", "2", "--db", db]) == 2
    assert capsys.readouterr().err == (f"banditree match: error: results database {db} (--db) is {what}; a results "
                                       f"database is an SQLite file: give a file path\n")
    assert listing(tmp_path) == before  # no .lock, no -journal beside it
    leftovers, existed = dev_null_left_alone
    assert [p for p in leftovers if os.path.lexists(p) and p not in existed] == []


def test_a_refused_database_keeps_its_bytes_and_leaves_no_lock_file(tmp_path, capsys):
    db = tmp_path / "notes.sqlite"
    db.write_bytes(b"my notes, not a database\n" * 100)
    assert main(MATCH + ["--games", "2", "--db", str(db)]) == 2
    assert capsys.readouterr().err == (f"banditree match: error: results database {db} (--db) is not a banditree "
                                       f"results database (file is not a database)\n")
    assert listing(tmp_path) == ["notes.sqlite"] and db.read_bytes() == b"my notes, not a database\n" * 100


def test_a_finished_match_or_tuning_leaves_only_its_database(tmp_path, capsys):
    assert main(MATCH + ["--games", "2", "--db", str(tmp_path / "m.sqlite")]) == 0
    assert listing(tmp_path) == ["m.sqlite"] and games_in(tmp_path / "m.sqlite") == 2
    # (2 candidates x 2 games = the budget of 4: one round)
    assert main(["tune", "--game", "tictactoe", "--player", "ucb1:c={c}", "--grid", "c=0.5,1", "--against", "random",
                 "--playouts", "10", "--budget", "4", "--workers", "1", "--no-progress",
                 "--db", str(tmp_path / "t.sqlite"), "--out", str(tmp_path / "tune")]) == 0
    assert listing(tmp_path) == ["m.sqlite", "t.sqlite", "tune"] and games_in(tmp_path / "t.sqlite") == 4
    capsys.readouterr()


# -- item 22 (second half) and item 8: tables names its folder predictably, says so, leaves no lock ---------
@pytest.mark.parametrize("db, out", [
    ("results/tables.sqlite", "results/tables"),  # the case (was results/tables_tables)
    ("results/nogo9_tables.sqlite", "results/nogo9_tables"),  # the default database's own name
    ("runs/go9.sqlite", "runs/go9_tables"),
    ("runs/mytables.db", "runs/mytables"),
    ("runs/tables", "runs/tables_tables"),  # no extension to drop: a folder beside a file of the same name
])
def test_the_tables_folder_is_named_after_the_database(db, out):
    from testbeds.commands.tables import default_out

    assert default_out(db) == out


def test_tables_writes_beside_the_database_says_where_and_leaves_no_lock(tmp_path, capsys):
    db = tmp_path / "tables.sqlite"
    assert main(["tables", "--game", "nogo", "--size", "5", "--c", "1", "--playouts", "8", "--games", "1",
                 "--mi", "miucb:episodic=true", "--workers", "1", "--no-progress", "--db", str(db)]) == 0
    last = capsys.readouterr().out.rstrip("\n").splitlines()[-1]
    assert last == (f"tables in {tmp_path}/tables/: table.csv, table.md, heatmap.png, heatmap.pdf (the games are in "
                    f"{db})")
    assert listing(tmp_path) == ["tables", "tables.sqlite"]
    assert listing(tmp_path / "tables") == ["heatmap.pdf", "heatmap.png", "table.csv", "table.md"]


# -- item 10: analyze --overwrite replaces the folder as a whole; files 0644 --------------------------------
ANALYZE = ["analyze", "--game", "tictactoe", "--moves", "4", "--playouts", "40", "--no-progress"]
ANALYSIS_FILES = ["growth.pdf", "growth.png", "root.pdf", "root.png", "search.json", "tree.dot", "tree.json",
                  "tree.pdf", "tree.png"]


@pytest.fixture
def blank_figures(monkeypatch):
    """The analysis figures drawn blank: what they show is test_cli_analyze's concern, the files and
    their folder these tests'; each is still saved the real way (and takes a second, not five)."""
    import matplotlib.pyplot as plt

    import treepolicies.viz.board
    import treepolicies.viz.growth
    import treepolicies.viz.treeview

    for module, name in ((treepolicies.viz.board, "plot_root"), (treepolicies.viz.treeview, "plot_tree"),
                         (treepolicies.viz.growth, "plot_growth")):
        monkeypatch.setattr(module, name, lambda *a, **k: plt.figure(figsize=(1, 1)))


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def modes(folder):
    return {name: stat.S_IMODE(os.stat(os.path.join(folder, name)).st_mode) for name in listing(folder)}


def contents(folder):
    return {name: open(os.path.join(folder, name), "rb").read() for name in listing(folder)}


def test_analyze_files_have_the_mode_of_every_other_command(tmp_path, capsys, umask_022, blank_figures):
    out = tmp_path / "an"
    assert main(ANALYZE + ["--out", str(out)]) == 0
    assert listing(out) == ANALYSIS_FILES
    assert modes(out) == dict.fromkeys(ANALYSIS_FILES, 0o644)  # 0666 less the umask 022
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o755  # 0777 less the umask
    # replaced with --overwrite: the same modes
    assert main(ANALYZE + ["--seed", "1", "--overwrite", "--out", str(out)]) == 0
    assert modes(out) == dict.fromkeys(ANALYSIS_FILES, 0o644) and listing(tmp_path) == ["an"]
    capsys.readouterr()


def test_write_analysis_from_python_gives_every_file_the_plain_open_mode(tmp_path, umask_022, blank_figures):
    # the second instance of item 10's class: the library call (not the command, which writes
    # through a results folder) wrote its temporary files with mkstemp's 0600 and renamed them
    from treepolicies import make_game
    from treepolicies.viz.analysis import analyze_position, write_analysis

    g = make_game("tictactoe")
    paths = write_analysis(analyze_position(g, "ucb1", 40), tmp_path / "lib")
    assert sorted(os.path.basename(p) for p in paths) == ANALYSIS_FILES
    assert modes(tmp_path / "lib") == dict.fromkeys(ANALYSIS_FILES, 0o644)  # 0666 less the umask 022


def test_analyze_overwrite_that_fails_half_way_leaves_the_earlier_analysis_whole(tmp_path, capsys, monkeypatch,
                                                                              blank_figures):
    import treepolicies.viz.analysis as analysis

    out = tmp_path / "an"
    assert main(ANALYZE + ["--out", str(out)]) == 0
    before = contents(out)
    real = analysis.write_text

    def full_disk_at_tree_dot(path, text):  # the figures and tree.json are written by then
        if os.path.basename(path) == "tree.dot":
            with open(path, "w") as f:
                f.write(text[:10])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path)
        return real(path, text)

    monkeypatch.setattr(analysis, "write_text", full_disk_at_tree_dot)
    capsys.readouterr()
    assert main(ANALYZE + ["--seed", "1", "--overwrite", "--out", str(out)]) == 1
    assert capsys.readouterr().err == (f"banditree analyze: error: cannot write --out {out} (No space left on device: "
                                       f"{out}/tree.dot); {out} is as it was (nothing of this search is saved)\n")
    assert contents(out) == before  # every file the earlier one, byte for byte
    assert listing(tmp_path) == ["an"]  # no temporary folder, no lock file

    # the same command with room on the disk replaces every file: the files of a fresh analysis
    monkeypatch.setattr(analysis, "write_text", real)
    assert main(ANALYZE + ["--seed", "1", "--overwrite", "--out", str(out)]) == 0
    assert main(ANALYZE + ["--seed", "1", "--out", str(tmp_path / "fresh")]) == 0
    now, fresh = contents(out), contents(tmp_path / "fresh")
    assert listing(out) == ANALYSIS_FILES
    for name in ("tree.json", "tree.dot"):  # (the figures hold creation dates)
        assert now[name] == fresh[name], name

    def untimed(data):  # search.json without the search's time in seconds
        doc = json.loads(data)
        doc["record"].pop("seconds")
        return doc

    assert untimed(now["search.json"]) == untimed(fresh["search.json"])
    assert untimed(now["search.json"]) != untimed(before["search.json"])  # seed 1 is another search


def test_analyze_into_a_folder_with_a_sub_folder_of_an_output_name_is_refused_before_searching(tmp_path, capsys,
                                                                                           monkeypatch, blank_figures):
    import treepolicies.viz.analysis as analysis

    out = tmp_path / "an"
    assert main(ANALYZE + ["--out", str(out)]) == 0
    (out / "growth.png").unlink()
    (out / "growth.png").mkdir()  # (the old code: an IsADirectoryError traceback, after the search)
    before = contents_and_folders = sorted(os.listdir(out))
    monkeypatch.setattr(analysis, "analyze_position", lambda *a, **k: pytest.fail("searched"))
    capsys.readouterr()
    assert main(ANALYZE + ["--seed", "1", "--overwrite", "--out", str(out)]) == 2
    assert capsys.readouterr().err == (
        f"banditree analyze: error: --out {str(out)!r} holds files that are not results (growth.png); the results "
        f"folder is replaced as a whole, so give it a folder of its own\n")
    assert sorted(os.listdir(out)) == before == contents_and_folders and listing(tmp_path) == ["an"]


# -- items 11 and 17: plot on damaged, crafted and incompatible folders ----------------------------------------
@pytest.fixture(scope="module")
def genuine(tmp_path_factory):
    """A results folder of two policies (3 tasks, 20 plays) and its arrays."""
    folder = tmp_path_factory.mktemp("plot") / "good"
    result = run_testbed(["ucb1", "egreedy:epsilon=0.1"], GaussianTestbed(n_tasks=3, n_arms=3, seed=1), 20, seed=1,
                         labels=["ucb1", "eg"], progress=False)
    write_results(result, folder)
    with np.load(folder / "curves.npz") as data:
        arrays = {name: np.array(data[name]) for name in data.files}
    return folder, arrays


def craft(genuine, where, arrays=None, manifest=None, text=None):
    """A copy of the genuine folder with some arrays replaced (None: removed), the manifest changed
    in place by ``manifest`` or replaced by ``text``."""
    folder, original = genuine
    shutil.copytree(folder, where)
    if arrays is not None:
        new = {k: v for k, v in {**original, **arrays}.items() if v is not None}
        np.savez(where / "curves.npz", **new)
    if manifest is not None:
        doc = json.loads((where / "manifest.json").read_text())
        manifest(doc)
        (where / "manifest.json").write_text(json.dumps(doc))
    if text is not None:
        (where / "manifest.json").write_text(text)
    return where


DAMAGE = {  # name: (what is done to the folder, what the one line says is wrong)
    # the four
    "no avg_reward": (dict(arrays={"avg_reward": None}), "curves.npz has no avg_reward array"),
    "manifest a list": (dict(text="[1, 2]"), "manifest.json holds a JSON list, not an object"),
    "more labels than curves": (dict(arrays={"labels": np.array(["ucb1", "eg", "third"]),
                                        "specs": np.array(["ucb1", "egreedy", "x"])}),
                                "curves.npz's regret has shape (2, 20), not (3, 20): 2 policies where the folder has "
                                "3 (labels names 3 policies, step counts 20 plays)"),
    "truncated regret": (dict(arrays={"regret": "cut"}),
                         "curves.npz's regret has shape (2, 12), not (2, 20): 12 plays where the folder has 20 "
                         "(labels names 2 policies, step counts 20 plays)"),
    # more of each kind
    "manifest not JSON": (dict(text='{"n_tasks": 3,'), "manifest.json is not JSON (JSONDecodeError: "),
    "n_tasks a string": (dict(manifest=lambda m: m.update(n_tasks="3")),
                         "manifest.json's n_tasks must be an integer >= 1, got '3'"),
    "config a list": (dict(manifest=lambda m: m.update(config=[])),
                      "manifest.json's config (and its testbed) must be JSON objects"),
    "diagnostics not numbers": (dict(manifest=lambda m: m["diagnostics"].update(ucb1={"x": "y"})),
                                "manifest.json's diagnostics of 'ucb1' must be an object of numbers"),
    "a policy twice": (dict(arrays={"labels": np.array(["eg", "eg"])}, manifest=lambda m: m.pop("labels")),
                       "curves.npz names a policy twice ('eg')"),
    "labels disagree": (dict(manifest=lambda m: m.update(labels=["ucb1", "other"])),
                        "manifest.json names the policies ['ucb1', 'other'], curves.npz ['ucb1', 'eg']"),
    "a NaN mean": (dict(arrays={"optimal_pct": "nan"}),
                   "curves.npz's optimal_pct holds nan at play 7 of 'eg', but a mean over tasks is finite"),
    "step not 1..H": (dict(arrays={"step": np.arange(20, dtype=np.int64)}), "curves.npz's step is not the plays 1..20"),
    "float32 curves": (dict(arrays={"regret_se": "f4"}), "curves.npz's regret_se has dtype float32, not float64"),
    "pickled objects": (dict(arrays={"specs": np.array([object(), object()], dtype=object)}),
                        "curves.npz's specs array cannot be read (it holds Python objects)"),
    "not a zip": (dict(arrays={}), "curves.npz is not an .npz archive of arrays (a file cut off, or another kind of "
                                   "file)"),
    "cut-off zip": (dict(arrays={}), "curves.npz is not an .npz archive of arrays (a file cut off, or another kind "
                                     "of file)"),
    "a damaged member": (dict(arrays={}), "curves.npz's regret array cannot be read (Bad CRC-32 for file 'regret.npy')"),
}


@pytest.mark.parametrize("case", list(DAMAGE))
def test_plot_refuses_a_damaged_or_crafted_folder_in_one_line(genuine, tmp_path, capsys, case):
    spec, message = DAMAGE[case]
    arrays = dict(spec.get("arrays") or {})
    _, original = genuine
    for name, value in list(arrays.items()):
        if isinstance(value, str) and value == "cut":
            arrays[name] = original[name][:, :12]
        elif isinstance(value, str) and value == "nan":
            arrays[name] = original[name].copy()
            arrays[name][1, 6] = np.nan
        elif isinstance(value, str) and value == "f4":
            arrays[name] = original[name].astype(np.float32)
    folder = craft(genuine, tmp_path / "run", arrays if "arrays" in spec else None, spec.get("manifest"),
                   spec.get("text"))
    if case == "not a zip":
        (folder / "curves.npz").write_bytes(b"PK but nothing else")
    if case == "cut-off zip":
        data = (folder / "curves.npz").read_bytes()
        (folder / "curves.npz").write_bytes(data[: len(data) * 2 // 3])
    if case == "a damaged member":  # one byte of the regret array's data flipped (the zip's checksum tells)
        import zipfile

        with zipfile.ZipFile(folder / "curves.npz") as archive:
            info = archive.getinfo("regret.npy")
        data = bytearray((folder / "curves.npz").read_bytes())
        data[info.header_offset + 30 + len(info.filename) + len(info.extra) + 200] ^= 0xFF
        (folder / "curves.npz").write_bytes(bytes(data))
    assert main(["plot", str(folder), "--out", str(tmp_path / "figures")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"banditree plot: error: {folder} is not a readable results folder: {message}"), err
    assert err.count("\n") == 1
    assert not (tmp_path / "figures").exists()
    with pytest.raises(ValueError) as refused:  # read_results says the same
        read_results(folder)
    assert err == f"banditree plot: error: {refused.value}\n"


def test_plot_shows_a_label_as_written_even_one_that_reads_as_mathematics(genuine, tmp_path, capsys):
    # a label between $ signs was parsed as mathtext: "$\foo$" stopped the drawing with a parse error
    labels = ["$\\foo$", "a $ sign"]
    folder = craft(genuine, tmp_path / "run", {"labels": np.array(labels)}, lambda m: m.update(
        labels=labels, diagnostics={}, recommendation={}))
    out = tmp_path / "figures"
    assert main(["plot", str(folder), "--metric", "regret", "--regret-per-log", "--label", "$x^$=a $ sign",
                 "--out", str(out)]) == 0
    assert capsys.readouterr().out == (f"wrote 4 files to {out}: regret.png, regret.pdf, regret_per_log.png, "
                                       f"regret_per_log.pdf\n")
    from testbeds import plots

    fig = plots.replot_figure(read_results(folder), "regret", {"a $ sign": "$x^$"})
    shown = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    plots.plt.close(fig)
    assert shown == ["\\$\\foo\\$", "\\$x^\\$"]  # each $ escaped: matplotlib shows it as a $ sign


def test_a_plot_that_fails_half_way_leaves_the_earlier_figures(genuine, tmp_path, capsys, monkeypatch, umask_022):
    from testbeds import plots

    out = tmp_path / "figures"
    os.umask(0o027)  # each figure is written to a temporary file first: it still gets the plain mode, 0666 & ~027
    assert main(["plot", str(genuine[0]), "--out", str(out)]) == 0
    assert modes(out) == dict.fromkeys(["optimal_pct.pdf", "optimal_pct.png", "regret.pdf", "regret.png"], 0o640)
    (out / "notes.txt").write_text("mine")  # plot writes into its --out (other files stay)
    before = contents(out)
    real = plots.save_png

    def full(fig, path, dpi=150):
        if "optimal_pct" in os.path.basename(path):  # the second figure: the first is written by then
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), os.fspath(path))
        return real(fig, path, dpi)

    monkeypatch.setattr(plots, "save_png", full)
    capsys.readouterr()
    assert main(["plot", str(genuine[0]), "--smooth", "5", "--out", str(out)]) == 1
    assert capsys.readouterr().err == (f"banditree plot: error: cannot write --out {out} (No space left on device: "
                                       f"{out}/optimal_pct.png)\n")
    assert contents(out) == before  # regret.png too is the earlier one: all old, none new
    assert listing(tmp_path) == ["figures"]


def write_run(folder, testbed, horizon=20, seed=1):
    write_results(run_testbed(["ucb1"], testbed, horizon, seed=seed, progress=False), folder)
    return str(folder)


@pytest.mark.parametrize("a, b, differs", [
    # the case: 2-arm Bernoulli against 60-arm Gaussian
    (BernoulliTestbed(n_tasks=4, n_arms=2, seed=1), GaussianTestbed(n_tasks=4, n_arms=60, seed=1),
     "env: 'bernoulli' in A, 'gaussian' in B; mean_sd: <absent> in A, 1.0 in B; n_arms: 2 in A, 60 in B"),
    # the same family and number of arms, other fixed means: another Lai & Robbins bound
    (BernoulliTestbed(n_tasks=4, n_arms=2, seed=1, means=[0.9, 0.1]),
     BernoulliTestbed(n_tasks=4, n_arms=2, seed=1, means=[0.6, 0.5]), "arm_means: [0.9, 0.1] in A, [0.6, 0.5] in B"),
    (GaussianTestbed(n_tasks=4, n_arms=3, seed=1, reward_sd=1.0), GaussianTestbed(n_tasks=4, n_arms=3, seed=1, reward_sd=2.0),
     "reward_sd: 1.0 in A, 2.0 in B"),
])
def test_plot_refuses_runs_of_different_testbeds_in_one_line(tmp_path, capsys, a, b, differs):
    folders = [write_run(tmp_path / "A", a), write_run(tmp_path / "B", b)]
    assert main(["plot", *folders, "--out", str(tmp_path / "figures")]) == 2
    assert capsys.readouterr().err == (
        f"banditree plot: error: A and B come from different testbeds ({differs}), so their curves (and the Lai & "
        f"Robbins bound) cannot share a figure; plot them separately\n")
    assert not (tmp_path / "figures").exists()


def test_plot_merges_runs_of_the_same_testbed_with_other_tasks(tmp_path, capsys):
    # other seeds and numbers of tasks of one testbed are comparable: merged, the labels prefixed
    means = [0.9, 0.5, 0.1]
    folders = [write_run(tmp_path / "A", BernoulliTestbed(n_tasks=4, n_arms=3, seed=1, means=means)),
               write_run(tmp_path / "B", BernoulliTestbed(n_tasks=6, n_arms=3, seed=2, means=means), seed=2)]
    assert main(["plot", *folders, "--metric", "regret", "--out", str(tmp_path / "figures")]) == 0
    from testbeds import plots

    merged = plots.merge_results([read_results(f) for f in folders], ["A", "B"])
    assert merged.labels == ["A/ucb1", "B/ucb1"] and merged.n_tasks == 4
    for k, folder in enumerate(folders):
        np.testing.assert_array_equal(merged.curves["regret"][k], read_results(folder).curves["regret"][0])
    assert listing(tmp_path / "figures") == ["regret.pdf", "regret.png"]
    capsys.readouterr()


# -- item 22: testbed prints its summary table -------------------------------------------------------------
Z95 = 1.959963984540054  # the 97.5% quantile of the standard normal distribution


def test_testbed_prints_regret_and_optimal_share_at_the_horizon_with_intervals(tmp_path, capsys):
    argv = ["testbed", "--policy", "ucb1", "--policy", "eg=egreedy:epsilon=0.1", "--tasks", "6", "--arms", "3",
            "--horizon", "40", "--seed", "3", "--workers", "1", "--no-progress", "--no-plots"]
    assert main(argv + ["--out", str(tmp_path / "r")]) == 0
    lines = capsys.readouterr().out.splitlines()
    # re-computed from every play of every task (trace): the regret of a task at play 40 is
    # sum_t (best mean - reward_t); its optimal share is 100 if the 40th arm is the best one, else 0;
    # the interval is mean +- Z95 * sd / sqrt(6), sd the sample standard deviation over the 6 tasks
    tb = GaussianTestbed(n_tasks=6, n_arms=3, seed=3)
    traced = run_testbed(["ucb1", "egreedy:epsilon=0.1"], tb, 40, seed=3, progress=False, trace=True)
    best, best_arm = tb.means.max(axis=1), tb.means.argmax(axis=1)

    def interval(x, digits):
        return f"{x.mean():.{digits}f} +- {Z95 * x.std(ddof=1) / np.sqrt(len(x)):.{digits}f}"

    assert lines[0] == "6 tasks, 95% intervals (mean +- 1.96 standard errors):"
    assert re.split(r"\s{2,}", lines[1].strip()) == ["policy", "regret at play 40", "% optimal at play 40"]
    for p, label in enumerate(["ucb1", "eg"]):
        regret = (best[:, None] - traced.trace["rewards"][p]).sum(axis=1)
        optimal = 100.0 * (traced.trace["arms"][p][:, -1] == best_arm)
        assert re.split(r"\s{2,}", lines[2 + p].strip()) == [label, interval(regret, 3), interval(optimal, 2)]
    assert lines[4:] == [f"results in {tmp_path / 'r'}"]

    # a single task has no standard error: no interval, said so
    assert main(["testbed", "--tasks", "1", "--arms", "2", "--horizon", "5", "--workers", "1", "--no-progress",
                 "--no-plots", "--out", str(tmp_path / "one")]) == 0
    lines = capsys.readouterr().out.splitlines()
    tb = GaussianTestbed(n_tasks=1, n_arms=2, seed=0)
    traced = run_testbed(["ucb1"], tb, 5, seed=0, progress=False, trace=True)
    regret = (tb.means[0].max() - traced.trace["rewards"][0, 0]).sum()
    optimal = 100.0 * (traced.trace["arms"][0, 0, -1] == tb.means[0].argmax())
    assert lines[0] == "1 task, 95% intervals (mean +- 1.96 standard errors):"
    assert re.split(r"\s{2,}", lines[2].strip()) == ["ucb1", f"{regret:.3f} +- n/a", f"{optimal:.2f} +- n/a"]


# -- item 23: an unknown option names the command's help and the closest option ----------------------------
@pytest.mark.parametrize("argv, line", [
    (["testbed", "--policies", "ucb1"], "banditree testbed: error: unrecognized arguments: --policies ucb1; did you "
                                        "mean --policy? (banditree testbed --help lists the options)"),
    (["plot", "somewhere", "--metrics", "regret"], "banditree plot: error: unrecognized arguments: --metrics regret; "
                                                   "did you mean --metric? (banditree plot --help lists the options)"),
    (["sweep", "--policy", "ucb1", "--param", "c=1", "--horizons", "10"],
     "banditree sweep: error: unrecognized arguments: --horizons 10; did you mean --horizon? (banditree sweep --help "
     "lists the options)"),
    # a misspelt required option: named as unknown, not "--game is required"
    (["tables", "--gmae", "nogo"], "banditree tables: error: unrecognized arguments: --gmae; did you mean --game? "
                                   "(banditree tables --help lists the options)"),
    # nothing close: the command's help, no guess
    (["testbed", "--zzzz"], "banditree testbed: error: unrecognized arguments: --zzzz (banditree testbed --help "
                            "lists the options)"),
])
def test_an_unknown_option_names_the_commands_help_and_the_closest_option(capsys, argv, line):
    assert main(argv) == 2
    assert capsys.readouterr().err == line + "\n"
