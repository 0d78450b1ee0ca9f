"""Load rule files into a RuleSet, through a cache keyed on their contents.

Order of precedence, lowest first: rules/generated/*.toml (from the reference
CSVs), rules/*.toml (hand-written), then user files given with --rules. A later
rule for the same CUDA name replaces an earlier one.
"""
from __future__ import annotations

import hashlib
import os
import pickle
from pathlib import Path

from hipport import __version__
from hipport.buildfiles.rules import BUILD_RECORDS
from hipport.cache_files import RestrictedUnpickler, allowed_globals, open_private
from hipport.rules.ruleset import (
    CodeInfo, HeaderRule, LintRule, NameRule, NamespaceRule, Origin, RuleSet, RuleTest, WrapRule,
)
from hipport.rules.lintrules import RewriteRule, StructuralLint, make_lint, make_rewrite
from hipport.rules.schema import RuleFileError, check_shape, validate

# The largest built-in rule file is under 300 KB; a user's can be far bigger, but not unbounded.
MAX_RULE_FILE_BYTES = 16 << 20
_NAME_FIELDS = set(NameRule.__slots__) - {"cuda", "hip", "library", "kind", "section", "origin"}


def builtin_rules_dir() -> Path:
    """rules/ beside the package in a checkout, or the copy packed into a wheel."""
    here = Path(__file__).resolve().parent.parent
    for candidate in (here / "_rules", here.parent / "rules"):
        if (candidate / "codes.toml").is_file():
            return candidate
    raise FileNotFoundError("hipport's built-in rules/ directory is missing from this installation")


def builtin_rule_files() -> list[Path]:
    root = builtin_rules_dir()
    return sorted((root / "generated").glob("*.toml")) + sorted(root.glob("*.toml"))


def _cache_dir() -> Path:
    base = os.environ.get("HIPPORT_CACHE_DIR") or os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "hipport"


def load_rules(user_files: list[Path] | tuple[Path, ...] = (), use_cache: bool = True) -> RuleSet:
    files = [(p, True) for p in builtin_rule_files()] + [(Path(p), False) for p in user_files]
    blobs = []
    for path, _ in files:
        try:
            blobs.append(read_rule_file(path))
        except OSError as exc:
            raise RuleFileError(str(path), 0, f"cannot read rule file: {exc.strerror}") from None
    digest = hashlib.sha256(__version__.encode())
    digest.update(_RECORD_LAYOUT)
    for (path, builtin), blob in zip(files, blobs):
        digest.update(f"{builtin}:{path.name}:{len(blob)}\0".encode())
        digest.update(blob)
    key = digest.hexdigest()

    cache_file = _cache_dir() / f"rules-{key[:32]}.pickle"
    if use_cache:
        try:
            with open_private(cache_file) as f:
                cached = _load_cache(f)
            if isinstance(cached, RuleSet) and cached.digest == key:
                return cached
        except Exception:  # a missing, stale, corrupt or someone else's cache is rebuilt
            pass

    ruleset = RuleSet(digest=key)
    for (path, builtin), blob in zip(files, blobs):
        _merge(ruleset, path, blob, builtin)
    ruleset.finish()
    if use_cache:
        _store(cache_file, ruleset)
    return ruleset


def read_rule_file(path: Path) -> bytes:
    with open(path, "rb") as f:
        blob = f.read(MAX_RULE_FILE_BYTES + 1)  # bounded: --rules /dev/zero must not eat the memory
    if len(blob) > MAX_RULE_FILE_BYTES:
        raise RuleFileError(str(path), 1, f"rule file is larger than {MAX_RULE_FILE_BYTES >> 20} MiB")
    return blob


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
_RECORDS = (NameRule, HeaderRule, NamespaceRule, WrapRule, LintRule, CodeInfo, RuleTest, Origin,
            RewriteRule, StructuralLint, *BUILD_RECORDS)
# A cache written for another layout of these classes must not be read back.
_RECORD_LAYOUT = repr([(cls.__name__, cls.__slots__) for cls in _RECORDS]).encode()
_SETTERS = {cls: tuple(getattr(cls, name).__set__ for name in cls.__slots__) for cls in _RECORDS}


class _CachePickler(pickle.Pickler):
    def reducer_override(self, obj):
        cls = type(obj)
        if cls in _SETTERS:
            return _record, (cls, tuple(getattr(obj, name) for name in cls.__slots__))
        return NotImplemented


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
    from re import _compile  # how pickle rebuilds the compiled patterns a LintIndex holds

    from hipport.buildfiles.rules import BuildRules
    from hipport.rules.lintrules import LintIndex

    return allowed_globals(*_RECORDS, RuleSet, LintIndex, BuildRules, _record, _compile)


def _record(cls, values: tuple):
    setters = _SETTERS[cls]
    if len(values) != len(setters):
        raise pickle.UnpicklingError(f"stale rule cache: {cls.__name__} has changed")
    obj = object.__new__(cls)
    for setter, value in zip(setters, values):
        setter(obj, value)
    return obj


