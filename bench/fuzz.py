"""The hostile fuzzers of ``tests/test_hostile_fuzz.py`` run long: ``--examples`` generated
GTP command lines, analysis queries and SGF fragments each, from a fresh seed (printed, so
that a failure can be replayed), where CI runs 150 each, derandomized. Prints one row per
fuzzer: examples, seconds, and whether every guarantee held; the reference in the same run
is CI's derandomized 150 examples.

    python bench/fuzz.py [--examples 5000] [--seed N]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent / "tests" / "test_hostile_fuzz.py"
FUZZERS = ("gtp", "analysis", "sgf")


def run(fuzzer: str, examples: int, seed: int | None) -> tuple[float, bool]:
    """Seconds and success of one fuzzer's run."""
    env = {**os.environ, "SHAPEMILL_FUZZ_EXAMPLES": str(examples)}
    if seed is not None:
        env["SHAPEMILL_FUZZ_SEED"] = str(seed)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", str(TESTS), "-k", fuzzer], env=env,
                          capture_output=True, text=True)
    if done.returncode != 0:
        print(done.stdout[-4000:], file=sys.stderr)
    return time.perf_counter() - start, done.returncode == 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=None, help="default: a fresh one, printed")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    print(f"seed {seed}")
    print("| fuzzer | examples | seconds | held | CI's 150 (derandomized) s |")
    print("|---|---:|---:|---|---:|")
    for fuzzer in FUZZERS:
        reference, _ = run(fuzzer, 150, None)
        seconds, held = run(fuzzer, args.examples, seed)
        print(f"| {fuzzer} | {args.examples:,} | {seconds:.0f} | {'yes' if held else 'NO'} | {reference:.0f} |")


if __name__ == "__main__":
    main()
