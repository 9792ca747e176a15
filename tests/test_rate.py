"""Ratings: MM against an independent Luce solver, monotone fit, the commands end to end."""

import atexit
import json
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from shapemill.cli import main
from shapemill.miner.evaluate import evaluate_teams
from shapemill.miner.positions import Teams
from shapemill.miner.rate import fit
from shapemill.tables import read_table

choix = pytest.importorskip("choix")


def single_feature_teams(n_items: int, n_positions: int, seed: int) -> tuple[Teams, list]:
    """Competitions among 2-5 items, each candidate a team of one feature; the winner is
    drawn from a Luce model with random strengths."""
    rng = np.random.default_rng(seed)
    strength = np.exp(rng.normal(0, 1, n_items))
    pos, cands, chosen, data = [0], [], [], []
    for _ in range(n_positions):
        items = rng.choice(n_items, size=rng.integers(2, 6), replace=False)
        p = strength[items] / strength[items].sum()
        w = int(rng.choice(len(items), p=p))
        cands.extend(items.tolist())
        pos.append(len(cands))
        chosen.append(w)
        data.append((int(items[w]), tuple(int(i) for i in np.delete(items, w))))
    return single_features(pos, cands, chosen, n_items), data


def single_features(pos_start: list, features: list, chosen: list, n_features: int) -> Teams:
    """Teams of one feature each (in the pattern column, no tactical combination)."""
    return Teams.from_candidates(
        pos_start=np.array(pos_start, dtype=np.int64),
        pattern=np.array(features, dtype=np.int32),
        combo=np.zeros(len(features), dtype=np.int32),
        combos=np.full((1, 2), n_features, dtype=np.int32),
        chosen=np.array(chosen, dtype=np.int32),
        move_number=np.zeros(len(chosen), dtype=np.int32),
        none=n_features,
    )


def test_mm_agrees_with_an_independent_luce_solver():
    teams, data = single_feature_teams(n_items=8, n_positions=600, seed=1)
    result = fit(teams, max_iter=20000, tol=0.0, prior=False)
    ours = np.log(result.gamma)
    ours -= ours.mean()
    theirs = choix.ilsr_top1(8, data, alpha=0.0, tol=1e-12)
    theirs -= theirs.mean()
    assert np.allclose(np.exp(ours), np.exp(theirs), rtol=1e-6, atol=0)


def test_objective_never_decreases_and_an_unplayed_feature_stays_finite_and_low():
    teams, _ = single_feature_teams(n_items=6, n_positions=300, seed=2)
    # Feature 6 is a candidate of the first 50 positions and never chosen.
    pos, cand = teams.pos_start, teams.candidates()[0].tolist()
    feats, starts = [], [0]
    for j in range(teams.n_positions):
        feats.extend(cand[pos[j] : pos[j + 1]] + ([6] if j < 50 else []))
        starts.append(len(feats))
    teams = single_features(starts, feats, teams.chosen, 7)
    result = fit(teams, max_iter=200, tol=0.0)
    assert all(b >= a - 1e-12 for a, b in zip(result.objective, result.objective[1:]))
    assert np.isfinite(result.gamma).all() and (result.gamma > 0).all()
    assert result.gamma[6] < 0.25 < np.median(result.gamma[:6])
    assert result.played[6] == 0 and result.seen[6] == 50
    assert (result.ci_low < result.gamma).all() and (result.gamma < result.ci_high).all()


def team_competitions(n_positions: int, seed: int) -> Teams:
    """Positions of 3-8 candidates, each a pattern (0..4, or none) and a combination of
    two tactical groups (features 5-7 and 8-9, each possibly absent), the winner drawn
    from a model with random gammas."""
    rng = np.random.default_rng(seed)
    none = 10
    combos = np.array([[a, b] for a in (5, 6, 7, none) for b in (8, 9, none)], dtype=np.int32)
    truth = np.append(np.exp(rng.normal(0, 1, none)), 1.0)
    pos, pattern, combo, chosen = [0], [], [], []
    for _ in range(n_positions):
        n = int(rng.integers(3, 9))
        p = rng.choice([0, 1, 2, 3, 4, none], size=n)
        k = rng.integers(0, len(combos), size=n)
        s = truth[p] * truth[combos[k]].prod(axis=1)
        chosen.append(int(rng.choice(n, p=s / s.sum())))
        pattern.extend(p.tolist())
        combo.extend(k.tolist())
        pos.append(len(pattern))
    return Teams.from_candidates(
        np.array(pos, dtype=np.int64), np.array(pattern, dtype=np.int32), np.array(combo, dtype=np.int32), combos,
        np.array(chosen, dtype=np.int32), np.zeros(n_positions, dtype=np.int32), none,
    )