_CACHE_GLOBALS = _cache_globals()


def parse_rule_file(path: Path, blob: bytes, trusted: bool = False) -> dict:
    """The validated data of a rule file; trusted (built-in) files skip the costly shape check."""
    display = str(path)
    if len(blob) > MAX_RULE_FILE_BYTES:
        raise RuleFileError(display, 1, f"rule file is larger than {MAX_RULE_FILE_BYTES >> 20} MiB")
    try:
        text = blob.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = blob[: exc.start].count(b"\n") + 1
        raise RuleFileError(display, line, "rule files must be UTF-8") from None
    import tomllib  # only on a cache miss, or to validate a file

    if not trusted:
        check_shape(text, display)  # before tomllib, which recurses and grows quadratically on deep nesting
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = getattr(exc, "lineno", None) or _toml_error_line(str(exc))
        raise RuleFileError(display, line, f"invalid TOML: {str(exc).split(' (at')[0]}") from None
    except RecursionError:
        raise RuleFileError(display, 1, "invalid TOML: nested too deeply") from None
    validate(data, text, display)
    return data


def _toml_error_line(message: str) -> int:
    import re

    m = re.search(r"line (\d+)", message)
    return int(m.group(1)) if m else 1


def _merge(ruleset: RuleSet, path: Path, blob: bytes, builtin: bool) -> None:
    data = parse_rule_file(path, blob, trusted=builtin)
    origin = Origin(str(path.name if builtin else path), builtin)
    library = data.get("library", "user" if not builtin else "")

    for entry in data.get("rename", []):
        extra = {k: v for k, v in entry.items() if k in _NAME_FIELDS}
        ruleset.names[entry["cuda"]] = NameRule(
            cuda=entry["cuda"], hip=entry["hip"], library=entry.get("library", library),
            kind=entry.get("kind", "name"), section=entry.get("section", ""), origin=origin, **extra,
        )
    for entry in data.get("unsupported", []):
        extra = {k: v for k, v in entry.items() if k in _NAME_FIELDS}
        ruleset.names[entry["cuda"]] = NameRule(
            cuda=entry["cuda"], hip=None, library=entry.get("library", library),
            kind=entry.get("kind", "name"), section=entry.get("section", ""), origin=origin, **extra,
        )
    for entry in data.get("header", []):
        ruleset.headers[entry["cuda"]] = HeaderRule(
            cuda=entry["cuda"], hip=entry.get("hip") or None, drop=entry.get("drop", False),
            library=entry.get("library", library), origin=origin, roc=entry.get("roc"),
            role=entry.get("role", "include"), hip_flat=entry.get("hip_flat"),
            roc_flat=entry.get("roc_flat"), dir_added=entry.get("dir_added"),
            flat_removed=entry.get("flat_removed"),
        )
    for entry in data.get("namespace", []):
        ruleset.namespaces[entry["cuda"]] = NamespaceRule(
            entry["cuda"], entry["hip"], entry.get("library", library), origin
        )
    for entry in data.get("wrap_argument", []):
        ruleset.wraps[entry["cuda"]] = WrapRule(entry["cuda"], entry["argument"], entry["wrapper"], origin)
    for entry in data.get("name_lint", []):
        ruleset.lints[entry["cuda"]] = LintRule(
            entry["cuda"], entry["code"], entry["message"], origin, entry.get("severity")
        )
    for entry in data.get("rewrite", []):
        ruleset.rewrites[entry["cuda"]] = make_rewrite(entry, origin)
    for entry in data.get("lint", []):
        ruleset.structural_lints.append(make_lint(len(ruleset.structural_lints), entry, origin))
    for entry in data.get("library_title", []):
        ruleset.library_titles[entry["library"]] = entry["title"]
        if "target_column" in entry:
            ruleset.target_columns[entry["library"]] = entry["target_column"]
    for entry in data.get("code", []):
        ruleset.codes[entry["code"]] = CodeInfo(**entry)
    if "markers" in data:
        ruleset.markers = ruleset.markers | frozenset(data["markers"])
    if "runtime_libraries" in data:
        ruleset.runtime_libraries = ruleset.runtime_libraries | frozenset(data["runtime_libraries"])
    if "patterns" in data:
        ruleset.unmapped_patterns = (*ruleset.unmapped_patterns, *data["patterns"])
    for key in ("runtime_include", "runtime_api_include"):
        if key in data:
            setattr(ruleset, key, data[key])
    text = blob.decode("utf-8")
    ruleset.build.merge(data, text, origin.path)
    test_lines = [n for n, line in enumerate(text.splitlines(), 1) if line.strip() == "[[test]]"]
    for index, entry in enumerate(data.get("test", [])):
        line = test_lines[index] if index < len(test_lines) else 1
        ruleset.tests.append(RuleTest(
            entry["before"], entry["after"], origin, line,
            tuple(entry.get("findings", ())), tuple(entry.get("args", ())),
        ))
