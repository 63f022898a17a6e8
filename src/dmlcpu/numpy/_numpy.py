"""NumPy's own functions, taken once at import: every fallback calls these, so a fallback
never reaches the drop-in again while ``patch()`` has replaced the module attributes."""
import numpy as np

concatenate = np.concatenate
# without the __array_function__ dispatch: what np.block's steps call once it has dispatched
concatenate_undispatched = getattr(np.concatenate, "__wrapped__", None)
stack = np.stack
hstack = np.hstack
vstack = np.vstack
dstack = np.dstack
column_stack = np.column_stack
tile = np.tile
repeat = np.repeat
cumsum = np.cumsum
cumprod = np.cumprod
cumulative_sum = getattr(np, "cumulative_sum", None)    # NumPy 2.1 and later
cumulative_prod = getattr(np, "cumulative_prod", None)
ascontiguousarray = np.ascontiguousarray
copy = np.copy
