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
import sys
from collections import Counter
from operator import attrgetter

from hipport.diagnostics import Applicability, Edit, Finding, Severity
from hipport.engine.port import FileResult

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
_CHANGED = _PLAIN.index("_changed")  # FileResult.release() keeps the answer of changed there

# A record written for other classes must not be read back: the cache key includes this.
LAYOUT = repr(("records-1", _RESULT, _EDIT, _FINDING, _COUNTER_NAMES))


def pack(result: FileResult) -> tuple:
    return (
        result.output if result.changed else None,
        [_get_edit(edit) for edit in result.edits],
        _pack_findings(result),
        tuple(dict(getattr(result, name)) for name in _COUNTER_NAMES),
        _get_plain(result),
    )


def _pack_findings(result: FileResult) -> list[tuple]:
    findings = []
    for finding in result.findings:
        values = list(_get_finding(finding))
        values[_SEVERITY] = values[_SEVERITY].value
        if values[_APPLICABILITY] is not None:
            values[_APPLICABILITY] = values[_APPLICABILITY].value
        findings.append(tuple(values))
    return findings


def pack_summary(result: FileResult) -> tuple:
    """What a report needs of a port, for the tree index: no bytes, and the edits' number only.

    The names counted recur across a tree's files: interned, each is pickled once per index."""
    plain = list(_get_plain(result))
    plain[_CHANGED] = result.changed
    counters = tuple(
        {_intern(name): count for name, count in getattr(result, field).items()} for field in _COUNTER_NAMES
    )
    return len(result.edits), _pack_findings(result), counters, tuple(plain)


def unpack_summary(summary: tuple) -> tuple[FileResult, int]:
    """A released FileResult (no source, output or edits; changed still answers) and its number of edits.

    A warm rerun makes one for every file of the tree: the counters are filled without
    Counter.__init__, which costs four times what the copy does."""
    count, findings, counters, plain = summary
    fields = dict(zip(_PLAIN, plain))
    for name, values in zip(_COUNTER_NAMES, counters):
        fields[name] = counter = _new_counter(Counter)
        _fill(counter, values)
    fields.update(source=b"", output=b"", edits=[], findings=_unpack_findings(findings) if findings else [])
    if _PLAIN_INIT:  # every field is in fields: the instance gets them without __init__'s keyword parsing
        result = _new_object(FileResult)
        result.__dict__ = fields
        return result, count
    return FileResult(**fields), count


_new_counter = Counter.__new__
_new_object = object.__new__
_fill = dict.update
_intern = sys.intern
_PLAIN_INIT = not hasattr(FileResult, "__post_init__") and not hasattr(FileResult, "__slots__")


def _unpack_findings(findings: list[tuple]) -> list[Finding]:
    rebuilt = []
    for packed in findings:
        values = list(packed)
        values[_SEVERITY] = _SEVERITIES[values[_SEVERITY]]
        if values[_APPLICABILITY] is not None:
            values[_APPLICABILITY] = _APPLICABILITIES[values[_APPLICABILITY]]
        rebuilt.append(Finding(*values))
    return rebuilt


def unpack(record: tuple, source: bytes) -> FileResult:
    output, edits, findings, counters, plain = record
    fields = dict(zip(_PLAIN, plain))
    fields.update(zip(_COUNTER_NAMES, map(Counter, counters)))
    return FileResult(
        source=source,
        output=source if output is None else output,
        edits=[Edit(*values) for values in edits],
        findings=_unpack_findings(findings),
        **fields,
    )
