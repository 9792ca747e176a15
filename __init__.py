"""shapemill: mine rated shape patterns and tactical features from Go game archives.

Stages, each a command and a Parquet table: ``scan`` (SGF archives -> games),
``mine`` (games -> patterns), ``rate`` (-> ratings), ``evaluate`` and the engine.
Heavy modules (numba, pyarrow) are imported by the stage that needs them, so
``import shapemill`` stays cheap.
"""

__version__ = "0.1.0"
