"""Benchmark of model variants: what a feature interaction would add to move prediction.

    python bench/model_variants.py --games games.parquet --positions 300000
    python bench/model_variants.py --games G --positions 1000000 --variants base,near2-4+dists

Builds the teams of ``--positions`` train positions (seeded) and of the first
``--test-games`` test games once, with the patterns of ``--patterns`` (the bundled table
by default), then for each variant fits the gammas by MM and ranks the moves played:
top-1 and top-5 on the test games, their mean log-likelihood, top-1 on the train
positions (how much the variant overfits) and the fit's sweeps and seconds. ``base`` is
the model without near twins, the same-run reference; it has the pair of distances
only if the patterns table counted it (mined at d4b2dfc or later; on a table mined
before, ``near2-4+dists`` is the model ``rate`` fits since). A variant adds features to
the teams without touching the miner, so that an idea is measured before it is built:

- ``near{lo}-{hi}``: every pattern gets a second gamma, used when the previous move lies
  at a gridcular distance ``lo`` to ``hi`` (2 is next to it, 3 diagonal, 4 a jump or a
  knight's move): a shape as an answer rather than anywhere;
- ``own{lo}-{hi}``: the same for the player's own previous move (the move before last),
  applied after ``near`` when both are named, so that a pattern near both moves keeps
  the ``near`` gamma;
- a *key* of tactical columns, one more gamma for each value the key takes in the train
  positions (values met only in the test games get none): ``dists`` (the distances to the
  last two moves together), ``tactics`` (every tactical level but the 3x3 and the
  distances), ``all_but_nbr`` (every level but the 3x3), ``last_x_tactics`` (the levels
  with the previous move's distance, without the 3x3, the border and the move before's);
- ``fbt{k}`` (last): the variant's MM fit, then the factorization model of
  ``miner/latent.py`` from its gammas, ``k`` numbers a latent vector: a pair term
  for each two features of a candidate (``--fbt-lambda``, ``--fbt-gamma-lambda``,
  ``--fbt-iterations``; ``--fbt-bands`` adds a context feature per move-number band);
- ``A+B``: both, in that order.

Measurements go to bench/RESULTS.md ("Feature interactions").
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

from shapemill.miner.evaluate import Ranked, rank_moves, ranked_report
from shapemill.miner.latent import fit_factors, flatten, rank_factors
from shapemill.miner.mine_command import command_corpus
from shapemill.miner.positions import Teams, build_teams, sample_mask
from shapemill.miner.rate import fit
from shapemill.miner.rate_command import VOCABULARY_COLUMNS
from shapemill.patterns.candidates import Vocabulary
from shapemill.patterns.defaults import PATTERNS, default_table
from shapemill.patterns.features.table import FEATURES

COLUMN = {name: i for i, name in enumerate(FEATURES)}
PASS_COLUMN = len(FEATURES)


def _columns(*left_out: str) -> list[int]:
    """The combination columns (the tactical features and the pass) but ``left_out``."""
    return [c for c in range(PASS_COLUMN + 1) if c not in {COLUMN[name] for name in left_out}]


#: The keys of tactical columns a variant can add a gamma for.
KEYS: dict[str, list[int]] = {
    "dists": [COLUMN["last_dist"], COLUMN["last2_dist"]],
    "tactics": _columns("nbr3x3", "last_dist", "last2_dist"),
    "all_but_nbr": _columns("nbr3x3"),
    "last_x_tactics": _columns("nbr3x3", "last2_dist", "border"),
}


def renumbered(teams: Teams, pattern: np.ndarray, combo: np.ndarray, rows: np.ndarray, added: int) -> Teams:
    """``teams`` with ``added`` features numbered after its own (from ``teams.none``), each
    candidate's pattern feature ``pattern`` and combination ``combo``, and the combinations'
    feature rows ``rows`` (``teams.none`` where a feature is absent, moved past the added
    ones)."""
    none = teams.none + added
    rows = np.where(rows == teams.none, none, rows)
    pattern = np.where(pattern == teams.none, none, pattern)
    return Teams.from_candidates(teams.pos_start, pattern, combo, rows, teams.chosen, teams.move_number, none)


def with_near_patterns(teams: Teams, level: np.ndarray, lo: int, hi: int, column: str = "last_dist") -> Teams:
    """Each pattern feature ``p`` of a candidate whose previous move (``column``
    ``last2_dist``: the move before it, the player's own) lies at gridcular distance
    ``lo``..``hi`` becomes feature ``none + p`` (``level``: each feature's level); a pattern
    an earlier variant moved stays."""
    rows = teams.combination_features()
    last = rows[:, COLUMN[column]]
    distance = np.where(last < len(level), level[np.minimum(last, len(level) - 1)], 0)  # 0: none (a moved none)
    near = (distance >= lo) & (distance <= hi)
    pattern, combo = teams.candidates()
    moved = near[combo] & (pattern < teams.first_tactical)
    return renumbered(teams, np.where(moved, teams.none + pattern, pattern), combo, rows, teams.first_tactical)


def with_key(teams: Teams, columns: list[int], values: dict, grow: bool) -> Teams:
    """One more combination column: a feature for each value of the ``columns`` of a
    combination, numbered by ``values`` (which ``grow`` extends; else a value not in it
    gets none)."""
    rows = teams.combination_features()
    key = np.array([values.setdefault(v, len(values)) if grow else values.get(v, -1)
                    for v in map(tuple, rows[:, columns])], dtype=np.int64)
    column = np.where(key >= 0, teams.none + key, teams.none)
    pattern, combo = teams.candidates()
    return renumbered(teams, pattern, combo, np.concatenate([rows, column[:, None]], axis=1), len(values))


def variant(name: str, level: np.ndarray, train: Teams, test: Teams) -> tuple[Teams, Teams, int]:
    """The train and test teams of variant ``name`` (see the module docstring; ``level``:
    each feature's level) and the number of key values it added."""
    values: dict = {}
    for part in name.split("+"):
        if part == "base" or part.startswith("fbt"):
            continue
        if part.startswith(("near", "own")):
            prefix, column = ("near", "last_dist") if part.startswith("near") else ("own", "last2_dist")
            lo, hi = map(int, part[len(prefix):].split("-"))
            train = with_near_patterns(train, level, lo, hi, column)
            test = with_near_patterns(test, level, lo, hi, column)
        else:
            values = {}
            train = with_key(train, KEYS[part], values, grow=True)
            test = with_key(test, KEYS[part], values, grow=False)
    return train, test, len(values)


def sample_arguments(description: str) -> argparse.ArgumentParser:
    """A bench's parser with the arguments of ``train_and_test``: the games, the positions
    fitted, the test games ranked, the seed and the threads."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--games", required=True, help="a games table (shapemill scan of the Tygem archives)")
    ap.add_argument("--positions", type=int, default=300_000, help="train positions fitted")
    ap.add_argument("--test-games", type=int, default=100, help="the first test games ranked")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-j", "--workers", type=int, default=2)
    return ap


def train_and_test(games: str, vocab: Vocabulary, positions: int, test_games: int, seed: int, workers: int,
                   name: str) -> tuple[Teams, Teams]:
    """The teams of ``positions`` train positions of the games table ``games`` (seeded)
    and of every position of its first ``test_games`` test games, said in one line
    (``name``: the vocabulary's table)."""
    start = time.perf_counter()
    train_games = command_corpus([games], "train", None)
    train = build_teams(train_games, vocab, sample_mask(train_games, positions, seed), workers=workers)
    tested = command_corpus([games], "test", test_games)
    test = build_teams(tested, vocab, sample_mask(tested, None), workers=workers)
    print(f"{train.n_positions:,} train positions, {test.n_positions:,} test positions of {len(tested)} games, "
          f"{vocab.size:,} features ({name}); teams built in {time.perf_counter() - start:.0f} s")
    return train, test


def main() -> None:
    ap = sample_arguments(__doc__.split("\n")[0])
    ap.add_argument("--patterns", default=default_table(PATTERNS), help="the patterns table (the bundled one)")
    ap.add_argument("--variants", default="base,dists,near2-4,near2-4+dists", help="comma-separated")
    ap.add_argument("--fbt-lambda", type=float, default=5.0, help="weight of the latent vectors' squares")
    ap.add_argument("--fbt-gamma-lambda", type=float, default=1.0, help="weight of the log-gammas' squared moves")
    ap.add_argument("--fbt-iterations", type=int, default=100, help="L-BFGS iterations")
    ap.add_argument("--fbt-bands", default="", help="move numbers starting a band, past the first (20,60,120,200)")
    args = ap.parse_args()
    bands = [int(x) for x in args.fbt_bands.split(",")] if args.fbt_bands else None
    vocab = Vocabulary.from_patterns(pq.read_table(args.patterns, columns=VOCABULARY_COLUMNS), near_played=None)
    level = np.append(vocab.value.astype(np.int64), 0)
    train, test = train_and_test(args.games, vocab, args.positions, args.test_games, args.seed, args.workers,
                                 Path(args.patterns).name)
    print("| variant | added | top-1 | top-5 | log-lik | train top-1 | sweeps | fit s |")
    print("|---|---|---|---|---|---|---|---|")
    for name in args.variants.split(","):
        start = time.perf_counter()
        fitted, ranked, values = variant(name, level, train, test)
        model = fit(fitted, max_iter=60, tol=1e-5, workers=args.workers)
        sweeps = len(model.objective)
        factors = [int(part[3:]) for part in name.split("+") if part.startswith("fbt")]
        if factors:
            flat = flatten(fitted, bands)
            latent = fit_factors(flat, model.gamma, factors[0], args.fbt_lambda, args.fbt_gamma_lambda,
                                 args.fbt_iterations, args.seed, args.workers)
            flat_test = flatten(ranked, bands)
            here = ranked_report(Ranked(*rank_factors(flat_test, latent), flat_test.move_number))
            seen = ranked_report(Ranked(*rank_factors(flat, latent), flat.move_number))
            sweeps = f"{sweeps} + {latent.iterations}"
        else:
            here = ranked_report(rank_moves(ranked, model.gamma))
            seen = ranked_report(rank_moves(fitted, model.gamma))
        added = fitted.none - train.none
        print(f"| {name} | {added:,}{f' ({values:,} key values)' if values else ''} | {here['top1']:.2%} | "
              f"{here['top5']:.2%} | {here['mean_log_likelihood']:.4f} | {seen['top1']:.2%} | "
              f"{sweeps} | {time.perf_counter() - start:.0f} |", flush=True)


if __name__ == "__main__":
    main()
