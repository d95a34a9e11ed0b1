"""The same tiny match through a Dask LocalCluster (processes, loopback only) and the local pool."""
import pytest

from testbeds.tournament import MatchConfig, run_match

distributed = pytest.importorskip("distributed", reason="Dask is the optional extra banditree[distributed]")

CFG = MatchConfig(game="nogo", a="miucb:episodic=true", b="ucb1:c=0.5", playouts=40, seed=5,
                  game_options={"size": 5})
N = 6


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
