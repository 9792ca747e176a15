"""The latent vectors' settings (``patterns.latent``, ``miner.latent``): the measured ones.

bench/RESULTS.md, "Latent vectors over the bundled table's gammas" (``bench/latent_on_table.py``).
Constants only, so that the command line reads them without loading numba.
"""

from __future__ import annotations

#: Numbers a vector: Xiao and Müller's choice, and the bench's.
VECTOR_K = 8
#: Weight of the vectors' squares: 5 overfits a sample of 300,000 positions, 50 and 200 rank
#: alike and 50 gives the better likelihood.
VECTOR_LAMBDA = 50.0
#: The patterns and near twins played this often get a vector (every tactical level gets
#: one): 200 and 1,000 rank alike at lambda 50; a vector for every pattern overfits.
VECTOR_PLAYED = 200
#: Train positions fitted: an L-BFGS iteration over 300,000 takes about 16 s on 2 threads.
VECTOR_POSITIONS = 300_000
#: L-BFGS iterations (the bench's 60; the fit is stopped there, not converged).
VECTOR_ITERATIONS = 60
#: The move numbers starting the move-number bands past the first (moves 1-19, 20-59, ...).
BAND_STARTS = (20, 60, 120, 200)
