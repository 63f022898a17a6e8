"""python -m dmlcpu validate FILE.json [--feature-level L]: would DirectML accept this operator?

The file holds one JSON object describing one operator with DirectML's field names::

    {"operator": "SPLIT",
     "InputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 6, 2]},
     "OutputTensors": [{"DataType": "FLOAT32", "Sizes": [1, 1, 2, 2]},
                       {"DataType": "FLOAT32", "Sizes": [1, 1, 1, 2]},
                       {"DataType": "FLOAT32", "Sizes": [1, 1, 3, 2]}],
     "Axis": 2}

- ``operator``: SPLIT, JOIN, SLICE, SLICE1, TILE, CUMULATIVE_SUMMATION or CUMULATIVE_PRODUCT
  (a ``DML_OPERATOR_`` prefix is allowed), then the operator's fields (listed under ``--help``,
  from the operator registry): tensors as objects, integers, lists of integers, AxisDirection as
  0, 1, "INCREASING" or "DECREASING", and a BOOL as true, false, 0 or 1.
- Tensor fields (DML_BUFFER_TENSOR_DESC): DataType ("FLOAT32", "DML_TENSOR_DATA_TYPE_FLOAT32" or
  the value 1), Sizes, and optionally Strides (elements), TotalTensorSizeInBytes,
  GuaranteedBaseOffsetAlignment, Flags (0, 1, "NONE", "OWNED_BY_DML").
- Every field name is also accepted in the Python API's snake_case (``input_tensor``,
  ``total_tensor_size_in_bytes``...). The counts DirectML carries beside arrays (DimensionCount,
  OutputCount, InputCount, RepeatsCount) and a tensor's ``Type`` (DML_TENSOR_TYPE_BUFFER) may be
  given; they must then agree with the arrays. Any other key is an error.

Output and exit status: with ``--feature-level L`` (1_0 ... 6_4, or "extended"), "accepted" and
0, or every rule the operator breaks at L, one per line, and 1. Without it: the feature levels
at which DirectML accepts it (and whether extended mode does), status 0; if no feature level
accepts it, the rules it breaks at the newest level (6_4) and what extended mode says, status 1.
Status 2: unreadable file (missing, past 4 MiB, not JSON, a key given twice in one object,
nested too deep), malformed description or bad usage, with the reason on stderr. Every file
is read once (a pipe works), at most 4 MiB, as UTF-8 with or without a byte-order mark.

A DxDispatch model (``python -m dmlcpu dispatch``) is accepted too: each dispatchable is
reported as above, its first line prefixed by its name; the status is the worst.

``--example NAME`` prints a file that ships with dmlcpu: split_valid (the SPLIT above),
split_invalid (the same with two mistakes), join_subrange (a DxDispatch model: DirectML's JOIN
example), e.g. ``python -m dmlcpu validate --example split_invalid > split.json``.
"""
import argparse
import json
import sys
from pathlib import Path

from .. import _registry as R
from .._desc import OPERATOR_DESCS, TensorDesc, check_operator
from .._errors import InvalidArgumentError, ModelFileError
from .._types import FeatureLevel
from .._validate import parse_feature_level, show
from ..dxdispatch._json import (DuplicateKeyError, parse_model_text, read_at_most,
                                refuse_duplicate_keys)

NEWEST = max(FeatureLevel)


# The most bytes validate reads: room for a SPLIT or JOIN of 100,000 tensors (about 41 bytes each
# written compactly), while the worst file of this size is read and judged in seconds (the
# limits table of docs/reliability.md).
MAX_FILE_BYTES = 4 * 2**20


class FormatError(Exception):
    """The file does not describe an operator in the documented format (status 2)."""


class Unreadable(Exception):
    """The file is too large or too deeply nested to read (status 2)."""


def read_text(path):
    """The text of the file at path, read once and at most MAX_FILE_BYTES of it (an operator
    description and a DxDispatch model alike): UTF-8, a byte-order mark allowed.

    Raises OSError, UnicodeDecodeError, or Unreadable for a file longer than the limit (an
    endless stream too).
    """
    with open(path, "rb") as handle:
        data = read_at_most(handle, MAX_FILE_BYTES)
    if len(data) > MAX_FILE_BYTES:
        raise Unreadable(f"it holds more than {MAX_FILE_BYTES} bytes, the most validate reads")
    return data.decode("utf-8-sig")