def log_posterior_gradient(teams: Teams, gamma: np.ndarray) -> np.ndarray:
    """d(log posterior) / d(log gamma_f), computed densely and independently of the fit."""
    n = teams.none
    member = np.zeros((teams.n_candidates, n + 1))
    pattern, combo = teams.candidates()
    member[np.arange(teams.n_candidates), pattern] = 1
    features = teams.combination_features(combo)
    for g in range(features.shape[1]):
        member[np.arange(teams.n_candidates), features[:, g]] = 1
    member = member[:, :n]
    strength = np.exp(member @ np.log(gamma))
    grad = 1 - 2 * gamma / (1 + gamma)
    for j in range(teams.n_positions):
        lo, hi = teams.pos_start[j], teams.pos_start[j + 1]
        grad += member[lo + teams.chosen[j]] - strength[lo:hi] @ member[lo:hi] / strength[lo:hi].sum()
    return grad


def test_mm_with_teams_climbs_to_the_maximum_of_the_posterior():
    teams = team_competitions(400, seed=3)
    plain = fit(teams, max_iter=3000, tol=1e-13, accelerate=False)
    result = fit(teams, max_iter=3000, tol=1e-13)
    for r in (plain, result):
        assert all(b >= a - 1e-12 for a, b in zip(r.objective, r.objective[1:]))
        assert len(r.objective) > 10
        assert np.abs(log_posterior_gradient(teams, r.gamma)).max() < 1e-4
    assert np.allclose(result.gamma, plain.gamma, rtol=1e-4, atol=0)
    # SQUAREM's extrapolation gets there in a fraction of the sweeps (37 against 180 when written)
    assert len(result.objective) < len(plain.objective) / 3


def test_an_extrapolation_that_loses_is_dropped_for_the_plain_step(monkeypatch):
    """Every extrapolated start made worse than the sweep before it: each is refused at its
    first pass, and the fit is plain MM's, sweep for sweep (one pass spent a cycle)."""
    from shapemill.miner import rate

    teams = team_competitions(400, seed=3)
    plain = fit(teams, max_iter=12, tol=0.0, accelerate=False)
    refused = []

    def worse(x0, x1, x2, n):
        refused.append(len(refused))
        out = x2.copy()
        out[:n] *= np.exp(np.random.default_rng(len(refused)).normal(0, 3, n))
        return out

    monkeypatch.setattr(rate, "extrapolate", worse)
    result = fit(teams, max_iter=12, tol=0.0)
    assert len(refused) == 4
    assert result.objective == plain.objective and np.array_equal(result.gamma, plain.gamma)


def test_evaluation_ranks_the_played_move_with_ties_against_the_model():
    teams = single_features([0, 3, 5], [0, 1, 2, 1, 1], [0, 1], 3)
    teams.move_number = np.array([0, 40], dtype=np.int32)
    report = evaluate_teams(teams, np.array([4.0, 1.0, 3.0]))
    # Position 1: the chosen feature 0 is strongest (top 1). Position 2: tied with the
    # other candidate, so it ranks second.
    assert report["top1"] == 0.5 and report["top5"] == 1.0
    assert report["mean_log_likelihood"] == pytest.approx((np.log(4 / 8) + np.log(1 / 2)) / 2)
    assert report["bands"]["1-30"]["top1"] == 1.0 and report["bands"]["31-80"]["top1"] == 0.0


SGFS = [
    b"(;GM[1]FF[4]SZ[9];B[cc];W[gg];B[cg];W[gc];B[ee];W[dd];B[de];W[ed];B[ce];W[fe])",
    b"(;GM[1]FF[4]SZ[9];B[gg];W[cc];B[gc];W[cg];B[ee];W[ff];B[fe];W[ef];B[df];W[eg])",
    b"(;GM[1]FF[4]SZ[9];B[cg];W[gc];B[gg];W[cc];B[ef];W[ee];B[fe];W[de];B[dd];W[cd])",
]


