"""shapemill: mine rated shape patterns and tactical features from Go game archives.

Stages, each a command and a Parquet table: ``scan`` (SGF archives -> games),
``mine`` (games -> patterns), ``rate`` (-> ratings), ``evaluate`` and the engine.
Heavy modules (numba, pyarrow) are imported by the stage that needs them, so
``import shapemill`` stays cheap.
"""

__version__ = "0.1.0"


def _numba_cache() -> None:
    """Point numba's cache at a per-user folder when this package's folder cannot be
    written (a root-owned install run by another user), before numba is imported:
    numba caches beside the source, and without a writable place it refuses to
    compile ("no locator available"). ``NUMBA_CACHE_DIR`` set by the user wins."""
    import os
    import tempfile

    here = os.path.dirname(os.path.abspath(__file__))
    if "NUMBA_CACHE_DIR" in os.environ or os.access(here, os.W_OK):
        return
    home_cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    for folder in (os.path.join(home_cache, "shapemill", "numba"),
                   os.path.join(tempfile.gettempdir(), f"shapemill-numba-{os.getuid()}")):
        try:
            os.makedirs(folder, mode=0o700, exist_ok=True)
            if os.stat(folder).st_uid == os.getuid() and os.access(folder, os.W_OK):
                os.environ["NUMBA_CACHE_DIR"] = folder
                return
        except OSError:
            continue


_numba_cache()