def parse_json(text):
    """The JSON value in text (strict JSON; a key given twice in one object is refused).

    Raises json.JSONDecodeError, DuplicateKeyError, or Unreadable for a number too long for
    Python's int conversion or arrays and objects nested deeper than the recursion limit.
    """
    try:
        return json.loads(text, object_pairs_hook=refuse_duplicate_keys)
    except RecursionError:
        raise Unreadable("its arrays or objects are nested too deep") from None
    except (json.JSONDecodeError, DuplicateKeyError):
        raise
    except ValueError:  # int() refusing a literal past sys.get_int_max_str_digits()
        raise Unreadable(f"a number has more than {sys.get_int_max_str_digits()} "
                         f"digits") from None


def _key(name):
    """DirectML's and snake_case spellings of a field name compare equal."""
    return name.replace("_", "").lower()


# Names JSON may give instead of values: (DirectML's prefix, {name: value}).
_NAMES = {R.DIRECTION: ("DML_AXIS_DIRECTION_", {"INCREASING": 0, "DECREASING": 1}),
          R.FLAGS: ("DML_TENSOR_FLAG_", {"NONE": 0, "OWNED_BY_DML": 1})}


def _dump(value, most=60):
    """A JSON value for a message: numbers however long, the rest cut to ``most`` characters."""
    if isinstance(value, int) and not isinstance(value, bool):
        return show(value)
    try:
        text = json.dumps(value)
    except (RecursionError, ValueError):
        text = f"a nested {type(value).__name__}"
    return text if len(text) <= most else text[:most - 3] + "..."


def _take(obj, path, known):
    """obj's fields by normalized name; unknown keys are an error."""
    if not isinstance(obj, dict):
        raise FormatError(f"{path or 'the file'} must be a JSON object, not {type(obj).__name__}")
    fields = {}
    for name, value in obj.items():
        key = _key(name)
        if key not in known:
            where = f" in {path}" if path else ""
            raise FormatError(f"unknown field {name!r}{where}; expected "
                              f"{', '.join(sorted(known.values()))}")
        if key in fields:
            raise FormatError(f"field {name!r} is given twice{' in ' + path if path else ''}")
        fields[key] = value
    return fields


def _int(value, path):
    if isinstance(value, bool) or not isinstance(value, int):
        raise FormatError(f"{path} must be an integer, not {_dump(value)}")
    return value


def _ints(value, path):
    if not isinstance(value, list):
        raise FormatError(f"{path} must be a list of integers, not {_dump(value)}")
    if set(map(type, value)) <= {int}:  # json gives int, never a subclass: bools are refused
        return value
    return [_int(v, f"{path}[{i}]") for i, v in enumerate(value)]


def _named(value, kind, path):
    """An int, or a name of this kind (with an optional DirectML prefix)."""
    prefix, names = _NAMES[kind]
    if isinstance(value, str):
        name = value.strip().upper()
        if name.startswith(prefix):
            name = name[len(prefix):]
        if name not in names:
            raise FormatError(f"{path} is {value!r}; expected one of {', '.join(names)} or an "
                              f"integer")
        return names[name]
    return _int(value, path)


def _tensors(value, path):
    if not isinstance(value, list):
        raise FormatError(f"{path} must be a list of tensors")
    return [_tensor(t, f"{path}[{i}]") for i, t in enumerate(value)]


def _data_type(value, path):
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise FormatError(f"{path} must be a type name or value, not {_dump(value)}")
    return value


def _bool(value, path):
    return value if isinstance(value, bool) else _int(value, path)


# How JSON gives each kind of field (the registry's kinds).
_READ = {R.TENSOR: lambda value, path: _tensor(value, path), R.TENSORS: _tensors,
         R.INT: _int, R.UINT: _int, R.INTS: _ints, R.UINTS: _ints, R.BOOL: _bool,
         R.DIRECTION: lambda value, path: _named(value, R.DIRECTION, path),
         R.FLAGS: lambda value, path: _named(value, R.FLAGS, path), R.DATA_TYPE: _data_type}


