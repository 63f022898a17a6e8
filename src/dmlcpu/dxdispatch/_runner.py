"""Running DirectML's DxDispatch JSON models on the CPU: ``dmlcpu.run_dxdispatch``.

A model (docs/dxdispatch.md) names buffers (``resources``), operators
(``dispatchables``) and ``commands`` run in order: ``dispatch``, ``print`` and ``writeFile``.
The whole model is read and checked first (``dxdispatch._model``), each resource becoming a
zero-filled buffer holding its initial values at byte 0; then each OWNED_BY_DML input is copied
once from its initialization binding, and the commands run.
"""
import os
import sys
from pathlib import Path

import numpy as np

from ._json import ModelFileError, read_model_file
from ._model import Dispatch, Owned, Print, WriteFile, owned_copies, parse_model
from ._npy import npy_header
from ._print import write_print
from ._values import ModelError
from .._types import FeatureLevel, NUMPY_DTYPES
from .._validate import parse_feature_level

__all__ = ["ModelError", "ModelFileError", "run_dxdispatch"]

LATEST = max(FeatureLevel)
# The most bytes all of one model's resources (and each file it reads) may take.
DEFAULT_MAX_BYTES = 2**30


def _bound(resources, binding):
    """The bytes a Source binds: from its offset to the end of its resource."""
    return memoryview(resources[binding.resource].buffer)[binding.offset:]


class _Refused(ValueError):
    """A writeFile target dmlcpu does not write (before the run: the model is refused)."""


def _target(command, output_dir, protected, anywhere):
    """The path a writeFile writes, or _Refused saying why it may not: outside output_dir
    (unless anywhere), or the model or a sourcePath file, whose data would be lost."""
    path = Path(output_dir) / command.target
    real = os.path.realpath(path)
    if not anywhere and os.path.commonpath([real, os.path.realpath(output_dir)]) \
            != os.path.realpath(output_dir):
        raise _Refused(f"it is outside the output path {str(output_dir)!r} (writeFile "
                       f"targets stay under it unless writes outside are allowed)")
    if real in protected:
        raise _Refused("it is the model or one of its sourcePath files, which writeFile "
                       "never overwrites")
    return path


def _write_file(command, resources, paths, stdout, stderr):
    """DxDispatch's writeFile: a failure is reported and the run goes on."""
    target = command.target
    resource = resources[command.resource]
    try:
        path = _target(command, *paths)
        path.parent.mkdir(parents=True, exist_ok=True)
        path = _target(command, *paths)  # again: the folders made may be links
        with open(path, "wb") as handle:
            if path.suffix.lower() == ".npy":
                handle.write(npy_header(resource.data_type, command.dimensions))
            handle.write(resource.buffer)
    except (OSError, ValueError) as error:  # ValueError: a NUL in the path
        reason = getattr(error, "strerror", None) or error
        print(f"Failed to write resource to file '{target}': {reason}", file=stderr)
        return
    print(f"Resource '{command.resource}' written to '{target}'", file=stdout)


def _check_targets(model, paths):
    """Every writeFile target allowed, before anything runs; ModelError otherwise."""
    errors = []
    for i, command in enumerate(model.commands):
        if isinstance(command, WriteFile):
            try:
                _target(command, *paths)
            except _Refused as error:
                errors.append(f"commands[{i}] (writeFile {command.resource!r}): "
                              f"targetPath {command.target!r}: {error}")
            except (OSError, ValueError):  # a NUL in the path: a failed write, as in DxDispatch
                pass
    if errors:
        raise ModelError(errors)


def _execute(model, iterations, paths, stdout, stderr):
    resources = model.resources
    # Operator initialization happens before the first command: OWNED_BY_DML inputs are
    # copied now (the tensor's bytes only), from the initial values.
    owned = {(d.name, slot): bytes(_bound(resources, source)[:size])
             for d in model.dispatchables.values() for slot, source, size in owned_copies(d)}
    for command in model.commands:
        if isinstance(command, Dispatch):
            name = command.dispatchable.name
            inputs = [owned[name, b] if isinstance(b, Owned) else _bound(resources, b)
                      for b in command.inputs]
            outputs = [_bound(resources, b) for b in command.outputs]
            for _ in range(iterations):
                command.dispatchable.compiled.execute(inputs, outputs)
        elif isinstance(command, Print):
            resource = resources[command.resource]
            write_print(stdout, command.resource, resource.buffer, resource, command.verbose)
        else:
            _write_file(command, resources, paths, stdout, stderr)


def run_dxdispatch(model, *, feature_level=LATEST, input_path=None, output_path=None,
                   dispatch_iterations=1, max_bytes=DEFAULT_MAX_BYTES,
                   allow_outside_output_path=False, stdout=None, stderr=None):
    """Runs a DxDispatch JSON model; returns {resource name: NumPy array} after the last command.

    ``model``: a path to a ``.json`` file, or the already parsed model (a dict). Each array is
    the whole buffer (``sizeInBytes``, padding included, whole elements) typed by the resource's
    ``initialValuesDataType`` (bytes as uint8 for a mixed list without one).

    ``feature_level``: every dispatchable is checked at this DirectML feature level (default the
    latest, 6_4; None for dmlcpu's extended mode). ``input_path``: the folder relative
    ``sourcePath`` files are looked up in first (default: the model file's folder, else the
    current one); ``output_path``: the folder relative ``writeFile`` targets go to (default the
    current one). A ``writeFile`` target must lie under the output path (no absolute path or
    ``..`` leading out, links followed) unless ``allow_outside_output_path``, and is never the
    model file or a ``sourcePath`` file; a model breaking this is refused before it runs.
    ``dispatch_iterations``: how many times each dispatch runs (DxDispatch's ``-i``).
    ``max_bytes``: the most bytes the run holds at once, everything it materializes counted:
    every resource's buffer, the OWNED_BY_DML copies, a .npy header's claimed size before the
    file is read, and a stream being read; ``print`` is written in blocks.
    ``print`` text goes to ``stdout`` and a failed ``writeFile`` to ``stderr`` (default: the
    ``sys`` streams).

    Raises ModelError (``.errors`` lists every problem, each "where: what") before running
    anything if DxDispatch or DirectML would refuse the model; ModelFileError or OSError if the
    file cannot be read as JSON.
    """
    level = parse_feature_level(feature_level)
    protected = set()
    if isinstance(model, (str, os.PathLike)):
        default_input = os.path.dirname(os.path.abspath(model))
        protected.add(os.path.realpath(model))
        model = read_model_file(model)
    elif isinstance(model, dict):
        default_input = os.getcwd()
    else:
        raise TypeError(f"model must be a path or a parsed model (dict), not "
                        f"{type(model).__name__}")
    if isinstance(dispatch_iterations, bool) or not isinstance(dispatch_iterations, int) \
            or dispatch_iterations < 1:
        raise ValueError(f"dispatch_iterations must be a positive integer, not "
                         f"{dispatch_iterations!r}")
    checked = parse_model(model, level, input_path or default_input, max_bytes)
    protected.update(r.source for r in checked.resources.values() if r.source)
    paths = (output_path or os.getcwd(), protected, allow_outside_output_path)
    _check_targets(checked, paths)
    _execute(checked, dispatch_iterations, paths, stdout or sys.stdout, stderr or sys.stderr)
    results = {}
    for name, resource in checked.resources.items():
        dtype = NUMPY_DTYPES.get(resource.data_type, np.dtype(np.uint8))
        buffer = resource.buffer
        results[name] = np.frombuffer(buffer, dtype=dtype, count=len(buffer) // dtype.itemsize)
    return results
