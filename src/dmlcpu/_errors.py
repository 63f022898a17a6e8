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
