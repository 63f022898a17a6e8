"""dmlcpu's pool as a threadpoolctl library controller, registered at import when threadpoolctl
is installed (it stays optional): ``threadpoolctl.threadpool_info()`` lists it (user_api and
internal_api "dmlcpu") and ``threadpool_limits(n)`` limits it and restores it after, as it does
for BLAS and OpenMP.

threadpoolctl finds a library among the loaded shared objects by its file name (dmlcpu's is
``_core.<tag>.so`` / ``.pyd``) and, where they are exported, by its symbols; the controller then
drives the pool through dmlcpu's own functions, not the shared object's.
"""
import sys

from . import _core

try:
    import threadpoolctl as _threadpoolctl
except ImportError:  # threadpoolctl is optional
    _threadpoolctl = None


def _controller_class():
    from . import __version__

    class DmlcpuController(_threadpoolctl.LibController):
        user_api = "dmlcpu"
        internal_api = "dmlcpu"
        filename_prefixes = ("_core",)
        # another library's _core module is told apart by a symbol only dmlcpu's exports
        # (Windows exports none but the module's init function: the file name decides there)
        if sys.platform != "win32":
            check_symbols = ("dmlcpu_set_num_threads",)

        def get_num_threads(self):
            return _core.get_num_threads()

        def set_num_threads(self, num_threads):
            n = max(1, min(int(num_threads), 256))
            if self._replaced is not None and n == self._replaced[0]:
                # putting back what this controller replaced: with its reason, so a default
                # stays a default
                _core._set_num_threads_from(*self._replaced)
                self._replaced = None
            else:
                self._replaced = (_core.get_num_threads(), _core._threads_source())
                _core.set_num_threads(n)

        def get_version(self):
            return __version__

        def set_additional_attributes(self):
            self.threads_source = _core._threads_source()
            self._replaced = None  # (count, source) the last limit replaced, until put back

    return DmlcpuController


def register():
    """Registers the controller once, if threadpoolctl has the registering API (3.5 and later)."""
    if _threadpoolctl is None or not hasattr(_threadpoolctl, "register"):
        return False
    _threadpoolctl.register(_controller_class())
    return True
