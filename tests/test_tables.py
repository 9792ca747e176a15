"""Table files: metadata round trip, kind checks, atomic writes with the usual mode."""

import os

import pyarrow as pa
import pytest
from shapemill.tables import TableError, read_table, table_metadata, write_table


def test_write_is_atomic_readable_by_others_and_kind_checked(tmp_path):
    path = tmp_path / "t.parquet"
    write_table(pa.table({"x": [1, 2]}), path, table_metadata("errors", params={"a": 1}))
    table, meta = read_table(path, "errors")  # no columns required of an errors table
    assert table["x"].to_pylist() == [1, 2] and meta["params"] == {"a": 1}
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask  # not mkstemp's private 0600
    assert os.listdir(tmp_path) == ["t.parquet"]  # no temporary file left behind
    with pytest.raises(TableError, match="t.parquet.*expected a 'ratings' table"):
        read_table(path, "ratings")
