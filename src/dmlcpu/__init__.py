"""dmlcpu: DirectML's data-movement and scan operators on the CPU, with DirectML's semantics.

SPLIT, SLICE, SLICE1, JOIN, TILE, CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT on tensors of 1 to
8 dimensions in DirectML's eleven data types, bit-exact, through a C core.
"""
from ._desc import (CompiledOperator, CumulativeProductOperatorDesc,
                    CumulativeSummationOperatorDesc, JoinOperatorDesc, Slice1OperatorDesc,
                    SliceOperatorDesc, SplitOperatorDesc, TensorDesc, TileOperatorDesc,
                    calc_buffer_tensor_size, compile_operator)
from ._errors import CoreError, DmlcpuError, InvalidArgumentError, ModelError, ModelFileError
from ._ops import (cumulative_product, cumulative_summation, join, slice, slice1, split, tile)
from ._support import support_table
from ._types import AxisDirection, FeatureLevel, TensorDataType
from ._version import __version__
from ._core import get_num_threads, set_num_threads, show_config
from ._threadpoolctl import register as _register_with_threadpoolctl

_register_with_threadpoolctl()  # threadpool_info() and threadpool_limits() see the pool

__all__ = [
    "AxisDirection", "CoreError", "DmlcpuError", "FeatureLevel", "InvalidArgumentError",
    "ModelError", "ModelFileError",
    "TensorDataType", "__version__", "cumulative_product", "cumulative_summation",
    "get_num_threads", "join", "set_num_threads", "show_config", "slice", "slice1", "split",
    "support_table", "tile",
    # descriptors over raw buffers (dmlcpu._desc)
    "CompiledOperator", "CumulativeProductOperatorDesc", "CumulativeSummationOperatorDesc",
    "JoinOperatorDesc", "Slice1OperatorDesc", "SliceOperatorDesc", "SplitOperatorDesc",
    "TensorDesc", "TileOperatorDesc", "calc_buffer_tensor_size", "compile_operator",
    "run_dxdispatch",  # DirectML's DxDispatch JSON models (dmlcpu.dxdispatch), loaded on first use
]


def __getattr__(name):
    """``dmlcpu.run_dxdispatch`` imports the DxDispatch runner when first named, so that
    ``import dmlcpu`` loads only the library."""
    if name == "run_dxdispatch":
        from .dxdispatch import run_dxdispatch
        return run_dxdispatch
    raise AttributeError(f"module 'dmlcpu' has no attribute {name!r}")
