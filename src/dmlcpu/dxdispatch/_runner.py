"""Running DirectML's DxDispatch JSON models on the CPU: ``dmlcpu.run_dxdispatch``.

A model (docs/dxdispatch.md) names buffers (``resources``), operators
(``dispatchables``) and ``commands`` run in order: ``dispatch``, ``print`` and ``writeFile``.
The whole model is read and checked first (``dxdispatch._model``); then each resource becomes
a zero-filled buffer holding its initial values at byte 0, each OWNED_BY_DML input is copied
once from its initialization binding, and the commands run.
"""
import os
import sys
from pathlib import Path

import numpy as np

from ._json import ModelFileError, read_model_file
from ._model import Dispatch, Owned, Print, parse_model
from ._npy import npy_file_bytes
from ._print import format_print
from ._values import ModelError
from .._types import FeatureLevel, NUMPY_DTYPES
from .._validate import parse_feature_level

__all__ = ["ModelError", "ModelFileError", "run_dxdispatch"]

LATEST = max(FeatureLevel)
# The most bytes all of one model's resources (and each file it reads) may take.
DEFAULT_MAX_BYTES = 2**30


def _bound(buffers, binding):
    """The bytes a Source binds: from its offset to the end of its resource."""
    return memoryview(buffers[binding.resource])[binding.offset:]


def _write_file(command, buffers, resources, output_dir, stdout, stderr):
    """DxDispatch's writeFile: a failure is reported and the run goes on."""
    target = command.target
    try:
        path = Path(output_dir) / target
        path.parent.mkdir(parents=True, exist_ok=True)
        data = buffers[command.resource]
        if path.suffix.lower() == ".npy":
            data = npy_file_bytes(data, resources[command.resource].data_type,
                                  command.dimensions)
        path.write_bytes(data)
    except (OSError, ValueError) as error:  # ValueError: a NUL in the path
        reason = getattr(error, "strerror", None) or error
        print(f"Failed to write resource to file '{target}': {reason}", file=stderr)
        return
    print(f"Resource '{command.resource}' written to '{target}'", file=stdout)


def _execute(model, iterations, output_dir, stdout, stderr):
    buffers = {}
    for name, resource in model.resources.items():
        buffers[name] = bytearray(resource.size)
        buffers[name][:len(resource.initial)] = resource.initial
    # Operator initialization happens before the first command: OWNED_BY_DML inputs are
    # read now, from the initial values.
    owned = {(d.name, Owned(bind_point, k)): bytes(_bound(buffers, source))
             for d in model.dispatchables.values()
             for bind_point, sources in d.init.items() for k, source in enumerate(sources)}
    for command in model.commands:
        if isinstance(command, Dispatch):
            name = command.dispatchable.name
            inputs = [owned[name, b] if isinstance(b, Owned) else _bound(buffers, b)
                      for b in command.inputs]
            outputs = [_bound(buffers, b) for b in command.outputs]
            for _ in range(iterations):
                command.dispatchable.compiled.execute(inputs, outputs)
        elif isinstance(command, Print):
            print(format_print(command.resource, buffers[command.resource],
                               model.resources[command.resource], command.verbose),
                  file=stdout)
        else:
            _write_file(command, buffers, model.resources, output_dir, stdout, stderr)
    return buffers


def run_dxdispatch(model, *, feature_level=LATEST, input_path=None, output_path=None,
                   dispatch_iterations=1, max_bytes=DEFAULT_MAX_BYTES, stdout=None,
                   stderr=None):
    """Runs a DxDispatch JSON model; returns {resource name: NumPy array} after the last command.

    ``model``: a path to a ``.json`` file, or the already parsed model (a dict). Each array is
    the whole buffer (``sizeInBytes``, padding included, whole elements) typed by the resource's
    ``initialValuesDataType`` (bytes as uint8 for a mixed list without one).

    ``feature_level``: every dispatchable is checked at this DirectML feature level (default the
    latest, 6_4; None for dmlcpu's extended mode). ``input_path``: the folder relative
    ``sourcePath`` files are looked up in first (default: the model file's folder, else the
    current one); ``output_path``: the folder relative ``writeFile`` targets go to (default the
    current one). ``dispatch_iterations``: how many times each dispatch runs (DxDispatch's
    ``-i``). ``max_bytes``: the most all resources together (and any file read) may hold.
    ``print`` text goes to ``stdout`` and a failed ``writeFile`` to ``stderr`` (default: the
    ``sys`` streams).

    Raises ModelError (``.errors`` lists every problem, each "where: what") before running
    anything if DxDispatch or DirectML would refuse the model; ModelFileError or OSError if the
    file cannot be read as JSON.
    """
    level = parse_feature_level(feature_level)
    if isinstance(model, (str, os.PathLike)):
        default_input = os.path.dirname(os.path.abspath(model))
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
    buffers = _execute(checked, dispatch_iterations, output_path or os.getcwd(),
                       stdout or sys.stdout, stderr or sys.stderr)
    results = {}
    for name, resource in checked.resources.items():
        dtype = NUMPY_DTYPES.get(resource.data_type, np.dtype(np.uint8))
        buffer = buffers[name]
        results[name] = np.frombuffer(buffer, dtype=dtype, count=len(buffer) // dtype.itemsize)
    return results
