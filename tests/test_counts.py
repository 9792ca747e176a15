"""The counts table: lossy pruning keeps the most seen patterns, merges add exactly."""

from shapemill.miner import counts


def table_of(seen: dict[int, int], capacity: int = 64) -> counts.Table:
    table = counts.new_table(capacity)
    for key, n in seen.items():
        counts.add(table, key, 3, n, 0, key)
    return table


def test_pruning_keeps_the_most_seen_patterns_within_a_quarter_of_the_capacity():
    # 29 patterns seen 1 to 5 times (six seen 4 times, six 5 times). Room for 64 / 4 - 4 = 12:
    # the floor rises to 4, past the default of dropping the patterns seen once.
    table = table_of({k * 7919: k % 5 + 1 for k in range(1, 30)})
    kept = counts.pruned(table, 64, 4)
    assert counts.capacity(kept) == 64
    assert sorted(counts.entries(kept)["seen"].tolist()) == [4] * 6 + [5] * 6
    # With room to spare, only the patterns seen once go.
    roomy = counts.pruned(table, 256, 4)
    assert sorted(set(counts.entries(roomy)["seen"].tolist())) == [2, 3, 4, 5]


def test_summing_adds_counts_and_keeps_the_first_witness():
    a = counts.entries(table_of({11: 2, 12: 3}))
    b = counts.entries(table_of({12: 4, 13: 1}))
    b["witness"][b["pattern_id"] == 12] = 5  # seen earlier in b
    rows = counts.summed(a, b)
    assert rows["pattern_id"].tolist() == [11, 12, 13]
    assert rows["seen"].tolist() == [2, 7, 1]
    assert rows["witness"].tolist() == [11, 5, 13]


def test_summed_columns_add_the_counts_of_shared_patterns():
    def columns(seen: dict[int, int]) -> dict:
        return {k: v for k, v in counts.entries(table_of(seen)).items() if k in ("pattern_id", "ring", "seen")}

    total = counts.summed(columns({13: 1, 12: 3}), columns({12: 4, 11: 2}))
    assert total["pattern_id"].tolist() == [11, 12, 13]
    assert total["seen"].tolist() == [2, 7, 1]
    assert total["ring"].tolist() == [3, 3, 3]
    empty = counts.summed(columns({}), columns({}))
    assert len(empty["pattern_id"]) == 0
