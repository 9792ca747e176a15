"""Team building carries patterns and tactical levels along a game: on real games, the
teams it builds are bit for bit those of every position read from scratch.

The reference replays each game move by move and reads every candidate of every
sampled position afresh (``candidate_levels``: each legal point's largest known
pattern and tactical levels), then numbers the combinations in the order first met
and packs the candidates as a chunk does, with nothing carried between positions.
"""

from __future__ import annotations

import zipfile

import numpy as np
import pytest
from shapemill.datasets.corpus import load_corpus
from shapemill.go.reading import legal_moves, reading_scratch
from shapemill.go.rings import far_rings, geometry
from shapemill.go.rules import play, to_point
from shapemill.miner.positions import Replay, chunk_plan, chunk_teams, pattern_bits, sample_mask
from shapemill.patterns.candidates import COMBO_PLACE, PASS_KEY, Vocabulary, candidate_levels
from shapemill.patterns.defaults import PATTERNS, default_table
from shapemill.patterns.features import FEATURES, N_FEATURES
from shapemill.tables import read_table

pytestmark = pytest.mark.shared_data

GAMES = 8  # games of one archive, spread over it


@pytest.fixture(scope="module")
def games(tygem_archives, tmp_path_factory):
    """``GAMES`` real games (whole), spread over the first archive, as a corpus."""
    folder = tmp_path_factory.mktemp("team-build")
    with zipfile.ZipFile(tygem_archives[0]) as archive:
        names = sorted(n for n in archive.namelist() if n.lower().endswith(".sgf"))
        for i, name in enumerate(names[:: len(names) // GAMES][:GAMES]):
            (folder / f"{i}.sgf").write_bytes(archive.read(name))
    corpus = load_corpus([str(folder)], split="all")
    assert len(corpus) == GAMES and (corpus.board_size == 19).all()
    return corpus


@pytest.fixture(scope="module")
def vocab():
    """The bundled patterns table's vocabulary: real patterns, from the small rings to the large."""
    return Vocabulary.from_patterns(read_table(default_table(PATTERNS), "patterns",
                                               ["feature", "pattern_id", "level", "size", "played"])[0])


def from_scratch(corpus, vocab, mask) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The sampled positions of every game read afresh, packed as a chunk: (candidates of
    each position, packed team, combination keys in the order met, move played, move number)."""
    size = 19
    geo = geometry(size)
    bits = pattern_bits(vocab.size)
    ids: dict[int, int] = {}
    sizes, packed, chosen, number = [], [], [], []
    for g in range(len(corpus)):
        b, m = corpus.start_position(g)
        for n, move in enumerate(corpus.game_moves(g)):
            color = int(corpus.first_color[g]) if n % 2 == 0 else 3 - int(corpus.first_color[g])
            point = to_point(int(move), size)
            if mask[corpus.offsets[g] + n]:
                points = legal_moves(b, m, color)
                levels = np.zeros((len(points), N_FEATURES), dtype=np.int32)
                pattern = np.empty(len(points), dtype=np.int32)
                candidate_levels(b, m, color, points, geo.pad, geo.delta, geo.max_ring, vocab.lookup, far_rings(size),
                                 vocab.level_index, reading_scratch(b, m), np.empty(geo.stride**2, dtype=np.int8),
                                 levels, pattern)
                keys = [*(levels.astype(np.int64) @ COMBO_PLACE[:N_FEATURES]).tolist(), PASS_KEY]
                last = levels[:, FEATURES.index("last_dist")]  # a pattern 2 to 4 from the previous move: its twin
                features = [(int(vocab.twin[p]) if 2 <= d <= 4 and vocab.twin[p] >= 0 else int(p)) if p >= 0
                            else vocab.size for p, d in zip(pattern, last)] + [vocab.size]
                for f, k in zip(features, keys):
                    v = f | (ids.setdefault(k, len(ids)) << bits)
                    packed.append([v & 0xFFFF, (v >> 16) & 0xFFFF, v >> 32])
                sizes.append(len(points) + 1)
                chosen.append(int(np.flatnonzero(points == point)[0]) if point in points else len(points))
                number.append(n)
            play(b, m, color, point)
    return (np.array(sizes), np.array(packed, dtype=np.uint16), np.array(list(ids), dtype=np.int64),
            np.array(chosen), np.array(number))


@pytest.mark.parametrize("sampled", [None, 300], ids=["every-position", "a-sample"])
def test_carried_teams_equal_the_teams_read_afresh_at_every_position(games, vocab, sampled):
    mask = sample_mask(games, sampled, seed=3)
    replay = Replay.of(games, mask)
    [chunk_games] = chunk_plan(games, replay)
    assert chunk_games.tolist() == list(range(GAMES))
    chunk = chunk_teams(games, vocab, mask, replay, chunk_games)
    sizes, team, keys, chosen, number = from_scratch(games, vocab, mask)
    assert len(sizes) == mask.sum() and len(team) > 100 * len(sizes)
    assert np.array_equal(chunk.sizes, sizes)
    assert np.array_equal(chunk.team, team)
    assert np.array_equal(chunk.keys, keys)
    assert np.array_equal(chunk.chosen, chosen)
    assert np.array_equal(chunk.move_number, number)
