#!/usr/bin/env python3
"""Validates JSON documents against a JSON Schema (draft 2020-12) with the `jsonschema` package:
the independent validator of the schemas AppSettings writes (`AppSettingsObject.jsonSchema()`).

usage: validate-json-schema.py SCHEMA DOCUMENT...
       validate-json-schema.py --lines SCHEMA FILE

Checks the schema itself against the draft 2020-12 metaschema, then prints one line per document:
"valid PATH" or "invalid PATH: <the validator's first message>". With --lines, FILE holds one
document per line, and each verdict names its line number from 1 ("valid 3"). Exit status: 0 when
the schema is a valid schema (whatever the documents), 3 when the jsonschema package is missing,
1 otherwise.

Numbers are read exactly, as JSON Schema defines them (mathematical values, not floating point):
decimals as Python's Decimal, so that `1.00000000000000000001` is no integer and
`3.40282350000000001e38` is above a maximum of `3.4028235e+38`; an integer-valued decimal (`5.0`,
`1.234567890123456789e18`) is an integer.

Besides draft 2020-12, the two keywords the schemas give a date's range in, `formatMinimum` and
`formatMaximum` (from the vocabulary of the ajv-formats validator; draft 2020-12 leaves date
ranges to such extensions), are checked, with Python's own ISO 8601 reader: a date-time string
earlier than formatMinimum or later than formatMaximum is invalid.
"""
import datetime
import decimal
import json
import sys

try:
    import jsonschema
except ImportError:
    print("the Python package jsonschema is not installed (pip install jsonschema)", file=sys.stderr)
    sys.exit(3)


def parsed_date(text):
    """The moment an ISO 8601 date-time names (RFC 3339's lowercase t and z allowed), or None."""
    if not isinstance(text, str):
        return None
    if text.startswith("0000-"):
        # Year 0 (1 BC), which RFC 3339 allows and Python's datetime cannot hold: earlier than
        # every moment it can.
        return datetime.datetime.min.replace(tzinfo=datetime.timezone.utc)
    try:
        moment = datetime.datetime.fromisoformat(text.upper().replace(",", "."))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


def date_bound(is_minimum):
    def check(validator, bound, instance, schema):
        moment, limit = parsed_date(instance), parsed_date(bound)
        if moment is None or limit is None:
            return
        if (moment < limit) if is_minimum else (moment > limit):
            side = "earlier" if is_minimum else "later"
            yield jsonschema.ValidationError(f"{instance!r} is {side} than {bound!r}")

    return check


def is_integer(checker, instance):
    """An integer, or a number whose exact value is one (`5.0`, `5e0`)."""
    if isinstance(instance, bool):
        return False
    if isinstance(instance, int):
        return True
    if isinstance(instance, float):
        return instance.is_integer()
    return isinstance(instance, decimal.Decimal) and instance.is_finite() and instance == instance.to_integral_value()


def make_validator(schema):
    jsonschema.Draft202012Validator.check_schema(schema)
    types = jsonschema.Draft202012Validator.TYPE_CHECKER.redefine("integer", is_integer)
    extended = jsonschema.validators.extend(
        jsonschema.Draft202012Validator,
        {"formatMinimum": date_bound(True), "formatMaximum": date_bound(False)},
        type_checker=types,
    )
    return extended(schema)


def read(text):
    """A JSON value with its numbers exact (decimals as Decimal)."""
    return json.loads(text, parse_float=decimal.Decimal)


def verdict(validator, document):
    errors = sorted(validator.iter_errors(document), key=lambda error: list(error.absolute_path))
    return f": {errors[0].message}" if errors else None


def main(arguments):
    lines = arguments[:1] == ["--lines"]
    if lines:
        arguments = arguments[1:]
    if len(arguments) < 1 or (lines and len(arguments) != 2):
        print(__doc__, file=sys.stderr)
        return 2
    with open(arguments[0], encoding="utf-8") as file:
        schema = read(file.read())
    validator = make_validator(schema)
    if lines:
        with open(arguments[1], encoding="utf-8") as file:
            for number, line in enumerate(file, start=1):
                problem = verdict(validator, read(line))
                print(f"invalid {number}{problem}" if problem else f"valid {number}")
        return 0
    for path in arguments[1:]:
        with open(path, encoding="utf-8") as file:
            document = read(file.read())
        problem = verdict(validator, document)
        print(f"invalid {path}{problem}" if problem else f"valid {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
