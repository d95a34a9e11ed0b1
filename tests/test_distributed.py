"""The same tiny match through a Dask LocalCluster (processes, loopback only) and the local pool."""
import pytest

from testbeds.tournament import MatchConfig, run_match

distributed = pytest.importorskip("distributed", reason="Dask is the optional extra banditree[distributed]")

CFG = MatchConfig(game="nogo", a="miucb:episodic=true", b="ucb1:c=0.5", playouts=40, seed=5,
                  game_options={"size": 5})
N = 6


@pytest.mark.slow  # (a Dask cluster whose workers compile: 30 s)
def test_dask_cluster_equals_local_pool(tmp_path):
    local = run_match(CFG, N, db=tmp_path / "local.sqlite", workers=2, progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        remote = run_match(CFG, N, db=tmp_path / "dask.sqlite", scheduler=cluster.scheduler_address,
                           progress=False)
        # resuming through the cluster plays nothing more
        again = run_match(CFG, N, db=tmp_path / "dask.sqlite", scheduler=cluster.scheduler_address,
                          progress=False)
    assert remote.played == N and again.played == 0
    assert [g.outcome() for g in remote.games] == [g.outcome() for g in local.games]
    assert remote.rating == local.rating
    assert all(g.sgf and g.sgf.startswith("(;") for g in remote.games)


def test_bad_scheduler_address():
    with pytest.raises(ValueError, match="scheduler must be an address like tcp://HOST:PORT"):
        run_match(CFG, 1, scheduler="localhost", progress=False)


@pytest.mark.slow  # (a fresh process or an outside program: minutes of the default tier; CI runs it)
def test_a_sweep_through_a_dask_cluster_equals_the_local_pool(tmp_path, capsys):
    # (the cells' chunks run on the cluster's workers; the numbers are the local pool's, to the bit)
    import json

    from testbeds.cli import main
    args = ["sweep", "--policy", "ucb1", "--param", "c=0.5,2", "--horizon", "60", "--env", "bernoulli",
            "--tasks", "12", "--arms", "3"]
    assert main(args + ["--workers", "2", "--out", str(tmp_path / "local")]) == 0
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        assert main(args + ["--scheduler", cluster.scheduler_address, "--out", str(tmp_path / "dask")]) == 0

    def cells(name):
        return [json.loads(line) for line in (tmp_path / name / "cells.jsonl").read_text().splitlines()]

    local, remote = cells("local"), cells("dask")
    assert [c["spec"] for c in remote] == ["ucb1:c=0.5", "ucb1:c=2"]
    assert [(c["regret"], c["regret_se"]) for c in remote] == [(c["regret"], c["regret_se"]) for c in local]
    assert (tmp_path / "dask" / "sweep.png").exists()


def test_an_unreachable_scheduler_is_one_line(tmp_path, capsys):
    from testbeds.distributed import connect
    with pytest.raises(ValueError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9") as err:
        connect("tcp://127.0.0.1:9", timeout=2)
    assert "\n" not in str(err.value)
