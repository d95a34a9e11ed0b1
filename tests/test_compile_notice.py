"""The compilation notice says "compiling" only when numba compiles, in one whole line, from the
main process; a plugin's ``@numba.njit`` kernels are cached on disk, so worker processes do not
compile them again; a tournament compiles its players before its workers start (issue 24, item 20).

Found: a testbed run's workers loaded every built-in kernel from the disk cache (no cache miss,
``cache_report``), and took about a second doing it (numba's start-up in a fresh process); the
notice, timed and not told what happened, announced that second as a first-run compilation, in
every worker, its two lines ("compiling ..." and "compiled ... in 1.6 s") running into the other
workers' lines and the progress bar.  A stateful plugin whose kernels were decorated with
``@numba.njit`` (no ``cache=True``) was compiled again in every process: a real miss, fixed by
compiling it with ``cache=True`` (``bandits.registry.njit_kernel``).
"""
import io
import json
import multiprocessing
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numba
import pytest
from tqdm import tqdm

from bandits.compiling import notice, say

ROOT = Path(__file__).resolve().parents[1]
CACHED = "(first run only, cached on disk afterwards) ..."
UNCACHED = "(not cached on disk: compiled in every process) ..."

PLUGIN = textwrap.dedent('''
    """A stateful policy the way a user writes it: kernels decorated with @numba.njit, no cache=True."""
    import numba

    import bandits
    from bandits.stats import MEAN


    @numba.njit
    def _sel(params, state, arm_state, stats, valid, t, rng, work):
        best, arm = -1e300, 0
        for i in range(valid.shape[0]):
            if valid[i] and stats[0, i] == 0.0:
                return i
            if valid[i] and stats[MEAN, i] > best:
                best, arm = stats[MEAN, i], i
        return arm


    @numba.njit
    def _rec(params, state, arm_state, stats, arm, reward):
        arm_state[0, arm] += 1.0


    bandits.stateful_policy("nb_greedy", select=_sel, on_record=_rec, arm_state_width=1)
''')

#: a module with one function numba caches on disk (in the module's own __pycache__)
MODULE = textwrap.dedent('''
    import numba


    @numba.njit(cache=True)
    def affine(x):
        return 7 * x + 2
''')

#: a fresh process: the module's function, the built-in ucb1's kernels and testbed loop, and the
#: plugin's kernels, each made inside a notice that would speak at once (delay 0); prints what
#: numba's cache did and which of the plugin's kernels numba compiled (its compile event: a miss)
LOADER = """
import importlib.util, json, sys
from numba.core import event

compiled = []


class Compiled(event.Listener):
    def on_start(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__name__)

    def on_end(self, ev):
        pass


event.register("numba:compile", Compiled())
from bandits import load_plugin, make_policy
from bandits.compiling import cache_report, notice
from testbeds.runner import compile_runner
spec = importlib.util.spec_from_file_location("notice_module", sys.argv[1])
module = sys.modules["notice_module"] = importlib.util.module_from_spec(spec)  # (numba's cache imports it)
spec.loader.exec_module(module)
with notice("the module's function", delay=0.0):
    assert module.affine(3) == 23
with notice("ucb1's kernels and testbed loop", delay=0.0):
    compile_runner(make_policy("ucb1"), 4)
load_plugin(sys.argv[2])
with notice("the plugin's kernels", delay=0.0):
    make_policy("nb_greedy").kernels
stats = module.affine.stats
report = cache_report()
print(json.dumps({"affine": [sum(stats.cache_hits.values()), sum(stats.cache_misses.values())],
                  "builtin_hits": sum(v["hits"] for k, v in report.items() if "nb_plugin" not in k),
                  "builtin_misses": sum(v["misses"] for k, v in report.items() if "nb_plugin" not in k),
                  "plugin_compiled": sorted(name for name in compiled if name in ("_sel", "_rec"))}))
"""


@pytest.fixture(scope="module")
def plugin(tmp_path_factory):
    path = tmp_path_factory.mktemp("plugin") / "nb_plugin.py"
    path.write_text(PLUGIN)
    return path


def _run(script, *args, env=None):
    proc = subprocess.run([sys.executable, "-c", script, *map(str, args)], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1]), proc.stderr


@pytest.fixture(scope="module")
def two_processes(tmp_path_factory, plugin):
    """LOADER's report and standard error in a first and a second process (a fresh module file:
    the first compiles it; a fresh plugin file: the first compiles its kernels)."""
    module = tmp_path_factory.mktemp("module") / "notice_module.py"
    module.write_text(MODULE)
    return _run(LOADER, module, plugin), _run(LOADER, module, plugin)


@pytest.mark.slow  # (a fresh process or an outside program: minutes of the default tier; CI runs it)
def test_loading_from_the_disk_cache_is_not_announced(two_processes):
    # the root cause: loading compiled code from the cache (as every worker process does) was
    # announced as "compiling ... (first run only ...)".  The first process compiles the module's
    # function (a miss, announced once, in one line); the second loads it (a hit) and says nothing
    (first, err1), (second, err2) = two_processes
    assert first["affine"] == [0, 1], first
    assert [line for line in err1.splitlines() if "banditree:" in line][0] == \
        f"banditree: compiling the module's function {CACHED}", err1
    assert second["affine"] == [1, 0], second
    # the built-in kernels and loop were loaded, none compiled (cached by the first process at the latest)
    assert second["builtin_hits"] >= 1 and second["builtin_misses"] == 0, second
    assert "banditree:" not in err2, err2


