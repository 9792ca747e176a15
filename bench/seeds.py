"""The seeds to the letter: each item of issue 48's checklist, the seed line it comes from,
the option that computes it as written, and whether its hand-worked example agrees.

    python bench/seeds.py          # a table
    python bench/seeds.py --json   # one JSON object

"Agrees" is computed now, not written down: the item's value worked by hand in
``tests/seed_oracles.py`` (``HAND``, the oracle written from the seed's text alone) must
equal it, and the tests that hold the package's option to that oracle (run here with
pytest, one run for all items) must pass. An item without a hand value counts its tests
alone. NRPA, PN² and PDS are listed with why they are not built.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import seed_oracles  # noqa: E402  (tests/, plain Python: imports nothing from the package)

F = "tests/test_seed_formulas.py::"
O = "tests/test_seed_oracles.py::"
HAND = O + "test_each_oracle_gives_its_value_worked_by_hand"

#: (item, the seed line, the option that computes it as written, HAND keys, test node ids).
ITEMS = [
    ("UCB1", "Algorithm 3 (MoGo 2008): p + sqrt(2 log N / n), p = Wins/Sims of the move",
     "--bandit ucb1 (--bandit-stats own)", ["ucb1"],
     [F + "test_algorithm_3_bandits_read_the_moves_own_wins_and_sims", F + "test_ucb1_by_hand"]),
    ("UCB-Tuned.1", "Algorithm 3: p + sqrt(V log N / n), V = max(0.001, p (1 - p))",
     "--bandit tuned1", ["tuned1", "tuned-floor"],
     [F + "test_algorithm_3_bandits_read_the_moves_own_wins_and_sims",
      F + "test_tuned_variance_is_floored_at_a_thousandth"]),
    ("UCB-Tuned.2", "Algorithm 3: p + sqrt(V log N / n + log N / n)", "--bandit tuned2", ["tuned2"],
     [F + "test_algorithm_3_bandits_read_the_moves_own_wins_and_sims"]),
    ("UCT's K (course 004)", "UCT: p + K sqrt(log N / n), K = 0.4", "--bandit uct --c-ucb 0.4", ["uct-k"],
     [F + "test_algorithm_3_bandits_read_the_moves_own_wins_and_sims"]),
    ("Eq. 1", "MoGo 2008: alpha(d) p + (1 - alpha(d)) p_amaf, alpha(d) depending on Sims(s, d)",
     "--bandit amaf --rave-schedule eq1 (Silver's: --rave-schedule silver, the default)", ["eq1", "silver"],
     [F + "test_rave_schedule_eq1_is_mogo_2008s_alpha_of_sims_alone",
      F + "test_amaf_bandit_is_eq1_with_silvers_weight"]),
    ("Eq. 3", "MoGo 2008: alpha p + beta p_amaf + gamma H + delta P(d, n), alpha + beta + gamma = 1, "
     "gamma(0) = 1, beta >> alpha early, alpha -> 1", "--prior-mode mogo", ["eq3"],
     [F + "test_eq3_constraints", F + "test_mogo_prior_mode_is_eq3",
      F + "test_eq3_delta_depends_on_the_nodes_simulations_only_and_goes_to_zero",
      F + "test_eq3_prior_goes_to_a_constant_over_the_siblings"]),
    ("progressive bias", "Chaslot et al. 2007: H(d) / (1 + n(d)) added to the score",
     "--prior-mode progressive-bias", ["progressive-bias"], [F + "test_progressive_bias_is_h_over_one_plus_n"]),
    ("progressive widening", "only the K(n) best moves by prior are searchable at the n-th visit",
     "SearchConfig(widen=2) (the Python API; no gtp flag)", ["progressive-widening"],
     [O + "test_progressive_widening_searches_only_the_k_best_by_prior"]),
    ("PUCT", "the AlphaGo lecture: Q + P(s, a) / (1 + N(s, a)); published: Q + c P sqrt(N(s)) / (1 + N(s, a))",
     "--prior-mode puct / puct-c", ["puct", "puct-c"],
     [F + "test_puct_is_the_lectures_q_plus_p_over_one_plus_n", F + "test_puct_c_is_the_published_form",
      F + "test_puct_by_hand"]),
    ("MoGo's expert values", "section 4: third line +6.67 wins, first line +6.67 losses, peep-connect, hane, "
     "connect +5 wins, wall +3.33 wins, bad kogeima +2.5 losses, empty triangle +5 losses", "--expert mogo", [],
     [O + "test_expert_mogo_gives_section_4s_values_to_figure_1s_shapes",
      "tests/test_expert.py::test_the_eight_shapes_give_the_papers_virtual_amaf_results"]),
    ("Figure 1's shapes", "caption: hane with a lone white stone; bad kogeima, bad tobi with no black stone "
     "around the cross; kosumi, kogeima with no white stone between; first line alone: 5 points empty",
     "--expert mogo", ["figure1"],
     [O + "test_figure1_shapes_equal_the_captions_on_random_positions", O + "test_figure1_caption_conditions"]),
    ("Algorithm 5's playout order", "save atari, nakade, fill-board, patterns, capture, random",
     "--playout-policy mogo", [],
     ["tests/test_playout_mogo.py::test_saving_a_string_in_atari_comes_first",
      "tests/test_playout_mogo.py::test_the_nakade_vital_point_of_the_opponents_space_comes_before_fill_board",
      "tests/test_playout_mogo.py::test_fill_board_comes_before_the_patterns_in_the_seeds_order_only",
      "tests/test_playout_mogo.py::test_patterns_come_before_a_capture_far_from_the_last_move",
      "tests/test_playout_mogo.py::test_otherwise_a_random_move_that_fills_no_own_eye"]),
    ("fill-board", "a random point whose 3x3 block is empty (a few tries)", "--playout-policy mogo",
     ["fill-board"], [O + "test_fill_board_draws_points_whose_3x3_block_is_empty"]),
    ("PPA (course)", "course 004: P2[m] += alpha; z = sum exp(P2[m']) after the increment; P2[m'] -= alpha/z "
     "exp(P2[m']); position advanced move by move; P = P2; K = 0.4, alpha = 1",
     "--playout-policy ppa --bandit uct --c-ucb 0.4 (alpha 1)", ["ppa-course", "ppa-course-alpha1"],
     [O + "test_ppa_course_on_the_small_position", O + "test_a_whole_ppa_playout_adapts_as_the_oracle"]),
    ("PPA (paper)", "Cazenave 2015: z and the probabilities from the policy before the update",
     "--playout-policy ppa-paper", ["ppa-paper"], [O + "test_ppa_paper_form_on_the_small_position"]),
    ("adapt_simple", "course 004: +1 new, +2 under 10, +4 under 100, +1 beyond", "--playout-policy ppa-simple",
     ["adapt-simple"], [O + "test_adapt_simple_by_hand", O + "test_a_whole_ppa_playout_adapts_as_the_oracle"]),
    ("NMCS", "Cazenave 2009: argmax over all moves of the level below; the best sequence memorised and followed",
     "engine.nmcs.nmcs (one colour's moves in a row: OwnMoves); two-player variant: --playout-policy nested1/2",
     ["nmcs"], [O + "test_nmcs_follows_the_memorised_sequence_as_the_oracle",
                O + "test_nmcs_of_own_moves_finds_the_best_two_moves_in_a_row"]),
]

#: The searches the checklist names that are not built, and why.
ABSENT = [
    ("NRPA", "not built: Rosin 2011's nested rollout policy adaptation is a single-agent search; in Go the "
     "single-agent problem is narrow (one colour's moves in a row, served by NMCS), and its policy learning "
     "in playouts is what PPA (built) does"),
    ("PN²", "not built: two-level proof-number search saves PNS's memory; df-pn (engine/solve/dfpn.py) does so "
     "with a table and is what the design asks"),
    ("PDS", "not built: Nagai's proof-disproof search is df-pn's predecessor (df-pn, Nagai 2002, is built)"),
]


def run_tests(nodes: list[str]) -> dict[str, str]:
    """Each test of ``nodes`` (parametrized cases folded into their function) -> passed / failed."""
    with tempfile.TemporaryDirectory() as tmp:
        xml = Path(tmp) / "seeds.xml"
        subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={xml}", *nodes],
                       cwd=ROOT, capture_output=True, text=True)
        outcome: dict[str, str] = {}
        for case in ET.parse(xml).getroot().iter("testcase"):
            path = case.get("classname", "").replace(".", "/") + ".py"
            name = f"{path}::{case.get('name', '').split('[')[0]}"
            failed = any(child.tag in ("failure", "error", "skipped") for child in case)
            outcome[name] = "failed" if failed or outcome.get(name) == "failed" else "passed"
        return outcome


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    nodes = sorted({n for item in ITEMS for n in item[4]} | {HAND})
    outcome = run_tests(nodes)
    rows = []
    for name, line, option, hand, tests in ITEMS:
        hand_ok = all(seed_oracles.hand_agrees(k) for k in hand)
        tests_ok = all(outcome.get(t.split("[")[0]) == "passed" for t in tests)
        rows.append({"item": name, "seed": line, "option": option, "hand": hand,
                     "hand_agrees": hand_ok, "tests_pass": tests_ok, "agrees": hand_ok and tests_ok})
    absent = [{"item": name, "why": why} for name, why in ABSENT]
    if args.json:
        print(json.dumps({"items": rows, "absent": absent}, indent=1))
        return
    for r in rows:
        print(f"{r['item']:<28} {'agrees' if r['agrees'] else 'DISAGREES':<10} {r['option']}")
        print(f"{'':<28} seed: {r['seed']}")
    for a in absent:
        print(f"{a['item']:<28} {'absent':<10} {a['why']}")
    print(f"{sum(r['agrees'] for r in rows)} of {len(rows)} items agree with their hand-worked examples")


if __name__ == "__main__":
    main()
