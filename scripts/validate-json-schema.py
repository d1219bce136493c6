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

Besides draft 2020-12, the two keywords the schemas give a date's range in, `formatMinimum` and
`formatMaximum` (from the vocabulary of the ajv-formats validator; draft 2020-12 leaves date
ranges to such extensions), are checked, with Python's own ISO 8601 reader: a date-time string
earlier than formatMinimum or later than formatMaximum is invalid.
"""
import datetime
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


def make_validator(schema):
    jsonschema.Draft202012Validator.check_schema(schema)
    extended = jsonschema.validators.extend(
        jsonschema.Draft202012Validator,
        {"formatMinimum": date_bound(True), "formatMaximum": date_bound(False)},
    )
    return extended(schema)


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
        schema = json.load(file)
    validator = make_validator(schema)
    if lines:
        with open(arguments[1], encoding="utf-8") as file:
            for number, line in enumerate(file, start=1):
                problem = verdict(validator, json.loads(line))
                print(f"invalid {number}{problem}" if problem else f"valid {number}")
        return 0
    for path in arguments[1:]:
        with open(path, encoding="utf-8") as file:
            document = json.load(file)
        problem = verdict(validator, document)
        print(f"invalid {path}{problem}" if problem else f"valid {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
