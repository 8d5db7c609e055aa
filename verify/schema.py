"""The JSON report of `streamproof verify --report=json`: schema `streamproof.verify.report`,
version 1 (a JSON Schema, draft 2020-12 subset), and a small validator for it.

Top level: `schema`, `version`, `file`, `status` ("proved" | "violated" | "unknown"), `smt`,
`seconds`, `summary` (obligation counts: `obligations`, `by_reachability`, `by_constant`,
`by_z3`, `z3_queries`, `violations`, `warnings`, `unknown`), `functions` (one entry per function),
`violations` and `unknowns`. A violation has `class` (SPEC §3.3 name; the enum comes from the
records of `verify.properties`), `severity`, `function`, `message`, `location` (`file`, `line`,
`col`), `ops` (each `role`, `text`, `location`, `context`), `allocation` (`name`, `kind`, `location`, or null), `bytes` ([lo, hi) or null),
`symbols` (name -> concrete value from the Z3 model), `introduced_by`, `pre_existing`, `rule`,
`duplicates`, `notes` and `witness` (null, or `steps`: `step`, `lane`, `event`, `op`, `detail`,
plus `omitted_common_events`). Fields are only ever added in a new version.

With `--split-input-file` and several chunks the output is `streamproof.verify.reports`, version
1: `{"schema", "version", "reports": [one report per chunk, in input order]}` (`REPORTS_SCHEMA`).
"""

from __future__ import annotations

from typing import Any

from verify.properties import PROPERTIES

__all__ = ["REPORT_SCHEMA", "REPORTS_SCHEMA", "validate", "SchemaError"]

_LOC = {"type": "object", "required": ["file", "line", "col"], "properties": {
    "file": {"type": "string"}, "line": {"type": "integer"}, "col": {"type": "integer"}}}

# The classes and severities come from their records (verify.properties).
_CLASS = {"enum": [p.name for p in PROPERTIES]}
_SEVERITY = {"enum": sorted({p.severity for p in PROPERTIES})}

_VIOLATION = {"type": "object", "required": [
    "class", "severity", "function", "message", "location", "ops", "allocation", "bytes", "symbols", "introduced_by",
    "pre_existing", "rule", "duplicates", "notes", "witness"], "properties": {
    "class": _CLASS,
    "severity": _SEVERITY,
    "function": {"type": "string"},
    "message": {"type": "string"},
    "location": _LOC,
    "ops": {"type": "array", "items": {"type": "object", "required": ["role", "text", "location", "context"], "properties": {
        "role": {"type": "string"}, "text": {"type": "string"}, "location": _LOC, "context": {"type": "string"}}}},
    "allocation": {"type": ["object", "null"], "required": ["name", "kind", "location"], "properties": {
        "name": {"type": "string"}, "kind": {"type": "string"}, "location": _LOC}},
    "bytes": {"type": ["array", "null"], "items": {"type": "integer"}},
    "symbols": {"type": "object", "additionalProperties": {"type": "integer"}},
    "introduced_by": {"type": ["string", "null"]},
    "pre_existing": {"type": "boolean"},
    "rule": {"type": "string"},
    "duplicates": {"type": "integer"},
    "notes": {"type": "array", "items": {"type": "string"}},
    "witness": {"type": ["object", "null"], "required": ["steps", "omitted_common_events"], "properties": {
        "omitted_common_events": {"type": "integer"},
        "steps": {"type": "array", "items": {"type": "object", "required": ["step", "lane", "event", "op", "detail"], "properties": {
            "step": {"type": "integer"}, "lane": {"type": "string"}, "event": {"type": "string"}, "op": {"type": "string"},
            "detail": {"type": "string"}}}}}},
}}

REPORT_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "streamproof.verify.report/1",
    "type": "object",
    "required": ["schema", "version", "file", "status", "smt", "seconds", "summary", "functions", "violations", "unknowns"],
    "properties": {
        "schema": {"const": "streamproof.verify.report"},
        "version": {"const": 1},
        "file": {"type": "string"},
        "status": {"enum": ["proved", "violated", "unknown"]},
        "smt": {"enum": ["pruned", "full"]},
        "seconds": {"type": "number"},
        "summary": {"type": "object", "required": [
            "obligations", "by_reachability", "by_constant", "by_z3", "z3_queries", "violations", "warnings", "unknown"],
            "additionalProperties": {"type": "integer"}},
        "functions": {"type": "array", "items": {"type": "object", "required": ["name", "level", "obligations", "seconds", "note"]}},
        "violations": {"type": "array", "items": _VIOLATION},
        "unknowns": {"type": "array", "items": {"type": "object", "required": ["function", "class", "location", "reason"],
                                                "properties": {"class": _CLASS}}},
    },
}

# `--split-input-file` with more than one chunk: one report per chunk, in input order.
REPORTS_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "streamproof.verify.reports/1",
    "type": "object",
    "required": ["schema", "version", "reports"],
    "properties": {
        "schema": {"const": "streamproof.verify.reports"},
        "version": {"const": 1},
        "reports": {"type": "array", "items": REPORT_SCHEMA},
    },
}


class SchemaError(ValueError):
    pass


_TYPES: dict[str, type | tuple[type, ...]] = {
    "object": dict, "array": list, "string": str, "integer": int, "number": (int, float), "boolean": bool, "null": type(None),
}


def validate(value: Any, schema: dict[str, Any] = REPORT_SCHEMA, path: str = "$") -> None:
    """Raise SchemaError where `value` breaks `schema` (type, required, properties, items,
    additionalProperties, enum, const: the subset REPORT_SCHEMA uses)."""
    if "const" in schema and value != schema["const"]:
        raise SchemaError(f"{path}: expected {schema['const']!r}, found {value!r}")
    if "enum" in schema and value not in schema["enum"]:
        raise SchemaError(f"{path}: {value!r} is not one of {schema['enum']}")
    types = schema.get("type")
    if types is not None:
        names = types if isinstance(types, list) else [types]
        ok = any(isinstance(value, _TYPES[t]) and not (t in ("integer", "number") and isinstance(value, bool)) for t in names)
        if not ok:
            raise SchemaError(f"{path}: expected {' or '.join(names)}, found {type(value).__name__}")
    if isinstance(value, dict):
        for key in schema.get("required", ()):
            if key not in value:
                raise SchemaError(f"{path}: missing '{key}'")
        props = schema.get("properties", {})
        for key, item in value.items():
            if key in props:
                validate(item, props[key], f"{path}.{key}")
            elif isinstance(schema.get("additionalProperties"), dict):
                validate(item, schema["additionalProperties"], f"{path}.{key}")
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            validate(item, schema["items"], f"{path}[{i}]")
