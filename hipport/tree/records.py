"""A FileResult as plain tuples, for the trip back from a worker and into the cache.

Pickle takes a slotted dataclass apart and puts it back together in Python,
one field at a time, for every Edit and Finding: that was most of what a
worker's result and a cache entry cost to send and to read back. Tuples of
builtins go through pickle's C code, and each object is rebuilt with one call.
The record leaves out the source (whoever unpacks it has it already) and an
output that is the source unchanged.
"""
from __future__ import annotations

import dataclasses
from collections import Counter
from operator import attrgetter

from hipport.diagnostics import Applicability, Edit, Finding, Severity
from hipport.rules.engine import FileResult

_RESULT = tuple(f.name for f in dataclasses.fields(FileResult))
_EDIT = tuple(f.name for f in dataclasses.fields(Edit))
_FINDING = tuple(f.name for f in dataclasses.fields(Finding))
_COUNTERS = frozenset(f.name for f in dataclasses.fields(FileResult) if f.type in ("Counter", Counter))
_BY_ITSELF = ("source", "output", "edits", "findings", *_COUNTERS)
_PLAIN = tuple(name for name in _RESULT if name not in _BY_ITSELF)
_get_plain = attrgetter(*_PLAIN) if len(_PLAIN) > 1 else (lambda r: (getattr(r, _PLAIN[0]),))
_get_edit = attrgetter(*_EDIT)
_get_finding = attrgetter(*_FINDING)
_SEVERITY = _FINDING.index("severity")
_APPLICABILITY = _FINDING.index("applicability")
_SEVERITIES = {s.value: s for s in Severity}
_APPLICABILITIES = {a.value: a for a in Applicability}
_COUNTER_NAMES = tuple(sorted(_COUNTERS))

# A record written for other classes must not be read back: the cache key includes this.
LAYOUT = repr(("records-1", _RESULT, _EDIT, _FINDING, _COUNTER_NAMES))


def pack(result: FileResult) -> tuple:
    changed = result.changed
    findings = []
    for finding in result.findings:
        values = list(_get_finding(finding))
        values[_SEVERITY] = values[_SEVERITY].value
        if values[_APPLICABILITY] is not None:
            values[_APPLICABILITY] = values[_APPLICABILITY].value
        findings.append(tuple(values))
    return (
        result.output if changed else None,
        [_get_edit(edit) for edit in result.edits],
        findings,
        tuple(dict(getattr(result, name)) for name in _COUNTER_NAMES),
        _get_plain(result),
    )


def unpack(record: tuple, source: bytes) -> FileResult:
    output, edits, findings, counters, plain = record
    fields = dict(zip(_PLAIN, plain))
    fields.update(zip(_COUNTER_NAMES, map(Counter, counters)))
    rebuilt = []
    for values in findings:
        values = list(values)
        values[_SEVERITY] = _SEVERITIES[values[_SEVERITY]]
        if values[_APPLICABILITY] is not None:
            values[_APPLICABILITY] = _APPLICABILITIES[values[_APPLICABILITY]]
        rebuilt.append(Finding(*values))
    return FileResult(source=source, output=source if output is None else output,
                      edits=[Edit(*values) for values in edits], findings=rebuilt, **fields)
