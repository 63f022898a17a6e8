"""patch() / unpatch() / patched(): NumPy's module-level functions (and the internal names
that NumPy's own hstack, vstack, stack, block, append... call) routed to the drop-in.

Array methods (``a.cumsum()``, ``a.repeat()``, ``a.copy()``) are C slots of ndarray and
cannot be replaced: they stay NumPy's.
"""
import contextlib
import importlib
import threading

from . import _copy, _join, _numpy, _scan, _tile

# Every module whose globals hold one of the functions: NumPy's namespace, the modules that
# define them and the ones whose functions call them through a module global.
_MODULES = ("numpy", "numpy._core", "numpy._core.multiarray", "numpy._core.numeric",
            "numpy._core.fromnumeric", "numpy._core.shape_base", "numpy.lib._shape_base_impl",
            "numpy.lib._function_base_impl")
_DROP_IN = {
    "concatenate": _join.concatenate, "stack": _join.stack, "hstack": _join.hstack,
    "vstack": _join.vstack, "dstack": _join.dstack, "column_stack": _join.column_stack,
    "tile": _tile.tile, "repeat": _tile.repeat, "cumsum": _scan.cumsum,
    "cumprod": _scan.cumprod, "cumulative_sum": _scan.cumulative_sum,
    "cumulative_prod": _scan.cumulative_prod,
    "ascontiguousarray": _copy.ascontiguousarray, "copy": _copy.copy,
    "concatenate_undispatched": _join.concatenate_undispatched}
_lock = threading.Lock()
_saved = []   # (module, attribute, NumPy's function) for each attribute replaced


def _replacements():
    """NumPy's function object -> its drop-in (by identity, so aliases such as np.concat and
    numpy._core.shape_base._concatenate are found whatever their names)."""
    return {id(getattr(_numpy, name)): fn for name, fn in _DROP_IN.items()
            if fn is not None and getattr(_numpy, name) is not None}


def patch():
    """Routes NumPy's module-level functions to dmlcpu.numpy until unpatch(); idempotent."""
    with _lock:
        if _saved:
            return
        replacements = _replacements()
        for module_name in _MODULES:
            module = importlib.import_module(module_name)
            for attribute, value in list(vars(module).items()):
                fn = replacements.get(id(value))
                if fn is not None:
                    _saved.append((module, attribute, value))
                    setattr(module, attribute, fn)


def unpatch():
    """Puts NumPy's own functions back; idempotent."""
    with _lock:
        while _saved:
            module, attribute, value = _saved.pop()
            setattr(module, attribute, value)


def is_patched():
    """True between patch() and unpatch()."""
    return bool(_saved)


@contextlib.contextmanager
def patched():
    """``with dmlcpu.numpy.patched(): ...`` patches for the block (and restores the previous
    state after it, patched or not)."""
    was = is_patched()
    patch()
    try:
        yield
    finally:
        if not was:
            unpatch()
