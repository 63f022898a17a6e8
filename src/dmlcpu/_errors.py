"""Exceptions: each subclasses the dmlcpu base and the builtin it means."""


class DmlcpuError(Exception):
    """Base class of every error dmlcpu raises on purpose."""


class InvalidArgumentError(DmlcpuError, ValueError):
    """DirectML's E_INVALIDARG: a descriptor or argument DirectML would refuse.

    The message names the operator, the field with its index path, the rule and the values.
    ``violations`` lists every rule the call breaks (the message shows the first).
    """

    def __init__(self, message, violations=None):
        super().__init__(message)
        self.violations = list(violations) if violations else [message]


class CoreError(DmlcpuError, RuntimeError):
    """The C core refused a plan that validation had accepted: a bug in dmlcpu, please report it."""


class ModelError(DmlcpuError, ValueError):
    """A DxDispatch model (``run_dxdispatch``, ``python -m dmlcpu dispatch``) is refused
    (command-line exit status 1). ``errors`` lists every problem found, each as "where: what";
    the message shows the first. (Empty only internally: a reference to a part of the model
    whose own problems are already listed.)"""

    def __init__(self, errors):
        errors = [errors] if isinstance(errors, str) else list(errors)
        more = f" (and {len(errors) - 1} more: see .errors)" if len(errors) > 1 else ""
        super().__init__((errors[0] if errors else "") + more)
        self.errors = errors


class ModelFileError(DmlcpuError, ValueError):
    """A file cannot be read as a DxDispatch JSON model (command-line exit status 2)."""