def write_sgfs(folder: Path) -> list[str]:
    """The SGFS written into ``folder``: their paths."""
    for i, sgf in enumerate(SGFS):
        (folder / f"{i}.sgf").write_bytes(sgf)
    return [str(folder / f"{i}.sgf") for i in range(len(SGFS))]


def test_mine_rate_evaluate_end_to_end(tmp_path):
    games = write_sgfs(tmp_path)
    run = CliRunner().invoke
    patterns, ratings = str(tmp_path / "p.parquet"), str(tmp_path / "r.parquet")
    assert run(main, ["mine", *games, "-o", patterns, "--split", "all", "--min-count", "2", "-q"]).exit_code == 0
    result = run(main, ["rate", *games, "--patterns", patterns, "-o", ratings, "--split", "all", "--max-iter", "5"])
    assert result.exit_code == 0, result.output
    assert "iteration   5" in result.output or "iteration   4" in result.output
    table, meta = read_table(ratings, "ratings")
    assert meta["params"]["positions"] == 30 and meta["params"]["patterns"] == patterns
    assert {"feature", "value", "gamma", "elo", "ci_low", "ci_high", "seen", "played"} <= set(table.column_names)
    assert set(table["feature"].to_pylist()) >= {"pattern", "pass", "border"}
    elo = np.array(table["elo"].to_pylist())
    assert np.allclose(elo, 400 * np.log10(table["gamma"].to_numpy()))
    out = run(main, ["evaluate", *games, "--ratings", ratings, "--split", "all", "--json"])
    assert out.exit_code == 0, out.output
    report = json.loads(out.stdout)
    assert report["positions"] == 30 and 0 < report["top10"] <= 1 and len(report["cumulative"]) == 30
    # Trained and tested on the same tiny games, the model must beat chance (1 in ~75).
    assert report["top5"] > 0.3


_RATED: list[Path] = []  # the folder of the one mine and rate of the SGFS, made on first use


def rated(tmp_path) -> tuple[list[str], str, str]:
    """The SGFS mined and rated (3 sweeps): games, patterns table, ratings table. Mined and
    rated once a session; each caller gets its own copies of the tables (``p.parquet``,
    ``r.parquet`` in ``tmp_path``) and the games they were made from (read only)."""
    if not _RATED:
        folder = Path(tempfile.mkdtemp(prefix="shapemill-rated-"))
        atexit.register(shutil.rmtree, folder, True)
        games = write_sgfs(folder)
        run = CliRunner().invoke
        patterns, ratings = str(folder / "p.parquet"), str(folder / "r.parquet")
        assert run(main, ["mine", *games, "-o", patterns, "--split", "all", "--min-count", "2", "-q"]).exit_code == 0
        assert run(main, ["rate", *games, "--patterns", patterns, "-o", ratings, "--split", "all",
                          "--max-iter", "3", "--near-played", "3"]).exit_code == 0  # near twins in a small corpus
        _RATED.append(folder)
    folder = _RATED[0]
    for name in ("p.parquet", "r.parquet"):
        shutil.copy(folder / name, tmp_path / name)
    return [str(folder / f"{i}.sgf") for i in range(len(SGFS))], str(tmp_path / "p.parquet"), str(tmp_path / "r.parquet")


def test_ratings_become_the_engines_move_priors(tmp_path):
    from shapemill.go import Board
    from shapemill.patterns.prior import MovePrior

    games, patterns, ratings = rated(tmp_path)
    run = CliRunner().invoke
    board = Board(9)
    board.play("b", (6, 2))
    strength = MovePrior(ratings)(board.b, board.m, 2)
    assert strength[(6 + 1) * 11 + 2 + 1] == 0  # occupied
    assert (strength > 0).sum() == 80  # every other point is legal and rated
    with pytest.raises(Exception, match="expected a 'ratings' table"):
        MovePrior(patterns)
    session = run(main, ["gtp", "--ratings", ratings, "--size", "9", "--playouts", "200"],
                  input="play b c7\n1 genmove w\n2 shapemill-prior\nquit\n")
    assert session.exit_code == 0, session.output
    assert "=1 " in session.output and "? " not in session.output


