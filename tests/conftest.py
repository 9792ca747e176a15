"""Shared test set-up: where the real game records are, and a marker for tests that need them.

Tests marked ``shared_data`` read ``../shared/data`` (beside the checkout) and are
skipped, with the reason, where it is absent.
"""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
TYGEM = SHARED_DATA / "tygem9d"


def pytest_configure(config: pytest.Config) -> None:
    from shapemill.compiling import lock_cache

    config.addinivalue_line("markers", "shared_data: needs ../shared/data beside the checkout")
    lock_cache()  # the workers (pytest-xdist) compile tests' kernels at once: numba's cache under a lock


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if TYGEM.is_dir():
        return
    skip = pytest.mark.skip(reason=f"no game records at {SHARED_DATA}")
    for item in items:
        if "shared_data" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The folder of the real game records (``tygem9d/``, ``wild/``)."""
    return SHARED_DATA


@pytest.fixture(scope="session")
def tygem_archives(shared_data: Path) -> list[Path]:
    """The Tygem 9-dan archives, one zip a month, in name order."""
    return sorted((shared_data / "tygem9d").glob("*.zip"))


@pytest.fixture
def plot_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ``plot`` extra as ``--plot``'s check finds it, for tests of what that option refuses
    after the check (an output over an input, an unwritable folder): an empty stand-in module
    where matplotlib is not installed (the test extra does not bring it), so the same refusal is
    tested on every install; nothing is drawn."""
    import importlib.util
    import sys
    import types

    if importlib.util.find_spec("matplotlib") is None:
        monkeypatch.setitem(sys.modules, "matplotlib", types.ModuleType("matplotlib"))


@pytest.fixture(scope="session")
def small_tables(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The three small 9x9 games of ``fixtures/hostile`` scanned, mined and rated (2 sweeps),
    quietly: the paths of the games, patterns and ratings tables. Shared: copy before writing
    beside them."""
    from click.testing import CliRunner
    from shapemill.cli import main

    games = sorted(str(p) for p in (Path(__file__).parent / "fixtures" / "hostile").glob("*.sgf"))
    folder = tmp_path_factory.mktemp("small_tables")
    paths = {kind: str(folder / f"{kind}.parquet") for kind in ("games", "patterns", "ratings")}
    for args in (
        ["scan", *games, "-o", paths["games"], "--size", "9", "-j", "1", "-q"],
        ["mine", paths["games"], "-o", paths["patterns"], "--split", "all", "--min-count", "2", "-j", "1", "-q"],
        ["rate", paths["games"], "--patterns", paths["patterns"], "-o", paths["ratings"], "--split", "all",
         "--max-iter", "2", "-j", "1", "-q"],
    ):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, result.output
    return paths
