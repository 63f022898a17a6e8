"""DirectML's DxDispatch JSON models run on the CPU (``dmlcpu.run_dxdispatch``, ``python -m
dmlcpu dispatch``): the model file (``_json``), its resources, dispatchables and commands
(``_model``, ``_operators``, ``_bindings``, ``_values``), .npy files (``_npy``), DxDispatch's
print format (``_print``), and the runner (``_runner``). docs/dxdispatch.md says what is
reproduced and what differs.
"""
from ._runner import ModelError, ModelFileError, run_dxdispatch

__all__ = ["ModelError", "ModelFileError", "run_dxdispatch"]
