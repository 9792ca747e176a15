"""The eight symmetries of the square board (no numba, so that a search can use them
without loading it)."""

#: Symmetries of the square as (dx, dy) -> (a*dx + b*dy, c*dx + e*dy).
SYMMETRIES = (
    (1, 0, 0, 1), (0, -1, 1, 0), (-1, 0, 0, -1), (0, 1, -1, 0),
    (-1, 0, 0, 1), (1, 0, 0, -1), (0, 1, 1, 0), (0, -1, -1, 0),
)