def test_export_and_show_a_ratings_table(tmp_path):
    import csv

    games, patterns, ratings = rated(tmp_path)
    run = CliRunner().invoke
    table, _ = read_table(ratings, "ratings")

    assert run(main, ["export", ratings, "--format", "csv", "-o", str(tmp_path / "r.csv")]).exit_code == 0
    rows = list(csv.DictReader(open(tmp_path / "r.csv")))
    assert len(rows) == table.num_rows and float(rows[0]["gamma"]) == pytest.approx(table["gamma"][0].as_py())
    assert run(main, ["export", ratings, "--format", "json", "-o", str(tmp_path / "r.json")]).exit_code == 0
    assert len(open(tmp_path / "r.json").read().splitlines()) == table.num_rows

    result = run(main, ["export", ratings, "--format", "mm", "-o", str(tmp_path / "r.mm")])
    assert result.exit_code == 0, result.output
    lines = open(tmp_path / "r.mm").read().splitlines()
    n_gammas = int(lines[0].split()[1])
    n_groups = int(lines[1])
    assert n_gammas == table.num_rows and sum(int(lines[2 + g].split()[0]) for g in range(n_groups)) == n_gammas
    assert lines[2 + n_groups] == "!"
    games_at = [i for i, line in enumerate(lines) if line == "#"]
    assert len(games_at) == 30  # every position of the fit
    for start, end in zip(games_at, games_at[1:] + [len(lines)]):
        winner, participants = lines[start + 1], lines[start + 2 : end]
        assert winner in participants
        assert all(0 <= int(x) < n_gammas for team in participants for x in team.split())

    shown = run(main, ["show", ratings, "--top", "2"])
    assert shown.exit_code == 0 and "highest rated 2" in shown.output and "lowest rated 2" in shown.output
    assert "Elo" in shown.output


def explicit_teams(corpus, vocab, twins_checked: list[int]) -> list[tuple[list[set], int, int]]:
    """Every position of ``corpus`` replayed: each candidate's team as a set of feature
    numbers (the pass last), the index of the move played and the move number;
    computed move by move with ``candidate_teams``, independently of how a fit stores them;
    a twinned pattern's twin checked against the distance to the previous move, computed
    here (``twins_checked``: how many candidates far, and near)."""
    from shapemill.go.reading import legal_moves, reading_scratch
    from shapemill.go.rings import far_rings, geometry
    from shapemill.go.rules import play, to_point
    from shapemill.patterns.candidates import PASS_GROUP, candidate_teams
    from shapemill.patterns.features import N_FEATURES

    positions = []
    for g in range(len(corpus)):
        b, m = corpus.start_position(g)
        size = int(corpus.board_size[g])
        geo = geometry(size)
        previous = 0  # the previous move's point: none at the start (0, the pass's)
        for n, move in enumerate(corpus.game_moves(g)):
            color = 1 if n % 2 == 0 else 2
            points = legal_moves(b, m, color)
            team = np.zeros((len(points), N_FEATURES + 1), dtype=np.int32)
            candidate_teams(
                b, m, color, points, geo.pad, geo.delta, geo.max_ring, vocab.lookup, far_rings(size),
                vocab.level_index, vocab.twin, reading_scratch(b, m), np.empty(geo.stride**2, dtype=np.int8),
                np.zeros((len(points), N_FEATURES), dtype=np.int32), team,
            )
            # a twinned pattern's near twin exactly when the previous move is 2 to 4 away,
            # |dx| + |dy| + max(|dx|, |dy|)
            for p, feature in zip(points.tolist(), team[:, 0].tolist()):
                if feature >= 0:
                    dy, dx = (abs(a - z) for a, z in zip(divmod(p, size + 2), divmod(previous, size + 2)))
                    near = previous > 0 and 2 <= dx + dy + max(dx, dy) <= 4
                    is_twin = feature >= len(vocab.pattern_ids)
                    if is_twin or vocab.twin[feature] >= 0:
                        assert is_twin == near, (n, p, previous)
                        twins_checked[is_twin] += 1
            previous = to_point(int(move), size)
            teams = [set(row.tolist()) - {-1} for row in team] + [{int(np.flatnonzero(vocab.group == PASS_GROUP)[0])}]
            chosen = int(np.flatnonzero(points == to_point(int(move), size))[0])
            positions.append((teams, chosen, n))
            play(b, m, color, to_point(int(move), size))
    return positions


