"""The fit out of core: shards on disk give the in-memory fit; a stopped fit resumes to the
same table; damaged and foreign shards, a disk too small and --max-positions all; the fit
on Dask (a real local cluster of processes, a worker killed mid-sweep) gives the same table."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from shapemill.cli import main
from shapemill.datasets.corpus import load_corpus
from shapemill.miner import positions
from shapemill.miner.positions import build_teams, sample_mask
from shapemill.miner.rate import fit, fit_competitions
from shapemill.miner.team_shards import OnDisk, ShardError, WorkFolder, build_shards, identity_of, read_shard
from shapemill.patterns.candidates import Vocabulary
from shapemill.tables import read_table

FIXTURES = Path(__file__).parent / "fixtures" / "games"
SAMPLE = 600  # positions of the fixture games
CHUNK = 90  # positions a shard, about (whole games): several shards of uneven sizes


@pytest.fixture(scope="module")
def mined(tmp_path_factory) -> tuple[str, str]:
    """The fixture games as a games table, and the patterns mined from them."""
    folder = tmp_path_factory.mktemp("rate-shards")
    games, patterns = str(folder / "games"), str(folder / "p.parquet")
    run = CliRunner().invoke
    res = run(main, ["scan", str(FIXTURES), "-o", games, "--partition-size", "3", "-q"])
    assert res.exit_code == 0, res.output
    res = run(main, ["mine", games, "-o", patterns, "--split", "all", "--min-count", "2", "--discovery-games", "3",
                     "-q"])
    assert res.exit_code == 0, res.output
    return games, patterns


@pytest.fixture
def small_chunks(monkeypatch):
    monkeypatch.setattr(positions, "CHUNK_POSITIONS", CHUNK)


def corpus_vocab_mask(mined):
    games, patterns = mined
    corpus = load_corpus([games], split="all")
    vocab = Vocabulary.from_patterns(read_table(patterns, "patterns")[0])
    return corpus, vocab, sample_mask(corpus, SAMPLE, 3)


def test_the_fit_on_shards_is_the_fit_in_memory(mined, small_chunks, tmp_path):
    corpus, vocab, mask = corpus_vocab_mask(mined)
    teams = build_teams(corpus, vocab, mask, workers=2)
    work = WorkFolder(tmp_path / "work", identity_of(corpus, vocab, mask))
    work.open()
    built = build_shards(work, corpus, vocab, mask)
    assert built.n_shards >= 5 and built.positions == teams.n_positions == SAMPLE
    # the shards hold the in-memory teams, the combinations numbered alike
    shards = [read_shard(work.shard(i), work.fid) for i in range(built.n_shards)]
    assert np.array_equal(built.combos, teams.combos)
    for name in ("chosen", "move_number"):
        assert np.array_equal(np.concatenate([getattr(s, name) for s in shards]), getattr(teams, name))
    sizes = np.concatenate([np.diff(s.pos_start) for s in shards])
    assert np.array_equal(sizes, np.diff(teams.pos_start))
    pattern, combo = teams.candidates()
    got_pattern, got_combo = [], []
    for i, s in enumerate(shards):
        p, k = positions._unpack_all(np.ascontiguousarray(s.team), s.bits)
        got_pattern.append(p)
        got_combo.append(np.load(work.ids(i))[k])
    assert np.array_equal(np.concatenate(got_pattern), pattern)
    assert np.array_equal(np.concatenate(got_combo), combo)
    # and the fit on them is the in-memory fit, up to the order of the float sums
    memory = fit(teams, max_iter=12, tol=0.0, workers=2)
    disk = fit_competitions(OnDisk(work, built, vocab.size, vocab.first_tactical), max_iter=12, tol=0.0)
    assert len(disk.objective) == 12
    assert np.allclose(disk.objective, memory.objective, rtol=1e-12, atol=0)
    for name in ("gamma", "ci_low", "ci_high"):
        assert np.allclose(getattr(disk, name), getattr(memory, name), rtol=1e-9, atol=0), name
    assert np.array_equal(disk.seen, memory.seen) and np.array_equal(disk.played, memory.played)


class Stop(Exception):
    """Stops a fit after a given number of sweeps, as a kill would."""


def test_a_shards_sums_are_the_same_on_one_thread_or_two(mined, small_chunks, tmp_path):
    from shapemill.miner.rate import combination_strengths
    from shapemill.miner.team_shards import shard_information, shard_pass

    corpus, vocab, mask = corpus_vocab_mask(mined)
    work = WorkFolder(tmp_path / "work", identity_of(corpus, vocab, mask))
    work.open()
    built = build_shards(work, corpus, vocab, mask)
    gamma = np.exp(np.random.default_rng(1).normal(size=vocab.size + 1))
    gamma[-1] = 1.0
    cs = combination_strengths(built.combos, gamma[vocab.first_tactical:])
    where = (str(work.path), work.fid)
    sums = []
    for threads in (1, 2, 1):
        positions.use_threads(threads)
        sums.append([(part.ll, part.values.tolist()) for i in range(built.n_shards)
                     for part in (shard_pass(*where, i, gamma, cs, True), shard_pass(*where, i, gamma, cs, False))]
                    + [shard_information(*where, i, built.combos, vocab.first_tactical, gamma, cs,
                                         vocab.size).values.tolist() for i in range(built.n_shards)])
    assert sums[0] == sums[1] == sums[2]  # to the last bit: a Dask worker sums on one thread


@pytest.mark.parametrize("stop", [3, 4, 5])  # within each phase of the accelerated fit's cycle of three sweeps
def test_a_stopped_fit_resumes_to_the_same_gammas(mined, small_chunks, tmp_path, stop):
    corpus, vocab, mask = corpus_vocab_mask(mined)
    work = WorkFolder(tmp_path / "work", identity_of(corpus, vocab, mask))
    work.open()
    built = build_shards(work, corpus, vocab, mask)
    competitions = OnDisk(work, built, vocab.size, vocab.first_tactical)
    whole = fit_competitions(competitions, max_iter=9, tol=0.0)

    def stop_after(state):
        work.save_state(state)
        if len(state.objective) == stop:  # the gammas after sweep stop + 1's updates are kept
            raise Stop

    with pytest.raises(Stop):
        fit_competitions(competitions, max_iter=9, tol=0.0, checkpoint=stop_after)
    state = work.state()
    assert len(state.objective) == stop and state.phase == (stop + 1) % 3
    again = WorkFolder(tmp_path / "work", identity_of(corpus, vocab, mask))
    again.open()
    resumed = fit_competitions(OnDisk(again, build_shards(again, corpus, vocab, mask), vocab.size,
                                      vocab.first_tactical), max_iter=9, tol=0.0, resume=state)
    assert resumed.objective == whole.objective
    assert np.array_equal(resumed.gamma, whole.gamma) and np.array_equal(resumed.ci_low, whole.ci_low)


def rate(mined, output, *extra, **kwargs):
    games, patterns = mined
    return CliRunner().invoke(main, ["rate", games, "--patterns", patterns, "-o", str(output), "--split", "all",
                                     "--max-positions", str(SAMPLE), "--seed", "3", "--max-iter", "6", "--tol", "0",
                                     "-j", "2", *extra], **kwargs)


def gammas(path) -> dict:
    table = read_table(str(path), "ratings")[0]
    return dict(zip(zip(table["feature"].to_pylist(), table["value"].to_pylist()), table["gamma"].to_pylist()))


def test_rate_killed_mid_fit_resumes_from_the_last_sweep(mined, small_chunks, tmp_path, monkeypatch):
    whole, stopped = tmp_path / "whole.parquet", tmp_path / "stopped.parquet"
    res = rate(mined, whole)
    assert res.exit_code == 0, res.output
    assert "bytes a position" in res.output and "shards of 600 positions: about" in res.output
    assert not Path(f"{whole}.work").exists()  # removed once the table is written
    saved = WorkFolder.save_state

    def killed_after_three(self, state):
        saved(self, state)
        if len(state.objective) == 2:
            raise Stop

    monkeypatch.setattr(WorkFolder, "save_state", killed_after_three)
    res = rate(mined, stopped)
    assert isinstance(res.exception, Stop) and not stopped.exists()
    kept = {p.name for p in Path(f"{stopped}.work").iterdir()}
    assert {"00000.teams", "00000.ids.npy", "fit.npz", "identity.json"} <= kept
    monkeypatch.setattr(WorkFolder, "save_state", saved)
    res = rate(mined, stopped)
    assert res.exit_code == 0, res.output
    assert f"resuming the fit in {stopped}.work after sweep 3" in res.output
    assert "iteration   1" not in res.output and "iteration   3" in res.output
    assert gammas(stopped) == gammas(whole)
    assert read_table(str(stopped), "ratings")[1]["params"]["iterations"] == 6


def test_a_damaged_or_foreign_shard_is_an_error_naming_it(mined, small_chunks, tmp_path, monkeypatch):
    out, work = tmp_path / "r.parquet", tmp_path / "w"
    saved = WorkFolder.save_state

    def killed(self, state):
        saved(self, state)
        raise Stop

    monkeypatch.setattr(WorkFolder, "save_state", killed)
    assert isinstance(rate(mined, out, "--work-dir", str(work)).exception, Stop)
    monkeypatch.setattr(WorkFolder, "save_state", saved)
    shard = work / "00002.teams"
    good = shard.read_bytes()
    damaged = bytearray(good)
    damaged[-5] ^= 0x40
    shard.write_bytes(bytes(damaged))
    res = rate(mined, out, "--work-dir", str(work))
    assert res.exit_code == 1 and not out.exists()
    assert res.output.strip().splitlines()[-1] == (f"Error: {shard}: damaged shard (its checksum does not match); "
                                                   "remove the work folder to rebuild it")
    shard.write_bytes(good[:-6])
    assert "damaged shard (" in rate(mined, out, "--work-dir", str(work)).output.strip().splitlines()[-1]
    # a shard of another fit (another sample) in this fit's folder
    corpus, vocab, mask = corpus_vocab_mask(mined)
    foreign = WorkFolder(tmp_path / "foreign", identity_of(corpus, vocab, sample_mask(corpus, SAMPLE, 4)))
    foreign.open()
    build_shards(foreign, corpus, vocab, sample_mask(corpus, SAMPLE, 4))
    shard.write_bytes(foreign.shard(2).read_bytes())
    res = rate(mined, out, "--work-dir", str(work))
    assert res.exit_code == 1 and f"{shard}: a shard of another fit" in res.output and "Traceback" not in res.output
    with pytest.raises(ShardError, match="not a shard"):
        shard.write_bytes(b"PAR1" * 40)
        read_shard(shard, foreign.fid)
    # the whole folder of another fit
    res = rate(mined, out, "--work-dir", str(work), "--seed", "4")
    assert res.exit_code == 1 and "the work folder of another fit" in res.output


def test_rate_says_the_disk_it_needs_and_refuses_a_disk_too_small(mined, tmp_path, monkeypatch):
    import shutil

    from shapemill.miner import rate_command

    out = tmp_path / "r.parquet"
    usage = shutil.disk_usage(tmp_path)
    monkeypatch.setattr(rate_command.shutil, "disk_usage", lambda p: usage._replace(free=1000))
    res = rate(mined, out)
    assert res.exit_code == 1 and not out.exists()
    last = res.output.strip().splitlines()[-1]
    assert last.startswith(f"Error: {out}.work: the shards need about ") and "0.00 GB free" in last


def test_max_positions_all_and_past_the_games(mined, tmp_path):
    games, patterns = mined
    n = load_corpus([games], split="all").n_positions
    out, past = tmp_path / "all.parquet", tmp_path / "past.parquet"
    run = CliRunner().invoke
    common = ["--patterns", patterns, "--split", "all", "--max-iter", "2"]
    res = run(main, ["rate", games, *common, "-o", str(out), "--max-positions", "all"])
    assert res.exit_code == 0, res.output
    assert read_table(str(out), "ratings")[1]["params"]["positions"] == n
    res = run(main, ["rate", games, *common, "-o", str(past), "--max-positions", str(n + 5)])
    assert res.exit_code == 0, res.output
    assert f"--max-positions {n + 5:,}: the games hold {n:,} positions; fitting all of them" in res.output
    assert gammas(out) == gammas(past)
    res = run(main, ["rate", games, *common, "-o", str(out), "--max-positions", "some"])
    assert res.exit_code == 2


@pytest.fixture(scope="module")
def client():
    """A client of a local cluster of 2 worker processes on loopback."""
    pytest.importorskip("distributed")
    from shapemill.miner.cluster import dask_client

    with dask_client("local:2") as c:
        yield c


def test_rate_on_dask_gives_the_local_table(mined, client, small_chunks, tmp_path):
    local, dask = tmp_path / "local.parquet", tmp_path / "dask.parquet"
    res = rate(mined, local)
    assert res.exit_code == 0, res.output
    res = rate(mined, dask, "--scheduler", client.scheduler_info()["address"])
    assert res.exit_code == 0, res.output
    assert "on 2 Dask worker(s)" in res.output
    assert gammas(dask) == gammas(local)


def test_a_worker_killed_mid_sweep_does_not_change_the_table(mined, client, small_chunks, tmp_path):
    from shapemill.miner.rate_cluster import fit_on_cluster

    corpus, vocab, mask = corpus_vocab_mask(mined)
    local = fit(build_teams(corpus, vocab, mask, workers=2), max_iter=5, tol=0.0, workers=2)
    work = WorkFolder(tmp_path / "work", identity_of(corpus, vocab, mask))
    work.open()
    pids = client.run(os.getpid)
    arrived, killed = [], []

    def progress(i: int) -> None:
        arrived.append(i)
        # the third shard result of the first sweep's second pass (after the build,
        # the counts and the first pass): the worker holding the most results dies with them
        if len(arrived) == n_build + 2 * n_shards + 3 and not killed:
            held = client.has_what()
            victim = max(pids, key=lambda w: len(held.get(w, ())))
            os.kill(pids[victim], signal.SIGKILL)
            killed.append(victim)

    n_build = len(positions.chunk_plan(corpus, positions.Replay.of(corpus, mask)))
    n_shards = n_build
    result = fit_on_cluster(client, work, corpus, vocab, mask, 5, 0.0, progress=progress)
    assert killed, "no worker was killed"
    assert np.allclose(result.gamma, local.gamma, rtol=1e-9, atol=0)
    assert np.allclose(result.objective, local.objective, rtol=1e-12, atol=0)
    # the same numbers as the fit on the same shards in this process, exactly
    here = fit_competitions(OnDisk(work, build_shards(work, corpus, vocab, mask), vocab.size, vocab.first_tactical),
                            max_iter=5, tol=0.0)
    assert np.array_equal(result.gamma, here.gamma) and result.objective == here.objective
    # the intervals too: the workers make the rows of their combinations from the vocabulary
    assert np.array_equal(result.ci_low, here.ci_low) and np.array_equal(result.ci_high, here.ci_high)


def test_evaluate_on_dask_gives_the_local_report(mined, client, tmp_path):
    import json

    games, _ = mined
    ratings = tmp_path / "r.parquet"
    assert rate(mined, ratings).exit_code == 0
    run = CliRunner().invoke
    common = ["evaluate", games, "--ratings", str(ratings), "--split", "all", "--json"]
    local = run(main, [*common, "-j", "2"])
    assert local.exit_code == 0, local.output
    dask = run(main, [*common, "--scheduler", client.scheduler_info()["address"]])
    assert dask.exit_code == 0, dask.output
    here, there = json.loads(local.stdout), json.loads(dask.stdout)
    assert here["positions"] == there["positions"] == load_corpus([games], split="all").n_positions
    assert there["top1"] == here["top1"] and there["cumulative"] == here["cumulative"]
    for band, row in here["bands"].items():
        assert there["bands"][band]["positions"] == row["positions"] and there["bands"][band]["top5"] == row["top5"]
    assert there["mean_log_likelihood"] == pytest.approx(here["mean_log_likelihood"], rel=1e-12)


def test_a_full_disk_while_saving_the_gammas_is_one_line_and_keeps_the_shards(mined, small_chunks, tmp_path,
                                                                              monkeypatch):
    import errno

    out = tmp_path / "r.parquet"
    out.write_bytes(b"the previous table")
    saved = WorkFolder.save_state

    def full(self, state):
        if len(state.objective) == 1:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        saved(self, state)

    monkeypatch.setattr(WorkFolder, "save_state", full)
    res = rate(mined, out)
    assert res.exit_code == 1 and out.read_bytes() == b"the previous table"
    assert res.output.strip().splitlines()[-1] == f"Error: cannot write {out}.work: No space left on device"
    assert {"00000.teams", "fit.npz"} <= {p.name for p in Path(f"{out}.work").iterdir()}
    monkeypatch.setattr(WorkFolder, "save_state", saved)
    res = rate(mined, out)
    assert res.exit_code == 0 and f"resuming the fit in {out}.work after sweep 1" in res.output
