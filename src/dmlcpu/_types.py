"""DirectML's enums: data types, feature levels, axis directions."""
from enum import IntEnum

import numpy as np


class TensorDataType(IntEnum):
    """DML_TENSOR_DATA_TYPE, with DirectML's values. UNKNOWN is never valid."""

    UNKNOWN = 0
    FLOAT32 = 1
    FLOAT16 = 2
    UINT32 = 3
    UINT16 = 4
    UINT8 = 5
    INT32 = 6
    INT16 = 7
    INT8 = 8
    FLOAT64 = 9
    UINT64 = 10
    INT64 = 11


class FeatureLevel(IntEnum):
    """DML_FEATURE_LEVEL: each level accepts everything the levels before it accept."""

    FL_1_0 = 0x1000
    FL_2_0 = 0x2000
    FL_2_1 = 0x2100
    FL_3_0 = 0x3000
    FL_3_1 = 0x3100
    FL_4_0 = 0x4000
    FL_4_1 = 0x4100
    FL_5_0 = 0x5000
    FL_5_1 = 0x5100
    FL_5_2 = 0x5200
    FL_6_0 = 0x6000
    FL_6_1 = 0x6100
    FL_6_2 = 0x6200
    FL_6_3 = 0x6300
    FL_6_4 = 0x6400

    @property
    def label(self):
        """The level as DirectML's docs write it, e.g. '4_1'."""
        return self.name[3:]

    def __str__(self):
        return self.label


class AxisDirection(IntEnum):
    """DML_AXIS_DIRECTION: the walk order of the cumulative operators."""

    INCREASING = 0
    DECREASING = 1


# DirectML's own listing order, used in messages.
ALL_DATA_TYPES = (
    TensorDataType.FLOAT64, TensorDataType.FLOAT32, TensorDataType.FLOAT16,
    TensorDataType.INT64, TensorDataType.INT32, TensorDataType.INT16, TensorDataType.INT8,
    TensorDataType.UINT64, TensorDataType.UINT32, TensorDataType.UINT16, TensorDataType.UINT8,
)

NUMPY_DTYPES = {
    TensorDataType.FLOAT32: np.dtype(np.float32),
    TensorDataType.FLOAT16: np.dtype(np.float16),
    TensorDataType.UINT32: np.dtype(np.uint32),
    TensorDataType.UINT16: np.dtype(np.uint16),
    TensorDataType.UINT8: np.dtype(np.uint8),
    TensorDataType.INT32: np.dtype(np.int32),
    TensorDataType.INT16: np.dtype(np.int16),
    TensorDataType.INT8: np.dtype(np.int8),
    TensorDataType.FLOAT64: np.dtype(np.float64),
    TensorDataType.UINT64: np.dtype(np.uint64),
    TensorDataType.INT64: np.dtype(np.int64),
}
DATA_TYPE_OF_NUMPY = {dtype: data_type for data_type, dtype in NUMPY_DTYPES.items()}
ELEMENT_SIZES = {data_type: dtype.itemsize for data_type, dtype in NUMPY_DTYPES.items()}
