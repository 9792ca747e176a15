"""Latent vectors (``shapemill vectors``): each pair of a move's features adds the dot product
of their vectors, checked against the table's rows read by hand; ``evaluate`` ranks as
``Knowledge`` does; the fit raises the likelihood of the moves it fitted; a damaged table is
one line."""

from __future__ import annotations

import csv
import json
import math
import shutil
from itertools import combinations
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from replayed import replayed_positions

from shapemill.cli import main
from shapemill.datasets.corpus import load_corpus
from shapemill.go import Board
from shapemill.miner import Knowledge
from shapemill.miner.evaluate import evaluate_table
from shapemill.miner.latent import Flat, fit_factors
from shapemill.tables import TableError


@pytest.fixture(scope="module")
def vectors_table(small_tables: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> str:
    """The small tables' ratings with vectors fitted on every position of their three games
    (a small lambda, every pattern: the fit must move on so few positions)."""
    out = str(tmp_path_factory.mktemp("vectors") / "vectors.parquet")
    result = CliRunner().invoke(main, ["vectors", small_tables["games"], "--ratings", small_tables["ratings"],
                                       "-o", out, "--split", "all", "--lambda", "0.01", "--played", "0",
                                       "--iterations", "30", "-j", "1", "-q"])
    assert result.exit_code == 0, result.output
    assert "vectors of 8 for" in result.output and "5 move-number bands" in result.output
    return out


def _rows_by_hand(path: str) -> tuple[dict, list[int], list[list[float]]]:
    """The vector of each (feature, value) row of the table at ``path`` and its bands, read
    with pyarrow alone."""
    table = pq.read_table(path, columns=["feature", "value", "vector"])
    meta = json.loads(pq.read_schema(path).metadata[b"shapemill"])["latent"]
    vectors = {(str(f), int(v)): vec for f, v, vec in zip(table["feature"].to_pylist(), table["value"].to_pylist(),
                                                          table["vector"].to_pylist()) if vec is not None}
    return vectors, meta["starts"], meta["vectors"]


def test_a_moves_pairs_are_the_dot_products_of_its_features_and_band(vectors_table: str,
                                                                     small_tables: dict[str, str]) -> None:
    vectors, starts, band_vectors = _rows_by_hand(vectors_table)
    assert len(band_vectors) == len(starts) + 1 and len(vectors) > 20
    knowledge = Knowledge.load(vectors_table)
    corpus = load_corpus([small_tables["games"]], split="all")
    checked = 0
    for board, colour, point, played_before in replayed_positions(corpus):
        if point is None or played_before % 7:
            continue
        why = knowledge.explain(board, colour, point)
        names = [(f.feature, f.level) for f in why.features]
        if why.pattern:
            names.append(("near_pattern" if why.pattern.near else "pattern", why.pattern.id))
        band = sum(start <= played_before + 1 for start in starts)  # moves 1-19 band 0, 20-59 band 1, ...
        members = [vectors[name] for name in names if name in vectors] + [band_vectors[band]]
        pairs = sum(sum(x * y for x, y in zip(u, v)) for u, v in combinations(members, 2))
        assert why.pairs == pytest.approx(math.exp(pairs), rel=1e-9)
        assert why.strength == pytest.approx(math.prod(f.gamma for f in why.features)
                                             * (why.pattern.gamma if why.pattern else 1.0) * why.pairs, rel=1e-9)
        checked += why.pairs != 1.0
    assert checked > 5


@pytest.mark.parametrize("chunk", [None, 997])  # 997: the teams unpacked in many chunks, the last one short
def test_evaluate_ranks_the_moves_as_knowledge_does(vectors_table: str, small_tables: dict[str, str],
                                                    chunk: int | None, monkeypatch: pytest.MonkeyPatch) -> None:
    if chunk is not None:
        monkeypatch.setattr("shapemill.miner.latent.UNPACK_CHUNK", chunk)
    knowledge = Knowledge.load(vectors_table)
    corpus = load_corpus([small_tables["games"]], split="all")
    report = evaluate_table(knowledge, corpus, np.ones(corpus.n_positions, dtype=bool))
    top1, logp = 0, []
    for board, colour, point, _ in replayed_positions(corpus):
        p = knowledge.probabilities(board, colour)
        assert p.points.sum() + p.p_pass == pytest.approx(1.0, abs=1e-12)
        played = p.of(point)
        top1 += p.rank(point, board.equivalent_points(point)) == 1
        logp.append(np.log(played))
    assert report["positions"] == len(logp)
    assert report["top1"] == top1 / len(logp)
    assert report["mean_log_likelihood"] == pytest.approx(np.mean(logp), rel=1e-9)


def test_the_vectors_raise_the_likelihood_of_the_moves_they_were_fitted_on(vectors_table: str,
                                                                           small_tables: dict[str, str]) -> None:
    corpus = load_corpus([small_tables["games"]], split="all")
    everything = np.ones(corpus.n_positions, dtype=bool)
    without = evaluate_table(Knowledge.load(small_tables["ratings"]), corpus, everything)
    with_them = evaluate_table(Knowledge.load(vectors_table), corpus, everything)
    assert with_them["mean_log_likelihood"] > without["mean_log_likelihood"] + 0.05


def test_info_says_what_the_vectors_were_fitted_on(vectors_table: str) -> None:
    result = CliRunner().invoke(main, ["info", vectors_table])
    assert result.exit_code == 0, result.output
    line = next(line for line in result.output.splitlines() if line.strip().startswith("vectors"))
    assert "8 numbers for" in line and "(lambda 0.01, patterns played 0 times," in line


def test_a_table_whose_bands_do_not_match_its_vectors_is_one_line(vectors_table: str, tmp_path: Path) -> None:
    schema = pq.read_schema(vectors_table)
    meta = json.loads(schema.metadata[b"shapemill"])
    meta["latent"]["vectors"] = meta["latent"]["vectors"][:2]
    bad = tmp_path / "bad.parquet"
    table = pq.read_table(vectors_table)
    pq.write_table(table.replace_schema_metadata({**schema.metadata, b"shapemill": json.dumps(meta).encode()}), bad)
    with pytest.raises(TableError, match="bad.parquet.*bands"):
        Knowledge.load(str(bad)).top(Board(9), "b")


def test_vectors_refuses_a_file_that_is_no_ratings_table(small_tables: dict[str, str], tmp_path: Path) -> None:
    shutil.copy(small_tables["games"], tmp_path / "games.parquet")
    out = tmp_path / "out.parquet"
    result = CliRunner().invoke(main, ["vectors", small_tables["games"], "--ratings", str(tmp_path / "games.parquet"),
                                       "-o", str(out), "-q"])
    assert result.exit_code == 1 and "games.parquet" in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1 and not out.exists()


def test_export_writes_the_vectors_as_numbers(vectors_table: str, tmp_path: Path) -> None:
    by_hand, _, _ = _rows_by_hand(vectors_table)
    for fmt in ("csv", "json"):
        out = tmp_path / f"rows.{fmt}"
        result = CliRunner().invoke(main, ["export", vectors_table, "--format", fmt, "-o", str(out)])
        assert result.exit_code == 0, result.output
        if fmt == "csv":
            rows = list(csv.DictReader(out.open(encoding="utf-8")))
            got = {(r["feature"], int(r["value"])): [float(x) for x in r["vector"].split()] for r in rows if r["vector"]}
        else:
            rows = [json.loads(line) for line in out.open(encoding="utf-8")]
            got = {(r["feature"], r["value"]): r["vector"] for r in rows if r["vector"] is not None}
        assert got.keys() == by_hand.keys()
        for name, vector in by_hand.items():
            assert got[name] == pytest.approx(vector, rel=1e-5, abs=1e-9)


def test_the_patterns_counts_give_vectors_to_the_patterns_played_often(small_tables: dict[str, str],
                                                                       tmp_path: Path) -> None:
    """With --patterns, a pattern gets a vector when either table says it was played N times
    (the ratings table counts the moves whose largest pattern it was, the patterns table
    every ring mined); the count read by hand from both tables."""
    ratings = pq.read_table(small_tables["ratings"], columns=["feature", "value", "played"]).to_pylist()
    mined = pq.read_table(small_tables["patterns"], columns=["feature", "pattern_id", "played"]).to_pylist()
    n = 3
    patterns = {r["value"] for r in ratings if r["feature"] == "pattern"}
    often = {r["pattern_id"] for r in mined if r["feature"] == "pattern" and r["played"] >= n} & patterns
    often |= {r["value"] for r in ratings if r["feature"] == "pattern" and (r["played"] or 0) >= n}
    twins = [r for r in ratings if r["feature"] == "near_pattern" and (r["played"] or 0) >= n]
    tactical = [r for r in ratings if r["feature"] not in ("pattern", "near_pattern")]
    out = tmp_path / "v.parquet"
    result = CliRunner().invoke(main, ["vectors", small_tables["games"], "--ratings", small_tables["ratings"],
                                       "--patterns", small_tables["patterns"], "--played", str(n), "-o", str(out),
                                       "--split", "all", "--iterations", "2", "-j", "1", "-q"])
    assert result.exit_code == 0, result.output
    expected = len(often) + len(twins) + len(tactical) + ("pass" not in {r["feature"] for r in tactical})
    assert f"vectors of 8 for {expected:,} features" in result.output
    assert len(often) > len({r["value"] for r in ratings if r["feature"] == "pattern" and (r["played"] or 0) >= n})


def test_moving_gammas_reach_the_hand_computed_maximum_and_leave_the_others_held() -> None:
    """Ten positions of three candidates each: pattern A alone, pattern B alone, B with the
    tactical feature T; A played 6 times, B 1, B with T 3. With B's gamma held at 1 (it has
    no vector) and no pair term (no candidate has two features with vectors), the maximum of
    the likelihood is where the strengths stand as the counts, 6 : 1 : 3 (gammas A 6, T 3),
    and L-BFGS must find it; held (``lam_w`` None), every gamma stays."""
    a, b, t, none = 0, 1, 2, 3
    chosen = np.array([0] * 6 + [1] + [2] * 3)
    flat = Flat(pos_start=np.arange(0, 31, 3), pattern=np.tile([a, b, b], 10).astype(np.int32),
                combo=np.tile([0, 0, 1], 10).astype(np.int32), rows=np.array([[none], [t]], dtype=np.int32),
                chosen=chosen, move_number=np.zeros(10, dtype=np.int32),
                context=np.full(10, none, dtype=np.int64), none=none, contexts=0, images=np.ones(10, np.int8))
    flags = np.array([True, False, True])
    moved = fit_factors(flat, np.ones(3), 2, 1e-9, 1e-9, 200, threads=1, vectors=flags)
    assert np.exp(moved.w[:3]) == pytest.approx([6.0, 1.0, 3.0], rel=1e-4)
    assert moved.w[b] == 0.0
    held = fit_factors(flat, np.ones(3), 2, 1e-9, None, 20, threads=1, vectors=flags)
    assert (held.w[:3] == 0.0).all()

