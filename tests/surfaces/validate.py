"""Validates a JSON document (stdin) against a JSON Schema file with the `jsonschema` package.

usage: python validate.py <schema.json> < document.json   (exit 0 valid, 1 invalid: errors printed)
"""
import json
import sys

import jsonschema

schema = json.load(open(sys.argv[1], encoding="utf-8"))
doc = json.load(sys.stdin)
cls = jsonschema.validators.validator_for(schema)
cls.check_schema(schema)
errors = sorted(cls(schema).iter_errors(doc), key=lambda e: list(e.path))
for e in errors:
    print("/".join(str(p) for p in e.path), e.message)
sys.exit(1 if errors else 0)