def test_built_competitions_hold_each_candidates_team_whatever_the_threads(tmp_path):
    from shapemill.datasets.corpus import load_corpus
    from shapemill.miner.positions import build_teams, sample_mask
    from shapemill.patterns.candidates import Vocabulary

    games, patterns, _ = rated(tmp_path)
    corpus = load_corpus(games, split="all")
    vocab = Vocabulary.from_patterns(read_table(patterns, "patterns")[0], near_played=3)  # twins for this small corpus
    teams = build_teams(corpus, vocab, sample_mask(corpus, None), workers=1)
    again = build_teams(corpus, vocab, sample_mask(corpus, None), workers=2)
    for name in ("pos_start", "team", "combos", "chosen", "move_number"):
        assert np.array_equal(getattr(teams, name), getattr(again, name)), name
    assert teams.n_positions == 30 and teams.none == vocab.size
    twins_checked = [0, 0]
    for j, (expected, chosen, n) in enumerate(explicit_teams(corpus, vocab, twins_checked)):
        lo = teams.pos_start[j]
        assert teams.pos_start[j + 1] - lo == len(expected) and teams.move_number[j] == n
        assert teams.chosen[j] == chosen
        pattern, combo = teams.candidates(slice(lo, teams.pos_start[j + 1]))
        built = [{int(p), *teams.combination_features(k).tolist()} - {teams.none} for p, k in zip(pattern, combo)]
        assert built == expected
    assert min(twins_checked) > 0  # twinned patterns met both far from the previous move and near it


def test_a_near_pattern_row_gives_its_pattern_a_twin_after_the_patterns_and_one_without_its_pattern_is_refused():
    from shapemill.patterns.candidates import NEAR_GROUP, PASS_GROUP, PATTERN_GROUP, Vocabulary

    # patterns 7, 9 and 4 in the rows' order (numbers 0, 1, 2); twins numbered after them in the
    # patterns' order: 9's from its near row, 7's from the flag; then the pass
    twinned = np.array([True, False, False])
    vocab = Vocabulary.from_rows([PATTERN_GROUP, PATTERN_GROUP, NEAR_GROUP, PATTERN_GROUP, PASS_GROUP],
                                 [7, 9, 9, 4, 1], [3, 4, 4, 3, 0], twinned)
    assert vocab.twin.tolist() == [3, 4, -1] and vocab.pass_feature == 5
    assert twinned.tolist() == [True, False, False]  # the caller's flags are left as they were
    with pytest.raises(ValueError, match="no row of its pattern"):
        Vocabulary.from_rows([PATTERN_GROUP, NEAR_GROUP], [7, 8], [3, 3])


def test_fit_objective_is_the_log_posterior_of_the_explicit_teams(tmp_path):
    from shapemill.datasets.corpus import load_corpus
    from shapemill.miner.positions import build_teams, sample_mask
    from shapemill.patterns.candidates import Vocabulary

    games, patterns, _ = rated(tmp_path)
    corpus = load_corpus(games, split="all")
    vocab = Vocabulary.from_patterns(read_table(patterns, "patterns")[0], near_played=3)
    result = fit(build_teams(corpus, vocab, sample_mask(corpus, None), workers=2), max_iter=4, tol=0.0, workers=2)
    log_gamma = np.log(result.gamma)
    ll = 0.0
    for teams, chosen, _ in explicit_teams(corpus, vocab, [0, 0]):
        strength = np.array([np.exp(sum(log_gamma[f] for f in team)) for team in teams])
        ll += np.log(strength[chosen] / strength.sum())
    posterior = (ll + np.sum(log_gamma - 2 * np.log1p(result.gamma))) / 30
    assert len(result.objective) == 4 and abs(result.objective[-1] - posterior) < 1e-6


