"""The one declaration of the search settings (``engine/settings.py``) against what is built
from it: the options of ``gtp``, ``SearchConfig``, the kernel records and docs/search.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from shapemill.cli import main
from shapemill.engine.search.search import Budget
from shapemill.engine.search.selection import Selection
from shapemill.engine.search.walk import SearchSettings
from shapemill.engine.settings import SETTINGS, SearchConfig, check_value, settings_table

DOCS = Path(__file__).resolve().parents[1] / "docs" / "search.md"


def test_the_docs_table_is_the_declarations() -> None:
    text = DOCS.read_text(encoding="utf-8")
    table = re.search(r"<!-- settings table.*?-->\n(.*?)\n<!-- end of the settings table -->", text, re.S)
    assert table is not None and table.group(1) == settings_table()


def test_every_setting_is_a_field_of_search_config_with_its_default() -> None:
    fields = SearchConfig.__dataclass_fields__
    assert [s.name for s in SETTINGS] == [name for name in fields if name != "gammas"]
    config = SearchConfig()
    assert all(getattr(config, s.name) == s.default for s in SETTINGS)


def test_a_setting_that_feeds_a_kernel_record_names_one_of_its_fields() -> None:
    records = {"Selection": Selection, "SearchSettings": SearchSettings, "Budget": Budget}
    for s in SETTINGS:
        for target in s.feeds.split(", "):
            record, _, name = target.partition(".")
            if record in records:
                assert name in records[record]._fields, (s.name, target)


@pytest.mark.parametrize("s", [s for s in SETTINGS if s.option], ids=lambda s: s.name)
def test_gtp_takes_each_setting_by_its_one_name(s) -> None:
    help_text = CliRunner().invoke(main, ["gtp", "--help"], terminal_width=200).output
    assert s.flag in help_text
    if s.kind in (int, float):  # out of range: a usage error before any work, as the declaration says
        bad = s.high * 10 if s.high > 0 else -1
        result = CliRunner().invoke(main, ["gtp", s.flag, str(int(bad) if s.kind is int else bad)])
        assert result.exit_code == 2 and "not in the range" in result.output
        assert check_value(s, int(bad) if s.kind is int else bad) is not None


def test_values_read_as_text_are_checked_as_the_command_line_checks_them() -> None:
    by = {s.name: s for s in SETTINGS}
    assert check_value(by["playouts"], 0) == "playouts: 0 is not in the range 1<=x<=2147483647"
    assert check_value(by["playouts"], 1.5) is not None and check_value(by["playouts"], 800) is None
    assert check_value(by["bandit"], "ucb9") is not None and check_value(by["bandit"], "ucb1") is None
    assert check_value(by["rave_equiv"], 0.0) is not None  # its low end is open
    assert check_value(by["time_per_move"], None) is None and check_value(by["playouts"], None) is not None
