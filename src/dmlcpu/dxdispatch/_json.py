"""Reading a DxDispatch model file: JSON as DxDispatch's RapidJSON settings accept it.

DxDispatch parses with comments (``//`` and ``/* */``) and trailing commas allowed, stops after
the first complete value (anything after it is ignored, with or without comments in the model,
whatever it holds: an unclosed comment, a stray quote) and rejects ``NaN``/``Infinity``
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
_DIALECT = re.compile(rf'"(?:[^"\\]|\\.)*"|{_LINE_COMMENT}|{_BLOCK_COMMENT}|/\*[\s\S]*'
                      rf'|,(?=(?:\s|{_LINE_COMMENT}\n|{_BLOCK_COMMENT})*[\]}}])')


def _blank(match):
    token = match.group()
    if token[0] == '"':
        return token
    return re.sub(r"[^\n]", " ", token)  # the same length: error offsets stay true


def _blank_comments_and_trailing_commas(text):
    """(text with comments and trailing commas replaced by spaces, strings left alone; where
    a /* comment that is never closed starts, or None). An unclosed comment runs to the end."""
    unclosed = []

    def blank(match):
        if match.group().startswith("/*") and not match.group().endswith("*/"):
            unclosed.append(match.start())
        return _blank(match)
    return _DIALECT.sub(blank, text), (unclosed[0] if unclosed else None)


def _reject_constant(name):
    raise ValueError(f"{name} is not JSON (DxDispatch writes non-finite floats as strings: "
                     f"\"nan\", \"inf\", \"-inf\")")


class DuplicateKeyError(ValueError):
    """A JSON object gives one key twice (``python -m dmlcpu validate`` refuses it too)."""


def refuse_duplicate_keys(pairs, note=""):
    """json's object_pairs_hook: the object as a dict, or DuplicateKeyError naming the key."""
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise DuplicateKeyError(f"key {key!r} appears twice in one object{note}")
        obj[key] = value
    return obj


def _no_duplicate_keys(pairs):
    return refuse_duplicate_keys(pairs, " (DxDispatch would use the first and ignore the "
                                        "second)")


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
            blanked, unclosed = _blank_comments_and_trailing_commas(text)
            try:
                return first_value(blanked)
            except json.JSONDecodeError as error:
                if unclosed is not None and error.pos >= unclosed:
                    raise ModelFileError(f"a /* comment at character {unclosed} is never "
                                         f"closed") from None
                raise
    except json.JSONDecodeError as error:
        raise ModelFileError(f"not valid JSON: {error}") from None
    except (ValueError, RecursionError) as error:
        # int() beyond sys.get_int_max_str_digits, a NaN literal, a duplicate key, deep nesting
        text = "nested too deeply" if isinstance(error, RecursionError) else str(error)
        raise ModelFileError(f"not valid JSON: {text}") from None


_CHUNK = 1 << 16


def read_at_most(handle, limit):
    """Up to limit + 1 bytes of a binary file (limit + 1: it holds more than limit), read in
    chunks: ``handle.read(limit + 1)`` would allocate limit + 1 bytes before reading any."""
    data = bytearray()
    while len(data) <= limit:
        chunk = handle.read(min(_CHUNK, limit + 1 - len(data)))
        if not chunk:
            break
        data += chunk
    return data


def read_model_file(path):
    """The parsed model in the file at path (OSError if it cannot be opened)."""
    path = str(path)
    if not path.endswith(".json"):
        raise ModelFileError("a DxDispatch model's file name must end in .json")
    with open(path, "rb") as handle:
        data = read_at_most(handle, MAX_MODEL_BYTES)
    if len(data) > MAX_MODEL_BYTES:
        raise ModelFileError(f"larger than {MAX_MODEL_BYTES} bytes, the most dmlcpu reads")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ModelFileError(f"not UTF-8 text: {error}") from None
    return parse_model_text(text)
