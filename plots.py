"""Pictures of reports (the ``plot`` extra: matplotlib), drawn off screen and written atomically."""

from __future__ import annotations

from .errors import ShapemillError
from .files import atomic_path, output_errors

#: Resolution of the PNG files.
DPI = 120


def pyplot():
    """matplotlib's pyplot on its file-only backend; a one-line error when it is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ShapemillError("--plot needs matplotlib: pip install 'shapemill[plot]'") from None
    return plt


def save_png(fig, path: str) -> None:
    """Write ``fig`` to ``path`` as a PNG (atomically: an earlier picture survives a failed write)."""
    try:
        with output_errors(path), atomic_path(path) as tmp:
            fig.savefig(tmp, dpi=DPI, format="png")
    finally:
        pyplot().close(fig)
