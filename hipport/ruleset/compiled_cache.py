"""The compiled rule set on disk: how a RuleSet is pickled for the next start and read back.

The loader (hipport.ruleset.loader) decides when the cache is valid; this module only says
how its records are written and rebuilt, fast and with nothing but the rule set's own classes.
"""

from __future__ import annotations

import functools
import io
import os
import pickle
from collections.abc import Mapping
from pathlib import Path

from hipport.cache_files import RestrictedUnpickler, allowed_globals
from hipport.ruleset.argrules import ArgumentRule
from hipport.ruleset.lintrules import RewriteRule, StructuralLint
from hipport.ruleset.model import (
    BlockPrimitive,
    CodeInfo,
    HeaderRule,
    LibraryNeed,
    LintRule,
    MacroRule,
    MemberAccessor,
    NameRule,
    NamespaceRule,
    Origin,
    RuleSet,
    RuleTest,
    WrapRule,
)


def _store(cache_file: Path, ruleset: RuleSet) -> None:
    import tempfile

    try:
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=cache_file.parent, prefix=".rules-")
        with os.fdopen(fd, "wb") as f:
            _CachePickler(f, protocol=pickle.HIGHEST_PROTOCOL).dump(ruleset)
        os.replace(tmp, cache_file)
    except OSError:
        pass  # a read-only home only costs speed


# The cache is read on every start, so its ~9,000 frozen rule records must load
# fast. Pickle's default path for a frozen slotted dataclass is a Python-level
# __setstate__ that goes through object.__setattr__ field by field: about 45 ms
# on this project's 2-core machine, most of a single-file run's rule loading.
# Storing each record as (class, field values) and setting the slots through
# their descriptors loads the same objects in about a third of the time.
_RECORDS = (
    NameRule,
    HeaderRule,
    NamespaceRule,
    WrapRule,
    LintRule,
    CodeInfo,
    RuleTest,
    Origin,
    LibraryNeed,
    MacroRule,
    RewriteRule,
    StructuralLint,
    ArgumentRule,
    MemberAccessor,
    BlockPrimitive,
)
_SETTERS: dict[type, tuple] = {cls: tuple(getattr(cls, name).__set__ for name in cls.__slots__) for cls in _RECORDS}


@functools.cache
def _build_globals() -> frozenset[tuple[str, str]]:
    """What the packed build-file tables may name; their record classes join _SETTERS."""
    from hipport.ruleset.build_rules import BUILD_RECORDS, BuildRules

    _SETTERS.update({cls: tuple(getattr(cls, name).__set__ for name in cls.__slots__) for cls in BUILD_RECORDS})
    return allowed_globals(*BUILD_RECORDS, BuildRules, _record)


class _CachePickler(pickle.Pickler):
    def reducer_override(self, obj):
        cls = type(obj)
        if cls in _SETTERS:
            return _record, (cls, tuple(getattr(obj, name) for name in cls.__slots__))
        if cls is RuleSet:
            state = obj.__getstate__()
            state["names"] = {
                name: tuple(getattr(rule, slot) for slot in NameRule.__slots__) for name, rule in state["names"].items()
            }
            _build_globals()  # the build records are records too
            packed = io.BytesIO()
            _CachePickler(packed, protocol=pickle.HIGHEST_PROTOCOL).dump(state.pop("build"))
            return _ruleset, (state, packed.getvalue())
        return NotImplemented


def _ruleset(state: dict, build: bytes) -> RuleSet:
    """A rule set from the cache: its name rules are made when looked up (NameTable), and its
    build-file tables are unpacked when first used."""
    names = state["names"]
    if not isinstance(names, dict) or any(len(values) != len(NameRule.__slots__) for values in names.values()):
        raise pickle.UnpicklingError("stale rule cache: NameRule has changed")
    state["names"] = NameTable(names)
    ruleset = object.__new__(RuleSet)
    ruleset.__setstate__(state)
    ruleset.__dict__["_build_loader"] = functools.partial(_unpack_build, build)
    return ruleset


class NameTable(Mapping):
    """CUDA name -> NameRule, each rule made from its stored field values when first looked up.

    The rule cache is read on every start, and making its ~9,000 NameRule objects
    was most of that, when a hook's check looks up a few dozen names. A lookup costs
    some 20 ns more than a dict's (the engine's thousands per file are noise next
    to the porting); each rule made is kept.
    """

    __slots__ = ("_stored", "_made")

    def __init__(self, stored: dict[str, tuple]) -> None:
        self._stored = stored
        self._made: dict[str, NameRule] = {}

    def __getitem__(self, name: str) -> NameRule:
        rule = self._made.get(name)
        if rule is None:
            rule = self._made[name] = _record(NameRule, self._stored[name])
        return rule

    def get(self, name: str, default=None):
        rule = self._made.get(name)
        if rule is None:
            values = self._stored.get(name)
            if values is None:
                return default
            rule = self._made[name] = _record(NameRule, values)
        return rule

    def __contains__(self, name) -> bool:
        return name in self._stored

    def __iter__(self):
        return iter(self._stored)

    def __len__(self) -> int:
        return len(self._stored)

    def __repr__(self) -> str:
        return f"NameTable({len(self._stored)} names)"

    def __reduce__(self):
        return dict, (dict(self.items()),)  # elsewhere (a worker spawned, not forked): a plain dict


def _unpack_build(packed: bytes):
    from hipport.ruleset.build_rules import BuildRules

    build = RestrictedUnpickler(io.BytesIO(packed), _build_globals()).load()
    if not isinstance(build, BuildRules):
        raise pickle.UnpicklingError("the rule cache's build-file tables are not BuildRules")
    return build


def _load_cache(f):
    import gc

    # Thousands of new objects would trigger collections that find no garbage.
    enabled = gc.isenabled()
    gc.disable()
    try:
        # Only the rule set's own classes resolve: see hipport/cache_files.py.
        return RestrictedUnpickler(f, _CACHE_GLOBALS).load()  # rule records come back through _record()
    finally:
        if enabled:
            gc.enable()


def _cache_globals() -> frozenset[tuple[str, str]]:
    from re import _compile  # type: ignore[attr-defined]  # how pickle rebuilds the compiled patterns a LintIndex holds

    from hipport.ruleset.codes import CodeTables
    from hipport.ruleset.dialects import Dialect, DialectLayer
    from hipport.ruleset.lintrules import LintIndex

    return allowed_globals(*_RECORDS, LintIndex, Dialect, DialectLayer, CodeTables, _record, _ruleset, _compile)


def _record(cls, values: tuple):
    setters = _SETTERS[cls]
    if len(values) != len(setters):
        raise pickle.UnpicklingError(f"stale rule cache: {cls.__name__} has changed")
    obj = object.__new__(cls)
    for setter, value in zip(setters, values):
        setter(obj, value)
    return obj


_CACHE_GLOBALS = _cache_globals()
