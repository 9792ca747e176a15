"""The compact ratings table: chains of rings whole, the engine's priors unchanged where it keeps the pattern."""

import numpy as np
import pyarrow.compute as pc
from shapemill.datasets.corpus import load_corpus
from shapemill.go.reading import legal_moves, reading_scratch
from shapemill.go.rings import far_rings, geometry
from shapemill.go.rules import play, to_point
from shapemill.patterns.candidates import candidate_teams, ratings_model
from shapemill.miner.compact import compact_ratings, kept_patterns, pattern_tree
from shapemill.patterns.features import N_FEATURES
from shapemill.patterns.prior import MovePrior
from shapemill.tables import read_table, write_table
from test_rate import rated


def largest_patterns(b, m, color, points, vocab) -> tuple[np.ndarray, np.ndarray]:
    """The id of each candidate's largest pattern in ``vocab`` (0 where none) and whether
    its near twin stands for it."""
    geo = geometry(9)
    team = np.zeros((len(points), N_FEATURES + 1), dtype=np.int32)
    candidate_teams(b, m, color, points, geo.pad, geo.delta, geo.max_ring, vocab.lookup, far_rings(9),
                    vocab.level_index, vocab.twin, reading_scratch(b, m), np.empty(geo.stride**2, dtype=np.int8),
                    np.zeros((len(points), N_FEATURES), dtype=np.int32), team)
    ids = np.where(team[:, 0] >= 0, vocab.value[np.maximum(team[:, 0], 0)], 0)  # a twin's value is its pattern's id
    return ids, team[:, 0] >= len(vocab.pattern_ids)


def test_compact_table_keeps_whole_chains_and_the_full_tables_priors_for_the_patterns_it_keeps(tmp_path):
    games, _, ratings = rated(tmp_path)
    table, meta = read_table(ratings, "ratings")
    rows, parent = pattern_tree(table)
    ring2 = pc.and_(pc.equal(table["feature"], "pattern"), pc.equal(table["size"], 2))
    assert (parent >= -1).all() and (parent == -1).sum() == pc.sum(ring2).as_py()
    assert kept_patterns(table, 0.0).all()

    tolerance = 1.0
    keep = kept_patterns(table, tolerance)[rows]
    assert 0 < keep.sum() < len(rows)
    assert all(keep[parent[i]] for i in np.flatnonzero(keep) if parent[i] >= 0)  # chains whole

    compact = str(tmp_path / "compact.parquet")
    write_table(compact_ratings(table, tolerance), compact, meta)
    assert (tmp_path / "compact.parquet").stat().st_size < (tmp_path / "r.parquet").stat().st_size
    small_table = read_table(compact, "ratings")[0]
    kept_ids = set(small_table.filter(pc.equal(small_table["feature"], "pattern"))["value"].to_pylist())
    kept_twins = set(small_table.filter(pc.equal(small_table["feature"], "near_pattern"))["value"].to_pylist())
    rows_now = table.select(["feature", "value", "gamma"]).to_pylist()
    gamma = {(row["feature"], row["value"]): row["gamma"] for row in rows_now}
    assert 0 < len(kept_twins) < len(kept_ids)  # a twin whose gamma is its pattern's is dropped
    vocab = ratings_model(table).vocab
    full, small = MovePrior(ratings), MovePrior(compact)
    corpus = load_corpus(games, split="all")
    compared = differ = fallen_back = 0
    for g in range(len(corpus)):
        b, m = corpus.start_position(g)
        for n, move in enumerate(corpus.game_moves(g)):
            color = 1 if n % 2 == 0 else 2
            points = legal_moves(b, m, color)
            largest, twin = largest_patterns(b, m, color, points, vocab)
            same = np.array([int(p) in kept_ids for p in largest])
            a, c = full(b, m, color)[points], small(b, m, color)[points]
            # a twin the compact table dropped: the pattern's gamma in the twin's place
            dropped = same & twin & np.array([int(p) not in kept_twins for p in largest])
            expected = a.copy()
            for i in np.flatnonzero(dropped):
                own = gamma["pattern", int(largest[i])]
                expected[i] *= own / gamma.get(("near_pattern", int(largest[i])), own)
            assert np.allclose(expected[same], c[same], rtol=1e-6, atol=0)  # the compact's gammas are float32's
            compared += same.sum()
            fallen_back += dropped.sum()
            differ += (~np.isclose(a[~same], c[~same], rtol=1e-6, atol=0)).sum()
            play(b, m, color, to_point(int(move), 9))
    assert compared > 0 and differ > 0 and fallen_back > 0
