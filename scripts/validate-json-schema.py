#!/usr/bin/env python3
"""Validates JSON documents against a JSON Schema (draft 2020-12) with the `jsonschema` package:
the independent validator of the schemas AppSettings writes (`AppSettingsObject.jsonSchema()`).

usage: validate-json-schema.py SCHEMA DOCUMENT...

Checks the schema itself against the draft 2020-12 metaschema, then prints one line per document:
"valid PATH" or "invalid PATH: <the validator's first message>". Exit status: 0 when the schema is
a valid schema (whatever the documents), 3 when the jsonschema package is missing, 1 otherwise.
"""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("the Python package jsonschema is not installed (pip install jsonschema)", file=sys.stderr)
    sys.exit(3)


def main(arguments):
    if len(arguments) < 1:
        print(__doc__, file=sys.stderr)
        return 2
    with open(arguments[0], encoding="utf-8") as file:
        schema = json.load(file)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for path in arguments[1:]:
        with open(path, encoding="utf-8") as file:
            document = json.load(file)
        errors = sorted(validator.iter_errors(document), key=lambda error: list(error.absolute_path))
        if errors:
            print(f"invalid {path}: {errors[0].message}")
        else:
            print(f"valid {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
