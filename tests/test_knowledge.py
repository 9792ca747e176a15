"""``Knowledge``: probabilities over the legal moves, the same first choices and
likelihoods as ``evaluate``, explanations whose gammas make the strength, and feature
levels read by hand from a position drawn for it."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pytest
from replayed import replayed_positions

from shapemill.datasets import read_games
from shapemill.datasets.corpus import load_corpus
from shapemill.go import Board
from shapemill.miner import Knowledge
from shapemill.miner.evaluate import evaluate_table
from shapemill.patterns.features.words import level_words
from shapemill.patterns.features import FEATURE_LEVELS, FEATURES


@pytest.fixture(scope="module")
def knowledge() -> Knowledge:
    return Knowledge.load()


def _test_games(archive: Path, folder: Path, n: int) -> list[str]:
    """The first ``n`` games of ``archive`` that the stable hash puts in the test split, as SGF files."""
    with zipfile.ZipFile(archive) as z:
        for name in [name for name in z.namelist() if name.lower().endswith(".sgf")][:200]:
            (folder / Path(name).name).write_bytes(z.read(name))
    return [game.source for game in read_games([str(folder)]) if game.split == "test"][:n]


def _mid_game() -> Board:
    board = Board(19)
    moves = ["Q16", "D4", "Q3", "D16", "R5", "C14", "F17", "O17", "R12", "C6", "L4", "K16"]
    for i, v in enumerate(moves):
        board.play("bw"[i % 2], (int(v[1:]) - 1, "ABCDEFGHJKLMNOPQRST".index(v[0])))
    return board


def test_probabilities_sum_to_one_over_the_legal_moves_and_the_pass(knowledge: Knowledge) -> None:
    board = _mid_game()
    p = knowledge.probabilities(board, "b")
    assert p.points.shape == (19, 19)
    assert p.points.sum() + p.p_pass == pytest.approx(1.0, abs=1e-12)
    assert 0 < p.p_pass < 1
    legal = np.array([[board.is_legal("b", (r, c)) for c in range(19)] for r in range(19)])
    assert ((p.points > 0) == legal).all()  # Board's own legality, superko included
    first, second = knowledge.top(board, "b", 2)
    assert first[1] >= second[1] and first[1] == pytest.approx(p.points.max())


@pytest.mark.shared_data
def test_first_choices_and_likelihood_are_what_evaluate_reports(knowledge: Knowledge, tygem_archives,
                                                                tmp_path: Path) -> None:
    paths = _test_games(tygem_archives[0], tmp_path, 2)
    corpus = load_corpus(paths, split="all")
    report = evaluate_table(knowledge, corpus, np.ones(corpus.n_positions, dtype=bool))
    top1 = top5 = 0
    logp = []
    for board, colour, point, _ in replayed_positions(corpus):
        p = knowledge.probabilities(board, colour)
        played = p.p_pass if point is None else p.points[point]
        # ties count against the table, but for the points that are one move with the played
        # one (its images under the position's symmetries, as many as ``equivalent``)
        equivalent = board.equivalent_points(point)
        rank = int((p.points >= played).sum() + (p.p_pass >= played)) - (equivalent - 1)
        best = knowledge.top(board, colour, equivalent + 1)
        firsts = [v for v, q in best if q == best[0][1]]  # the table's first choices, tied
        played_first = ("pass" if point is None else board_vertex(point)) in firsts
        assert (rank == 1) == (played_first and len(firsts) == equivalent)
        top1 += rank == 1
        top5 += rank <= 5
        logp.append(np.log(played))
    n = len(logp)
    assert report["positions"] == n > 300
    assert report["top1"] == top1 / n
    assert report["top5"] == top5 / n
    assert report["mean_log_likelihood"] == pytest.approx(np.mean(logp), rel=1e-9)


def board_vertex(point: tuple[int, int]) -> str:
    return f"{'ABCDEFGHJKLMNOPQRST'[point[1]]}{point[0] + 1}"


def test_explanations_gammas_multiply_to_the_strength(knowledge: Knowledge) -> None:
    board = _mid_game()
    p = knowledge.probabilities(board, "b")
    for vertex, prob in knowledge.top(board, "b", 8) + [("pass", p.p_pass), ("A1", p.points[0, 0])]:
        e = knowledge.explain(board, "b", vertex)
        gammas = [f.gamma for f in e.features] + ([e.pattern.gamma] if e.pattern else [])
        assert np.prod(gammas) * e.pairs == pytest.approx(e.strength, rel=1e-12)  # pairs: 1 without vectors
        assert e.probability == pytest.approx(prob, rel=1e-12)
        assert e.pattern is None or e.pattern.id >= 0 and int(e.pattern.hex, 16) == e.pattern.id
    assert knowledge.explain(board, "b", "Q16").legal is False  # occupied
    with pytest.raises(ValueError):
        knowledge.explain(board, "b", "Z99")


def _symmetries(grid: list[list[str]]) -> list[list[list[str]]]:
    """The 8 images of a 3x3 grid under rotation and reflection (plain Python)."""
    out = []
    g = grid
    for _ in range(4):
        g = [list(row) for row in zip(*g[::-1])]
        out += [g, [row[::-1] for row in g]]
    return out


def test_feature_levels_match_a_position_read_by_hand(knowledge: Knowledge) -> None:
    # 9x9, row 0 at the bottom. White C1 between Black B1 and D1 has one liberty, C2.
    # White's last move is G7. Black C2 captures it: one stone, second line, 4 liberties
    # after (B2, D2, C3, and C1 emptied), gridcular distance to G7 = 4 + 5 + max(4, 5) = 14.
    board = Board(9)
    board.setup("b", [(0, 1), (0, 3), (6, 0)])
    board.setup("w", [(0, 2), (8, 8)])
    board.play("b", (4, 8))
    board.play("w", (6, 6))
    e = knowledge.explain(board, "b", "C2")
    levels = {f.feature: f.level for f in e.features}
    assert levels["capture_size"] == 1
    assert levels["border"] == 2
    assert levels["libs_after"] == 4
    assert levels["last_dist"] == 14
    assert "self_atari" not in levels and "atari" not in levels
    # Its 3x3 neighbourhood, liberties before the move: B1 and D1 Black with 2 each, C1 White with 1.
    hand = [[".", ".", "."], [".", "*", "."], ["X2", "O1", "X2"]]
    drawn = next(f.meaning for f in e.features if f.feature == "nbr3x3").splitlines()[1:]
    assert [row.split() for row in drawn] in _symmetries(hand)


def test_every_level_of_every_feature_has_words() -> None:
    for name, levels in zip(FEATURES, FEATURE_LEVELS):
        words = {level_words(name, level) for level in range(1, levels)}
        assert len(words) == levels - 1 and all(words)
    with pytest.raises(ValueError):
        level_words("border", 9)
