"""dmlcpu.numpy: NumPy's concatenate, stack family, tile, repeat, cumsum/cumprod and copies,
bit for bit NumPy's answer (dtype, shape, bits, memory order, errors), on dmlcpu's kernels
where that answer is provably the same and through NumPy itself everywhere else.

    import dmlcpu.numpy as dnp
    dnp.cumsum(x, axis=0)            # as np.cumsum
    with dnp.patched(): ...          # np.cumsum & co. routed here (not array methods)
    dnp.stats()                      # per function: fast-path calls, NumPy calls and why

docs/numpy.md describes what maps to what. Split functions are not wrapped: NumPy's return
views, and a drop-in must not turn a view into a copy.
"""
from ._copy import ascontiguousarray, copy
from ._join import column_stack, concat, concatenate, dstack, hstack, stack, vstack
from ._patch import is_patched, patch, patched, unpatch
from ._scan import cumprod, cumsum, cumulative_prod, cumulative_sum
from ._stats import reset_stats, stats
from ._tile import repeat, tile

__all__ = ["ascontiguousarray", "column_stack", "concat", "concatenate", "copy", "cumprod",
           "cumsum", "cumulative_prod", "cumulative_sum", "dstack", "hstack", "is_patched",
           "patch", "patched", "repeat", "reset_stats", "stack", "stats", "tile", "unpatch",
           "vstack"]