def _read_fields(obj, fields, path, op=None, extra=()):
    """The constructor's keyword arguments from obj, by the registry's fields, and obj's keys.

    ``path`` names obj: a tensor's field path, or the operator ``op``. ``extra`` lists more
    DirectML names a file may give (a tensor's Type); counts (``Field.count``) are checked.
    """
    prefix, child = (f"{op}: ", "") if op else (f"{path}.", f"{path}.")
    known = {_key(f.dml): f.dml for f in fields}
    known.update({_key(f.count): f.count for f in fields if f.count})
    known.update({_key(name): name for name in extra})
    given = _take(obj, path, known)
    kwargs = {}
    for f in fields:
        key = _key(f.dml)
        if key not in given:
            if f.required:
                raise FormatError(f"{op}: field {f.dml} is missing" if op else
                                  f"{path}.{f.dml} is missing")
            continue
        value = given[key]
        kwargs[f.name] = (None if value is None and f.default is None
                          else _READ[f.kind](value, f"{child}{f.dml}"))
        if f.count and _key(f.count) in given and given[_key(f.count)] != len(value):
            raise FormatError(f"{prefix}{f.count} is {_dump(given[_key(f.count)])} but {f.dml} "
                              f"has {len(value)} entries")
    return kwargs, given


def _tensor(obj, path):
    kwargs, given = _read_fields(obj, R.TENSOR_DESC_FIELDS, path, extra=["Type"])
    if "type" in given and not (isinstance(given["type"], str) and given["type"].upper() in (
            "BUFFER", "DML_TENSOR_TYPE_BUFFER")):
        raise FormatError(f"{path}.Type is {_dump(given['type'])}; only "
                          f"DML_TENSOR_TYPE_BUFFER tensors exist")
    return TensorDesc(**kwargs)


def parse_operator(obj):
    """The operator descriptor a parsed JSON object describes (FormatError if malformed)."""
    if not isinstance(obj, dict):
        raise FormatError(f"the file must hold one JSON object, not {type(obj).__name__}")
    op_keys = [k for k in obj if _key(k) in ("operator", "type")]
    if len(op_keys) != 1 or not isinstance(obj[op_keys[0]], str):
        raise FormatError('the object must name its operator once, e.g. "operator": "SPLIT"')
    op = obj[op_keys[0]].strip().upper()
    if op.startswith("DML_OPERATOR_"):
        op = op[len("DML_OPERATOR_"):]
    if op not in R.OPERATORS:
        raise FormatError(f"operator {obj[op_keys[0]]!r} is not one of "
                          f"{', '.join(R.OPERATORS)}")
    rest = {k: v for k, v in obj.items() if k != op_keys[0]}
    kwargs, _ = _read_fields(rest, R.OPERATORS[op].fields, op, op=op)
    return OPERATOR_DESCS[op](**kwargs)


def _first_accepting_level(desc):
    """The oldest level accepting desc, which the newest accepts: each level accepts all that the
    levels before it accept (docs/feature-levels.md), so a binary search finds it."""
    levels = list(FeatureLevel)
    low, high = 0, len(levels) - 1
    while low < high:
        middle = (low + high) // 2
        if check_operator(desc, levels[middle]):
            low = middle + 1
        else:
            high = middle
    return levels[low]


def _indent(messages):
    return ["  " + message for message in messages]


def report(desc, level_arg):
    """(status, lines) for desc at level_arg (a level, "extended", or None for every level)."""
    op = desc.OPERATOR
    if level_arg is not None:
        level = None if level_arg == "extended" else level_arg
        where = "in extended mode" if level is None else f"at feature level {level.label}"
        broken = check_operator(desc, level)
        if not broken:
            return 0, [f"{op}: accepted {where}"]
        return 1, [f"{op}: rejected {where}; it breaks {len(broken)} rule(s):"] + _indent(broken)
    extended = check_operator(desc, None)
    ext_text = "accepted in extended mode" if not extended else "rejected in extended mode"
    newest = check_operator(desc, NEWEST)
    if not newest:
        first = _first_accepting_level(desc)
        text = f"{first.label} and later" if first != NEWEST else f"{first.label} only"
        lines = [f"{op}: accepted at feature levels {text}; {ext_text}"]
        return 0, lines + _indent(extended)
    lines = [f"{op}: rejected at every feature level; at {NEWEST.label} it breaks "
             f"{len(newest)} rule(s):"] + _indent(newest)
    if not extended:
        lines.append(f"{op}: {ext_text} (dmlcpu's feature_level=None)")
    elif extended == newest:
        lines.append(f"{op}: {ext_text} too, for the same rule(s)")
    else:
        lines.append(f"{op}: {ext_text} too, where it breaks {len(extended)} rule(s):")
        lines += _indent(extended)
    return 1, lines


