"""Ratings: MM against an independent Luce solver, monotone fit, the commands end to end."""

import json

import numpy as np
import pytest
from click.testing import CliRunner

from shapemill.cli import main
from shapemill.miner.predict import evaluate_teams
from shapemill.miner.rate import fit
from shapemill.miner.teams import Teams
from shapemill.patterns.tables import read_table

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
    teams = Teams(
        pos_start=np.array(pos, dtype=np.int64),
        cand_start=np.arange(len(cands) + 1, dtype=np.int64),
        feats=np.array(cands, dtype=np.int32),
        chosen=np.array(chosen, dtype=np.int64),
        move_number=np.zeros(n_positions, dtype=np.int64),
    )
    return teams, data


def test_mm_agrees_with_an_independent_luce_solver():
    teams, data = single_feature_teams(n_items=8, n_positions=600, seed=1)
    result = fit(teams, np.zeros(8, dtype=np.int32), max_iter=20000, tol=0.0, prior=False)
    ours = np.log(result.gamma)
    ours -= ours.mean()
    theirs = choix.ilsr_top1(8, data, alpha=0.0, tol=1e-12)
    theirs -= theirs.mean()
    assert np.allclose(np.exp(ours), np.exp(theirs), rtol=1e-6, atol=0)


def test_objective_never_decreases_and_an_unplayed_feature_stays_finite_and_low():
    teams, _ = single_feature_teams(n_items=6, n_positions=300, seed=2)
    # Feature 6 is a candidate of the first 50 positions and never chosen.
    pos, cand = teams.pos_start, teams.feats.tolist()
    feats, starts = [], [0]
    for j in range(teams.n_positions):
        feats.extend(cand[pos[j] : pos[j + 1]] + ([6] if j < 50 else []))
        starts.append(len(feats))
    teams = Teams(
        np.array(starts, dtype=np.int64), np.arange(len(feats) + 1, dtype=np.int64),
        np.array(feats, dtype=np.int32), teams.chosen, teams.move_number,
    )
    result = fit(teams, np.zeros(7, dtype=np.int32), max_iter=200, tol=0.0)
    assert all(b >= a - 1e-12 for a, b in zip(result.objective, result.objective[1:]))
    assert np.isfinite(result.gamma).all() and (result.gamma > 0).all()
    assert result.gamma[6] < 0.25 < np.median(result.gamma[:6])
    assert result.played[6] == 0 and result.seen[6] == 50
    assert (result.ci_low < result.gamma).all() and (result.gamma < result.ci_high).all()


def test_evaluation_ranks_the_played_move_with_ties_against_the_model():
    teams = Teams(
        pos_start=np.array([0, 3, 5]), cand_start=np.arange(6), feats=np.array([0, 1, 2, 1, 1], dtype=np.int32),
        chosen=np.array([0, 1]), move_number=np.array([0, 40]),
    )
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


def test_mine_rate_evaluate_end_to_end(tmp_path):
    for i, sgf in enumerate(SGFS):
        (tmp_path / f"{i}.sgf").write_bytes(sgf)
    games = [str(tmp_path / f"{i}.sgf") for i in range(3)]
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
    report = json.loads(out.output)
    assert report["positions"] == 30 and 0 < report["top10"] <= 1 and len(report["cumulative"]) == 30
    # Trained and tested on the same tiny games, the model must beat chance (1 in ~75).
    assert report["top5"] > 0.3


def rated(tmp_path) -> tuple[list[str], str, str]:
    """The SGFS mined and rated (3 sweeps): games, patterns table, ratings table."""
    for i, sgf in enumerate(SGFS):
        (tmp_path / f"{i}.sgf").write_bytes(sgf)
    games = [str(tmp_path / f"{i}.sgf") for i in range(3)]
    run = CliRunner().invoke
    patterns, ratings = str(tmp_path / "p.parquet"), str(tmp_path / "r.parquet")
    assert run(main, ["mine", *games, "-o", patterns, "--split", "all", "--min-count", "2", "-q"]).exit_code == 0
    assert run(main, ["rate", *games, "--patterns", patterns, "-o", ratings, "--split", "all", "--max-iter", "3"]).exit_code == 0
    return games, patterns, ratings


def test_ratings_become_the_engines_move_priors(tmp_path):
    from shapemill.engine import Board
    from shapemill.miner.prior import MovePrior

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
