"""DirectML's per-feature-level tables for the seven operators, as data (docs/feature-levels.md)."""
from ._types import ALL_DATA_TYPES, FeatureLevel, TensorDataType

L = FeatureLevel
T = TensorDataType

OPERATORS = ("SPLIT", "SLICE", "SLICE1", "JOIN", "TILE", "CUMULATIVE_SUMMATION",
             "CUMULATIVE_PRODUCT")

INTRODUCED = {
    "SPLIT": L.FL_1_0, "SLICE": L.FL_1_0, "SLICE1": L.FL_2_1, "JOIN": L.FL_1_0,
    "TILE": L.FL_1_0, "CUMULATIVE_SUMMATION": L.FL_2_1, "CUMULATIVE_PRODUCT": L.FL_3_1,
}

# First level supporting each type, per operator, in OPERATORS order (None = never).
_FIRST_LEVEL_ROWS = {
    (T.FLOAT64,): (L.FL_4_1, L.FL_4_1, L.FL_4_1, L.FL_4_1, None, None, None),
    (T.FLOAT32, T.FLOAT16): (L.FL_1_0, L.FL_1_0, L.FL_2_1, L.FL_1_0, L.FL_1_0, L.FL_2_1, L.FL_3_1),
    (T.INT64, T.UINT64): (L.FL_4_1, L.FL_4_1, L.FL_4_1, L.FL_4_1, L.FL_4_1, L.FL_5_0, L.FL_5_0),
    (T.INT32, T.UINT32): (L.FL_1_0, L.FL_1_0, L.FL_2_1, L.FL_1_0, L.FL_2_1, L.FL_2_1, L.FL_3_1),
    (T.INT16, T.UINT16): (L.FL_1_0, L.FL_1_0, L.FL_2_1, L.FL_1_0, L.FL_2_1, None, None),
    (T.INT8, T.UINT8): (L.FL_2_1, L.FL_2_1, L.FL_2_1, L.FL_2_1, L.FL_2_1, None, None),
}

FIRST_LEVEL = {
    op: {data_type: levels[i] for types, levels in _FIRST_LEVEL_ROWS.items() for data_type in types}
    for i, op in enumerate(OPERATORS)
}

# (from level, min dims, max dims): each row holds from its level on.
DIMENSION_COUNTS = {
    "SPLIT": [(L.FL_1_0, 4, 4), (L.FL_3_0, 1, 8)],
    "SLICE": [(L.FL_1_0, 4, 5), (L.FL_3_0, 1, 8)],
    "SLICE1": [(L.FL_2_1, 4, 5), (L.FL_3_0, 1, 8)],
    "JOIN": [(L.FL_1_0, 4, 4), (L.FL_3_0, 4, 5), (L.FL_3_1, 1, 8)],
    "TILE": [(L.FL_1_0, 4, 4), (L.FL_3_1, 1, 8)],
    "CUMULATIVE_SUMMATION": [(L.FL_2_1, 4, 4), (L.FL_4_0, 1, 8)],
    "CUMULATIVE_PRODUCT": [(L.FL_3_1, 4, 4), (L.FL_4_0, 1, 8)],
}


def supported_data_types(op, level):
    """The data types op accepts at level (None = extended mode: all eleven), DirectML's order."""
    if level is None:
        return ALL_DATA_TYPES
    first = FIRST_LEVEL[op]
    return tuple(t for t in ALL_DATA_TYPES if first[t] is not None and first[t] <= level)


def dimension_count_range(op, level):
    """(min, max) dimension count op accepts at level (None = extended mode: 1 to 8)."""
    if level is None:
        return 1, 8
    allowed = (1, 8)
    for since, low, high in DIMENSION_COUNTS[op]:
        if since <= level:
            allowed = (low, high)
    return allowed


def support_table():
    """docs/feature-levels.md as data: per operator, its first level, types and dimension counts.

    >>> support_table()["TILE"]["data_types"]["FLOAT64"] is None
    True
    """
    return {
        op: {
            "introduced": INTRODUCED[op],
            "data_types": {t.name: FIRST_LEVEL[op][t] for t in ALL_DATA_TYPES},
            "dimension_counts": list(DIMENSION_COUNTS[op]),
        }
        for op in OPERATORS
    }