@pytest.mark.slow  # (a fresh process or an outside program: minutes of the default tier; CI runs it)
def test_a_plugins_njit_kernels_are_cached_for_the_next_process(two_processes):
    # the plugin's kernels are decorated with @numba.njit, no cache=True: the first process
    # compiles them, the next one loads them (before: compiled again in every process)
    (first, _), (second, _) = two_processes
    assert first["plugin_compiled"] == ["_rec", "_sel"], first
    assert second["plugin_compiled"] == [], second


def test_a_block_that_compiles_nothing_is_silent_however_long():
    out = io.StringIO()
    with notice("the loop", delay=0.05, stream=out):
        time.sleep(0.3)
    assert out.getvalue() == ""


def test_a_compilation_is_announced_in_one_whole_line_saying_whether_it_is_cached(tmp_path):
    # a numba function without a disk cache compiles in every process: the line says so
    out = io.StringIO()
    with notice("a fresh function", delay=0.0, stream=out):
        assert numba.njit(lambda x: 3 * x + 1)(2) == 7  # a new function: numba compiles it
    assert out.getvalue() == f"banditree: compiling a fresh function {UNCACHED}\n"
    # one with a cache (a fresh module file: its cache is empty, so numba compiles it)
    import importlib.util

    (tmp_path / "fresh_module.py").write_text(MODULE)
    spec = importlib.util.spec_from_file_location("fresh_module", tmp_path / "fresh_module.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = io.StringIO()
    with notice("the fresh module", delay=0.0, stream=out):
        assert module.affine(1) == 9
    assert out.getvalue() == f"banditree: compiling the fresh module {CACHED}\n"


def test_the_line_starts_a_line_of_its_own_under_a_progress_bar():
    # a tqdm bar's line has no newline: the notice used to run into it ("...task-play/s]banditree:")
    out = io.StringIO()
    bar = tqdm(total=10, file=out, desc="testbed")
    bar.update(1)
    with notice("a fresh function", delay=0.0, stream=out):
        numba.njit(lambda x: 5 * x + 3)(2)
    bar.close()
    text = out.getvalue()
    at = text.index("banditree: compiling a fresh function")
    assert text[at - 1] in "\r\n", repr(text)  # the bar was cleared first (tqdm.write)
    assert text[at:].startswith(f"banditree: compiling a fresh function {UNCACHED}\n"), repr(text)


def test_say_writes_one_whole_line_under_a_progress_bar():
    # the background compilation of a specialised search loop speaks through say(): like notice(),
    # its line starts a line of its own under a bar and ends with a newline
    out = io.StringIO()
    bar = tqdm(total=10, file=out, desc="search")
    bar.update(1)
    say("compiled the faster search loop for connect4 in 3.0 s", stream=out)
    bar.close()
    text = out.getvalue()
    at = text.index("banditree: compiled the faster")
    assert text[at - 1] in "\r\n", repr(text)
    assert text[at:].startswith("banditree: compiled the faster search loop for connect4 in 3.0 s\n"), repr(text)


def _child_say(_):
    out = io.StringIO()
    say("a line from a worker", stream=out)
    return out.getvalue()


def test_say_in_a_worker_process_writes_nothing():
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        assert pool.map(_child_say, [0]) == [""]


def _child_notice(_):
    out = io.StringIO()
    with notice("a fresh function", delay=0.0, stream=out):
        numba.njit(lambda x: 5 * x - 1)(2)
    return out.getvalue()


def test_a_worker_process_announces_nothing():
    # a worker (a child process) compiling is not announced: the main process speaks, once
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        assert pool.map(_child_notice, [0]) == [""]


@pytest.mark.slow  # two command-line runs with 2 workers; the first compiles the plugin's testbed loop
def test_a_testbed_run_with_workers_announces_no_compilation_when_all_is_cached(plugin, tmp_path):
    # issue 24 item 20: "(first run only, cached on disk afterwards)" came from every worker of a
    # second run, the lines of several processes run together.  Everything is cached here (the
    # built-in ucb1 by earlier runs, the plugin by the warm-up run)
    cmd = [sys.executable, "-m", "testbeds.cli", "testbed", "--tasks", "100", "--arms", "4", "--horizon", "50",
           "--workers", "2", "--policy", "ucb1", "--policy", "nb_greedy", "--plugin", str(plugin)]
    subprocess.run(cmd + ["--out", str(tmp_path / "warm")], cwd=ROOT, capture_output=True, timeout=600)
    proc = subprocess.run(cmd + ["--out", str(tmp_path / "run")], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "compiling" not in proc.stderr, proc.stderr
    assert (tmp_path / "run" / "summary.csv").is_file()


@pytest.mark.slow  # compiles the whole tree search from an empty cache (about a minute on 2 cores)
def test_a_match_with_workers_on_an_empty_cache_announces_each_compilation_once(tmp_path):
    # a machine's first match with --workers 2: each worker compiled the search loop (38 s each,
    # at once) and announced it, two lines each, run together.  Now the main process compiles the
    # players' search before the workers start (testbeds.tournament.compile_players): every
    # compilation is announced once, and the workers only load.  An empty numba cache:
    # NUMBA_CACHE_DIR (numba's own setting) pointed at a fresh folder.
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"))
    proc = subprocess.run([sys.executable, "-m", "testbeds.cli", "match", "--game", "tictactoe", "--a", "ucb1",
                           "--b", "random", "--playouts", "20", "--games", "2", "--workers", "2", "--no-progress"],
                          cwd=ROOT, capture_output=True, text=True, timeout=900, env=env)
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if "banditree: compil" in line]
    assert "banditree: compiling the search loop for tictactoe " + CACHED in lines, proc.stderr
    assert len(lines) == len(set(lines)), proc.stderr  # each compilation once
    assert all(line.startswith("banditree: compiling ") and line.endswith(CACHED) for line in lines), proc.stderr
