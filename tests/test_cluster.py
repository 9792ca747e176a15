"""Mining on Dask: a local cluster on loopback gives the one-process table byte for byte,
also when a worker dies mid-job; shards; the one-line errors."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from shapemill.cli import main
from shapemill.go.rings import MAX_RING
from shapemill.miner.cluster import Shard, shards_of
from shapemill.miner.mine import MineParams

FIXTURES = Path(__file__).parent / "fixtures" / "games"
MINE = ["--min-count", "2", "--discovery-games", "3", "-q"]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    """The fixture games (9 kept) as a dataset of 5 parts of 2 games."""
    folder = tmp_path_factory.mktemp("data") / "games"
    res = CliRunner().invoke(main, ["scan", str(FIXTURES), "-o", str(folder), "--partition-size", "2", "-q"])
    assert res.exit_code == 0, res.output
    return folder


@pytest.fixture(scope="module")
def client():
    """A client of a local cluster of 2 worker processes on loopback."""
    pytest.importorskip("distributed")
    from shapemill.miner.cluster import dask_client

    with dask_client("local:2") as c:
        yield c


def mine(*args: str) -> None:
    res = CliRunner().invoke(main, ["mine", *args, *MINE])
    assert res.exit_code == 0, res.output


def test_dask_writes_the_table_of_one_process_byte_for_byte(dataset, client, tmp_path):
    one, local, remote = tmp_path / "one.parquet", tmp_path / "local.parquet", tmp_path / "remote.parquet"
    # one process (-j 1): on a cold cache it compiles the kernels once, where two pool workers
    # would both compile them at once (HACKING: "The numba cache")
    mine(str(dataset), "-o", str(one), "--split", "all", "-j", "1")
    mine(str(dataset), "-o", str(local), "--split", "all", "--scheduler", "local:2")
    assert one.read_bytes() == local.read_bytes()
    # a limit that cuts a part, the train split, and a running scheduler given by address
    mine(str(dataset), "-o", str(one), "--limit-games", "5", "-j", "1")
    mine(str(dataset), "-o", str(remote), "--limit-games", "5", "--scheduler", client.scheduler_info()["address"])
    assert one.read_bytes() == remote.read_bytes()


@pytest.mark.shared_data
def test_dask_on_a_slice_of_tygem(client, tmp_path, shared_data):
    from itertools import islice

    from shapemill.datasets import read_games
    from shapemill.datasets.scanner import write_games_dataset

    tygem = shared_data / "tygem9d"
    folder, one, dask = tmp_path / "games", tmp_path / "one.parquet", tmp_path / "dask.parquet"
    write_games_dataset(list(islice(read_games([tygem]), 24)), folder, partition_size=7)
    mine(str(folder), "-o", str(one), "--split", "all", "-j", "1")
    mine(str(folder), "-o", str(dask), "--split", "all", "--scheduler", client.scheduler_info()["address"])
    assert one.read_bytes() == dask.read_bytes()


def test_a_worker_killed_mid_job_does_not_change_the_table(dataset, client, tmp_path):
    from shapemill.miner.cluster import mine_on_cluster
    from shapemill.miner.mine_command import write_mined

    params = MineParams(min_count=2, max_ring=MAX_RING, discovery_games=3)  # the command's defaults
    one, dask = tmp_path / "one.parquet", tmp_path / "dask.parquet"
    mine(str(dataset), "-o", str(one), "--split", "all", "-j", "1")  # no pool forked beside the cluster's threads
    client.wait_for_workers(2)  # an earlier test's killed worker may still be restarting (a loaded machine)
    pids = client.run(os.getpid)
    planned, done, killed = [], [], []

    def progress(n: int) -> None:
        done.append(n)
        if not killed:  # the worker holding the most results dies with them
            held = client.has_what()
            victim = max(pids, key=lambda w: len(held.get(w, ())))
            os.kill(pids[victim], signal.SIGKILL)
            killed.append(pids[victim])

    mined = mine_on_cluster(client, [dataset], params, "all", None, progress, planned.append)
    write_mined(mined, dask, params, "all", [dataset])
    assert one.read_bytes() == dask.read_bytes()
    assert sum(done) == planned[0] == 2 * 5  # features and patterns of each part's 1 or 2 games
    # the nanny starts a new worker in the killed one's place: on a loaded machine the scheduler
    # may list the dead one a while, and the new one takes its time to start (imports, numba)
    assert _workers_after(client, killed[0]) == 2


def _workers_after(client, dead: int, guard: float = 900.0) -> int:
    """The number of workers once the scheduler lists two and not ``dead`` (a guard against a hang, not a timing)."""
    deadline = time.monotonic() + guard
    while True:
        try:
            pids = set(client.run(os.getpid, wait=True).values())
        except (OSError, TimeoutError, KeyError) as exc:  # a worker gone between the listing and the call
            pids = {dead, type(exc).__name__}
        if len(pids) == 2 and dead not in pids:
            return len(pids)
        assert time.monotonic() < deadline, f"no second worker in place of {dead}: {pids}"
        time.sleep(0.5)


def test_shards_cover_the_games_in_corpus_order():
    files = [("a", 5), ("b", 0), ("c", 4)]
    shards = shards_of(files, "train", None, workers=5)
    assert shards == [Shard("a", "train", i, i + 1, i) for i in range(5)] + [
        Shard("c", "train", i, i + 1, 5 + i) for i in range(4)
    ]
    assert shards_of(files, "all", 6, workers=1)[-1] == Shard("c", "all", 0, 1, 5)
    big = shards_of([("a", 100_000)], "train", None, workers=2)
    assert len(big) == 100 and big[-1] == Shard("a", "train", 99_000, 100_000, 99_000)
    assert [s.stop - s.start for s in shards_of([("a", 1000)], "train", None, workers=2)] == [125] * 8


def test_scheduler_errors_are_one_line(dataset, tmp_path, monkeypatch):
    out = str(tmp_path / "p.parquet")
    res = CliRunner().invoke(main, ["mine", str(dataset), "-o", out, "--scheduler", "local:0"])
    assert res.exit_code == 2 and "local:N" in res.output and "Traceback" not in res.output
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if Dask were not installed
    res = CliRunner().invoke(main, ["mine", str(dataset), "-o", out, "--scheduler", "local:2"])
    assert res.exit_code == 1 and "pip install 'shapemill[dask]'" in res.output
    assert len(res.output.strip().splitlines()) == 1


def test_sgf_input_and_missing_paths_are_refused_on_dask(client, tmp_path):
    out = str(tmp_path / "p.parquet")
    for path, reason in ((FIXTURES, "not a games table or dataset"), (tmp_path / "missing", "no such file")):
        res = CliRunner().invoke(main, ["mine", str(path), "-o", out, "--scheduler", client.scheduler_info()["address"]])
        assert res.exit_code == 1 and reason in res.output and str(path) in res.output
        assert "Traceback" not in res.output
