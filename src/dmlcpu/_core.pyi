"""Type stubs for dmlcpu._core, the Cython boundary (see _core.pyx)."""
from typing import Any, Callable, NamedTuple, Sequence, TextIO

from typing_extensions import Buffer

class Layout(NamedTuple):
    slot: int
    offset: int
    sizes: Sequence[int]
    strides: Sequence[int]

class Copy(NamedTuple):
    dst: Layout
    src: Layout
    elsize: int

class Tile(NamedTuple):
    dst: Layout
    src: Layout
    elsize: int

class Scan(NamedTuple):
    dst: Layout
    src: Layout
    dtype: int
    axis: int
    op: int
    reverse: int
    exclusive: int

class Group(NamedTuple):
    dsts: Sequence[Layout]
    srcs: Sequence[Layout]
    elsize: int
    outer_ndim: int

class Plan:
    """Steps over operand slots, converted to C structs once and run many times."""
    n_inputs: int
    n_outputs: int
    work_bytes: int
    nbytes: int
    def __init__(self, n_inputs: int, n_outputs: int, steps: Sequence[Any]) -> None: ...
    def __len__(self) -> int: ...
    def run(self, inputs: Sequence[Buffer], outputs: Sequence[Buffer]) -> None: ...
    def try_run(self, inputs: Sequence[Buffer], outputs: Sequence[Buffer],
                in_place_ok: bool = False) -> bool: ...

class Binding:
    """Runs a Plan on raw buffers after the binding checks (CompiledOperator's base)."""
    def execute(self, inputs: Sequence[Buffer], outputs: Sequence[Buffer]) -> None: ...

class Key:
    op: str
    nbytes: int

class Remembered:
    plan: Plan
    nbytes: int
    def __init__(self, plan: Plan, shapes: Sequence[Sequence[int]], dtype: Any, many: bool,
                 in_place: bool, key_bytes: int) -> None: ...

MISS: object
def register_full_path(full_path: Callable[..., Any], as_sequence: Callable[..., tuple[Any, ...]],
                       cache: dict[Key, Remembered]) -> None: ...
def field_snapshot(fields: Sequence[Any]) -> tuple[Any, ...] | None: ...
def makes_outputs_by_c_api() -> bool: ...

# The eager API (re-exported by dmlcpu; documented there and in docs/semantics.md).
_Ints = Sequence[int]
def split(input: Any, *, axis: int, output_axis_sizes: _Ints, outputs: Sequence[Any] | None = None,
          feature_level: Any = None) -> list[Any]: ...
def join(inputs: Sequence[Any], *, axis: int, out: Any = None,
         feature_level: Any = None) -> Any: ...
def slice(input: Any, *, offsets: _Ints, sizes: _Ints, strides: _Ints | None = None,
          out: Any = None, feature_level: Any = None) -> Any: ...
def slice1(input: Any, *, input_window_offsets: _Ints, input_window_sizes: _Ints,
           input_window_strides: _Ints | None = None, output_sizes: _Ints | None = None,
           out: Any = None, feature_level: Any = None) -> Any: ...
def tile(input: Any, *, repeats: _Ints, out: Any = None, feature_level: Any = None) -> Any: ...
def cumulative_summation(input: Any, *, axis: int, axis_direction: int = ...,
                         has_exclusive_sum: bool = False, out: Any = None,
                         feature_level: Any = None) -> Any: ...
def cumulative_product(input: Any, *, axis: int, axis_direction: int = ...,
                       has_exclusive_product: bool = False, out: Any = None,
                       feature_level: Any = None) -> Any: ...
def eager_key(op: str, into: bool, fields: tuple[Any, ...],
              layouts: tuple[Any, ...]) -> Key | None: ...
def binds_from_fields() -> bool: ...
def dtype_size(dtype: int) -> int: ...
def show_config(file: TextIO | None = None) -> None: ...
def set_num_threads(n: int) -> None: ...
def get_num_threads() -> int: ...
def _config() -> dict[str, Any]: ...
MACHINE_FIELDS: tuple[str, ...]
COPY_STORES: tuple[str, ...]
TILE_WAYS: tuple[str, ...]
def _machine() -> dict[str, int]: ...
def _tuning() -> dict[str, tuple[int, str]]: ...
def _set_tune(name: str, value: int) -> int: ...
def _derive(machine: dict[str, int],
            overrides: dict[str, int] | None = None) -> dict[str, tuple[int, str]]: ...
def _decide(tuning: dict[str, tuple[int, str]], question: str, *facts: int) -> int: ...
def _force_isa(name: str | None) -> None: ...
def _scan_carried(source: Buffer, out: Buffer, carry_in: Buffer | None,
                  carry_out: Buffer | None, dtype: int, op: int, axis: int, reverse: bool,
                  exclusive: bool) -> None: ...
def _numpy_scan(source: Buffer, out: Buffer, source_dtype: int, out_dtype: int, axis: int,
                op: int) -> None: ...