def _field_list():
    """Each operator's fields, in DirectML's order, with the default of the optional ones."""
    lines = ["", "Fields of each operator:"]
    for record in R.OPERATORS.values():
        fields = [f.dml if f.required else f"{f.dml} (optional, {_default(f.default)})"
                  for f in record.fields]
        lines.append(f"  {record.name}: {', '.join(fields)}")
    return "\n".join(lines) + "\n"


def _default(value):
    return value.name if hasattr(value, "name") else json.dumps(value)


EXAMPLES = Path(__file__).parent / "examples"  # shipped in the wheel: --example NAME prints one


def example_names():
    return sorted(p.stem for p in EXAMPLES.glob("*.json"))


def _print_example(name):
    """The example file's text on stdout (status 0), or the known names on stderr (status 2)."""
    if name not in example_names():
        print(f"dmlcpu validate: no example {name!r}; the examples are "
              f"{', '.join(example_names())}", file=sys.stderr)
        return 2
    sys.stdout.write((EXAMPLES / f"{name}.json").read_text())
    return 0


def _parser():
    parser = argparse.ArgumentParser(
        prog="python -m dmlcpu validate",
        description="Say whether DirectML would accept the operator described in a JSON file.",
        epilog=__doc__.split("\n", 2)[2] + _field_list(),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", nargs="?", help="a JSON file describing one operator")
    parser.add_argument("--feature-level", metavar="L",
                        help="check at one level: 1_0 ... 6_4, or 'extended'")
    parser.add_argument("--example", metavar="NAME",
                        help="print an example file and exit: " + ", ".join(example_names()))
    return parser


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # argparse printed the usage; keep its status (0 for --help)
        return 0 if exit_.code == 0 else 2
    if args.example is not None:
        return _print_example(args.example)
    if args.file is None:
        parser.print_usage(sys.stderr)
        print("dmlcpu validate: a FILE (or --example NAME) is required", file=sys.stderr)
        return 2
    level_arg = None
    if args.feature_level is not None:
        if args.feature_level.strip().lower() in ("extended", "none"):
            level_arg = "extended"
        else:
            try:
                level_arg = parse_feature_level(args.feature_level)
            except InvalidArgumentError as error:
                print(f"dmlcpu validate: {error}", file=sys.stderr)
                return 2
    try:
        text = read_text(args.file)
    except OSError as error:
        print(f"dmlcpu validate: cannot read {args.file}: {error.strerror or error}",
              file=sys.stderr)
        return 2
    except (UnicodeDecodeError, Unreadable) as error:
        what = "is unreadable" if isinstance(error, Unreadable) else "is not UTF-8 text"
        print(f"dmlcpu validate: {args.file} {what}: {error}", file=sys.stderr)
        return 2
    try:
        obj, unread = parse_json(text), None
    except DuplicateKeyError as error:
        print(f"dmlcpu validate: {args.file}: {error}", file=sys.stderr)
        return 2
    except (json.JSONDecodeError, Unreadable) as error:
        obj, unread = None, error
    if unread is not None or isinstance(obj, dict) and "dispatchables" in obj:
        # A DxDispatch model (its own dialect: comments, trailing commas): each dispatchable,
        # from the text already read (a stream cannot be read twice).
        from .dispatch import validate_model
        try:
            model = parse_model_text(text)
        except ModelFileError as error:
            model = None
            if isinstance(unread, json.JSONDecodeError) and text.startswith(("//", "/*"),
                                                                            unread.pos):
                # strict JSON stopped at a comment: the file is meant as a model
                print(f"dmlcpu validate: {args.file}: {error}", file=sys.stderr)
                return 2
        if isinstance(model, dict) and isinstance(model.get("dispatchables"), dict):
            return validate_model(args.file, model, level_arg, report)
    if isinstance(unread, Unreadable):
        print(f"dmlcpu validate: {args.file} is unreadable: {unread}", file=sys.stderr)
        return 2
    if unread is not None:
        print(f"dmlcpu validate: {args.file} is not valid JSON: {unread}", file=sys.stderr)
        return 2
    try:
        desc = parse_operator(obj)
    except (FormatError, TypeError) as error:
        print(f"dmlcpu validate: {args.file}: {error}", file=sys.stderr)
        return 2
    status, lines = report(desc, level_arg)
    print("\n".join(lines))
    return status


if __name__ == "__main__":
    sys.exit(main())
