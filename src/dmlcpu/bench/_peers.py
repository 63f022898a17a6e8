"""The machine and the peers of the benchmark: versions, cache sizes, and PyTorch / ONNX Runtime
set to a given thread count.

Every peer runs at the thread count dmlcpu runs at: PyTorch through ``torch.set_num_threads``,
ONNX Runtime through one session per thread count (``intra_op_num_threads``), NumPy
(single-threaded) at one thread only. No library's idle workers may keep running into the next
library's measurement: ONNX Runtime's spinning is off, and PyTorch's OpenMP workers wait
passively (``OMP_WAIT_POLICY=PASSIVE`` unless the environment says otherwise; it must be set
before torch is imported). With OpenMP's default spinning, a PyTorch worker held the second core
through dmlcpu's and ONNX Runtime's next calls: SPLIT int8 8 MiB at two threads took dmlcpu
0.166 ms after PyTorch against 0.106 ms alone (NOTES.md in git). dmlcpu's own workers spin
50 us at most. A missing peer is skipped with a note, never an error.
"""
import os
import platform

import numpy as np

import dmlcpu

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

PEER_LABELS = {"dmlcpu": "dmlcpu", "numpy": "NumPy", "torch": "PyTorch",
               "ort": "ONNX Runtime", "memcpy": "memcpy"}


def optional(name):
    """The module, or None when it cannot be imported."""
    try:
        return __import__(name)
    except Exception:  # noqa: BLE001 - any import failure means "not available"
        return None


def _read(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def cpu_model():
    text = _read("/proc/cpuinfo")
    if text:
        for line in text.splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def cache_sizes():
    """Per-level data cache sizes from Linux sysfs, e.g. ['L1d 32K', 'L2 1024K', 'L3 32768K']."""
    base = "/sys/devices/system/cpu/cpu0/cache"
    out = []
    if not os.path.isdir(base):
        return out
    for name in sorted(os.listdir(base)):
        level = _read(os.path.join(base, name, "level"))
        kind = _read(os.path.join(base, name, "type"))
        size = _read(os.path.join(base, name, "size"))
        if level and size and kind != "Instruction":
            out.append("L%s%s %s" % (level, "d" if kind == "Data" else "", size))
    return out


def machine_info(thread_counts):
    from .. import _core
    config = _core._config()
    info = {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "caches": cache_sizes(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "dmlcpu": dmlcpu.__version__,
        "active_isa": config["active_isa"],
        "thread_counts": list(thread_counts),
    }
    info["omp_wait_policy"] = os.environ.get("OMP_WAIT_POLICY")  # PyTorch's idle workers
    if hasattr(os, "getloadavg"):
        info["load_average"] = round(os.getloadavg()[0], 2)  # other work on the machine
    if "tuning" in config:  # the machine model and the policy's values (docs/decisions.md)
        info["machine_model"] = config["machine"]
        info["tuning"] = {name: value for name, (value, _) in config["tuning"].items()}
        info["stream_threshold"] = info["tuning"]["stream_threshold"]
    for name, module_name in (("torch", "torch"), ("onnxruntime", "onnxruntime")):
        module = optional(module_name)
        if module is not None:
            info[name] = module.__version__
    return info


def missing_peer_notes():
    notes = []
    if optional("torch") is None:
        notes.append("PyTorch is not installed: its column is skipped (pip install torch)")
    if optional("onnxruntime") is None:
        notes.append("ONNX Runtime is not installed: its column is skipped "
                      "(pip install onnxruntime onnx)")
    elif optional("onnx") is None:
        notes.append("ONNX Runtime needs the onnx package to build its one-node models: "
                     "its column is skipped (pip install onnx)")
    return notes


class Threads:
    """Sets dmlcpu and PyTorch to n threads inside a with-block, restoring both after."""

    def __init__(self, n):
        self.n = n

    def __enter__(self):
        self.saved = dmlcpu.get_num_threads()
        dmlcpu.set_num_threads(self.n)
        torch = optional("torch")
        self.torch_saved = torch.get_num_threads() if torch is not None else None
        if torch is not None:
            torch.set_num_threads(self.n)
        return self

    def __exit__(self, *exc):
        dmlcpu.set_num_threads(self.saved)
        if self.torch_saved is not None:
            optional("torch").set_num_threads(self.torch_saved)


def ort_runner(op, inputs, outputs, threads, constants=(), **attrs):
    """A callable running a one-node ONNX model at `threads` intra-op threads (spinning off) into
    the preallocated outputs through I/O binding, or None when onnx/onnxruntime are missing or
    ONNX Runtime has no kernel for this op and type. Constant inputs become initializers."""
    onnx, ort = optional("onnx"), optional("onnxruntime")
    if onnx is None or ort is None:
        return None
    try:
        from onnx import helper, numpy_helper
        elem = helper.np_dtype_to_tensor_dtype(inputs[0].dtype)
        in_names = ["x%d" % i for i in range(len(inputs))]
        const_names = ["c%d" % i for i in range(len(constants))]
        out_names = ["y%d" % i for i in range(len(outputs))]
        node = helper.make_node(op, in_names + const_names, out_names, **attrs)
        graph = helper.make_graph(
            [node], op,
            [helper.make_tensor_value_info(n, elem, a.shape) for n, a in zip(in_names, inputs)],
            [helper.make_tensor_value_info(n, elem, a.shape) for n, a in zip(out_names, outputs)],
            [numpy_helper.from_array(c, n) for c, n in zip(constants, const_names)])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
        # onnx writes its newest IR version, which an older onnxruntime refuses; opset 18
        # needs IR 8, and every onnxruntime since 1.14 reads IR 9
        model.ir_version = 9
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.add_session_config_entry("session.inter_op.allow_spinning", "0")
        session = ort.InferenceSession(model.SerializeToString(), options,
                                       providers=["CPUExecutionProvider"])
        binding = session.io_binding()
        for n, a in zip(in_names, inputs):
            binding.bind_cpu_input(n, a)
        for n, a in zip(out_names, outputs):
            binding.bind_output(n, "cpu", 0, a.dtype, a.shape, a.ctypes.data)
        return lambda: session.run_with_iobinding(binding)
    except Exception:  # noqa: BLE001 - an op ORT lacks for this type is skipped, not fatal
        return None