def test_max_memory_samples_fewer_positions_for_a_smaller_budget(tmp_path):
    from shapemill.datasets.corpus import load_corpus
    from shapemill.miner.positions import fit_memory, positions_within

    games, patterns, _ = rated(tmp_path)
    corpus = load_corpus(games, split="all")
    full = fit_memory(corpus, corpus.n_positions, 1000)
    small, large = (positions_within(corpus, budget, 1000) for budget in (0.6 * full, 0.9 * full))
    assert 0 < small < large < corpus.n_positions == positions_within(corpus, full, 1000)
    assert fit_memory(corpus, small, 1000) <= 0.6 * full < fit_memory(corpus, small + 1, 1000)
    assert positions_within(corpus, full, 1000, most=7) == 7
    ratings = str(tmp_path / "m.parquet")
    out = CliRunner().invoke(main, ["rate", *games, "--patterns", patterns, "-o", ratings, "--split", "all",
                                    "--max-iter", "2", "--max-memory", "1000"])
    assert out.exit_code == 0, out.output
    assert "--max-memory 1000 GB: 30 of 30 positions" in out.output
    assert read_table(ratings, "ratings")[1]["params"]["max_memory_gb"] == 1000


def test_export_mm_rebuilds_the_positions_of_a_fit_on_the_first_games_and_a_sample(tmp_path):
    import io

    from shapemill.datasets.corpus import load_corpus
    from shapemill.miner.export import write_mm
    from shapemill.miner.positions import build_teams, sample_mask
    from shapemill.patterns.candidates import ratings_model

    games, patterns, _ = rated(tmp_path)
    run = CliRunner().invoke
    ratings, mm = str(tmp_path / "limited.parquet"), str(tmp_path / "limited.mm")
    out = run(main, ["rate", *games, "--patterns", patterns, "-o", ratings, "--split", "all", "--max-iter", "2",
                     "--limit-games", "2", "--max-positions", "13", "--seed", "5"])
    assert out.exit_code == 0, out.output
    params = read_table(ratings, "ratings")[1]["params"]
    assert params["limit_games"] == 2 and params["positions"] == 13
    assert run(main, ["export", ratings, "--format", "mm", "-o", mm]).exit_code == 0
    corpus = load_corpus(games, split="all", limit=2)
    vocab = ratings_model(read_table(ratings, "ratings")[0]).vocab
    fitted = io.StringIO()
    write_mm(build_teams(corpus, vocab, sample_mask(corpus, 13, 5)), vocab.group, fitted)
    with open(mm) as written:
        assert written.read() == fitted.getvalue() and fitted.getvalue().count("#\n") == 13


def test_a_packed_candidate_keeps_its_pattern_and_combination_up_to_the_widest():
    none = 5_630_297  # the bundled fit's vocabulary: 23 bits of pattern, 25 of combination
    widest = (1 << 25) - 1
    pattern = np.array([0, none, 1, none - 1, 65_535, 65_536])
    combo = np.array([widest, 0, 1 << 24, 12_345, widest - 1, 3])
    tactical = np.array([[none - 300, none]], np.int32)  # a combination row: feature numbers
    teams = Teams.from_candidates(np.array([0, 6]), pattern, combo, tactical, np.zeros(1), np.zeros(1), none)
    assert teams.team.dtype == np.uint16 and teams.team.nbytes == 6 * 6
    got_pattern, got_combo = teams.candidates()
    assert got_pattern.tolist() == pattern.tolist() and got_combo.tolist() == combo.tolist()
    assert teams.candidates(np.array([3, 0]))[1].tolist() == [12_345, widest]
    assert teams.combos.dtype == np.uint16 and teams.combination_features().tolist() == tactical.tolist()
    wide = np.array([[none - 70_000, none]], np.int32)  # tactical features past uint16 offsets: int32
    teams = Teams.from_candidates(np.array([0, 6]), pattern, combo, wide, np.zeros(1), np.zeros(1), none)
    assert teams.combos.dtype == np.int32 and teams.combination_features().tolist() == wide.tolist()
    with pytest.raises(ValueError):  # more combinations than 25 bits number
        Teams.from_candidates(np.array([0]), pattern[:0], combo[:0], np.full((widest + 2, 1), none, np.int32),
                              np.zeros(0), np.zeros(0), none)
