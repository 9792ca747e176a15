"""Table files: metadata round trip, kind checks, atomic writes with the usual mode."""

import os

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
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



def test_floats_are_written_byte_stream_split_and_read_back_bit_for_bit(tmp_path):
    rng = np.random.default_rng(7)
    x = np.concatenate([rng.standard_normal(1000) * 1e3, [0.0, -0.0, np.inf, 1e-300, np.nan]])
    moves = pa.array([[3, 1, 4]] * len(x), pa.list_(pa.int16()))  # a games table's list column beside them
    path = tmp_path / "f.parquet"
    write_table(pa.table({"x": x, "y": x.astype(np.float32), "moves": moves}), path, table_metadata("errors"))
    back = pq.read_table(path)  # pyarrow's own reader
    assert back["x"].to_numpy().view(np.uint64).tolist() == x.view(np.uint64).tolist()
    assert back["y"].to_numpy().view(np.uint32).tolist() == x.astype(np.float32).view(np.uint32).tolist()
    assert back["moves"].to_pylist() == moves.to_pylist()
    columns = pq.ParquetFile(path).metadata.row_group(0)
    encodings = {columns.column(i).path_in_schema: columns.column(i).encodings for i in range(3)}
    assert "BYTE_STREAM_SPLIT" in encodings["x"] and "BYTE_STREAM_SPLIT" in encodings["y"]
    assert "RLE_DICTIONARY" in encodings["moves.list.element"]  # still a dictionary
