"""Reading a DxDispatch model file: JSON as DxDispatch's RapidJSON settings accept it.

DxDispatch parses with comments (``//`` and ``/* */``) and trailing commas allowed, stops after
the first complete value (anything after it is ignored) and rejects ``NaN``/``Infinity``
literals (non-finite floats are written as strings) and numbers beyond a double's range.
Python's json module takes neither comments, trailing commas nor a value with text after it:
a file that is not plain JSON has its comments and trailing commas blanked out (keeping every
offset, so error positions still point into the file), and the value is read with
``raw_decode``.

Bounds: the file is read up to ``MAX_MODEL_BYTES``; deeper nesting than Python's recursion limit
and integer literals beyond Python's digit limit are reported as an unreadable file, like any
other syntax error. A key given twice in one object is refused (RapidJSON would silently use the
first).
"""
import json
import re

from .._errors import ModelFileError

MAX_MODEL_BYTES = 64 * 2**20


# Strings (kept whole, so nothing inside them is touched), comments, an unclosed comment, and a
# comma whose next token (past blanks and whole comments) closes an array or object. Inside the
# look-ahead a comment must run to its end (a line comment to its newline, a block comment to
# its first */), or a "}" inside a comment would pass for the closing bracket.
_LINE_COMMENT, _BLOCK_COMMENT = r"//[^\n]*", r"/\*(?:[^*]|\*(?!/))*\*/"
_DIALECT = re.compile(rf'"(?:[^"\\]|\\.)*"|{_LINE_COMMENT}|{_BLOCK_COMMENT}|/\*'
                      rf'|,(?=(?:\s|{_LINE_COMMENT}\n|{_BLOCK_COMMENT})*[\]}}])')


def _blank(match):
    token = match.group()
    if token[0] == '"':
        return token
    if token == "/*":
        raise ModelFileError(f"a /* comment at character {match.start()} is never closed")
    return re.sub(r"[^\n]", " ", token)  # the same length: error offsets stay true


def _blank_comments_and_trailing_commas(text):
    """text with comments and trailing commas replaced by spaces (strings left alone)."""
    return _DIALECT.sub(_blank, text)


def _reject_constant(name):
    raise ValueError(f"{name} is not JSON (DxDispatch writes non-finite floats as strings: "
                     f"\"nan\", \"inf\", \"-inf\")")


def _no_duplicate_keys(pairs):
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise ValueError(f"key {key!r} appears twice in one object (DxDispatch would use "
                             f"the first and ignore the second)")
        obj[key] = value
    return obj


def _finite_float(text):
    value = float(text)
    if value in (float("inf"), float("-inf")):  # RapidJSON: "Number too big to be stored"
        raise ValueError(f"{text[:20]} is too big to be stored in a double")
    return value


_DECODER = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_finite_float,
                            object_pairs_hook=_no_duplicate_keys)


def parse_model_text(text):
    """The first JSON value in text, read the way DxDispatch reads a model."""
    def first_value(text):
        return _DECODER.raw_decode(text, len(text) - len(text.lstrip()))[0]

    try:
        try:
            return first_value(text)  # most models are plain JSON
        except json.JSONDecodeError:
            return first_value(_blank_comments_and_trailing_commas(text))
    except json.JSONDecodeError as error:
        raise ModelFileError(f"not valid JSON: {error}") from None
    except (ValueError, RecursionError) as error:
        # int() beyond sys.get_int_max_str_digits, a NaN literal, a duplicate key, deep nesting
        text = "nested too deeply" if isinstance(error, RecursionError) else str(error)
        raise ModelFileError(f"not valid JSON: {text}") from None


def read_model_file(path):
    """The parsed model in the file at path (OSError if it cannot be opened)."""
    path = str(path)
    if not path.endswith(".json"):
        raise ModelFileError("a DxDispatch model's file name must end in .json")
    with open(path, "rb") as handle:
        data = handle.read(MAX_MODEL_BYTES + 1)
    if len(data) > MAX_MODEL_BYTES:
        raise ModelFileError(f"larger than {MAX_MODEL_BYTES} bytes, the most dmlcpu reads")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ModelFileError(f"not UTF-8 text: {error}") from None
    return parse_model_text(text)
