"""Load rule files into a RuleSet, through a cache keyed on their contents.

Order of precedence, lowest first: rules/generated/*.toml (from the reference
CSVs), rules/*.toml (hand-written), then user files given with --rules. A later
rule for the same CUDA name replaces an earlier one.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from hipport.identity import code_identity
from hipport.cache_files import open_private
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
from hipport.ruleset.argrules import ArgumentRule, make_argument_rule
from hipport.ruleset.lintrules import make_lint, make_rewrite
from hipport.ruleset.compiled_cache import _load_cache, _store
from hipport.ruleset.schema import RuleFileError, check_shape, validate

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
    # The code identity covers the record classes' layout too: any edit to their modules changes it.
    digest = hashlib.sha256(code_identity().encode())
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
    if "dialect" in data:  # its own layer, applied to the code the dialect recognises
        from hipport.ruleset.dialects import add_layer

        layer = RuleSet()
        _merge_data(layer, data, blob, origin, library)
        add_layer(ruleset, data, layer)
        ruleset.tests.extend(layer.tests)
        return
    _merge_data(ruleset, data, blob, origin, library)


def _merge_data(ruleset: RuleSet, data: dict, blob: bytes, origin: Origin, library: str) -> None:
    """Add one rule file's data to ruleset, section by section; a later rule for a name replaces an earlier one."""
    _merge_names(ruleset, data, origin, library)
    _merge_headers(ruleset, data, origin, library)
    _merge_call_rules(ruleset, data, origin)
    _merge_tables(ruleset, data, origin)
    text = blob.decode("utf-8")
    ruleset.build.merge(data, text, origin.path)
    _merge_tests(ruleset, data, text, origin)


def _merge_names(ruleset: RuleSet, data: dict, origin: Origin, library: str) -> None:
    """Names: renamed, unsupported (no HIP name), qualified, macros and namespaces."""
    for entry in data.get("rename", []):
        ruleset.names[entry["cuda"]] = _name_rule(entry, entry["hip"], origin, library)
    for entry in data.get("unsupported", []):
        ruleset.names[entry["cuda"]] = _name_rule(entry, None, origin, library)
    for entry in data.get("qualified", []):
        ruleset.qualified[entry["cuda"]] = NameRule(
            entry["cuda"], entry["hip"], entry.get("library", library), "qualified", "", origin, note=entry.get("note")
        )
    for entry in data.get("macro", []):
        ruleset.macros[entry["cuda"]] = MacroRule(
            cuda=entry["cuda"],
            hip=entry.get("hip"),
            origin=origin,
            header=entry.get("header"),
            added=entry.get("added"),
            note=entry.get("note"),
        )
    for entry in data.get("namespace", []):
        ruleset.namespaces[entry["cuda"]] = NamespaceRule(
            entry["cuda"], entry["hip"], entry.get("library", library), origin
        )


def _name_rule(entry: dict, hip: str | None, origin: Origin, library: str) -> NameRule:
    extra = {k: v for k, v in entry.items() if k in _NAME_FIELDS}
    return NameRule(
        cuda=entry["cuda"],
        hip=hip,
        library=entry.get("library", library),
        kind=entry.get("kind", "name"),
        section=entry.get("section", ""),
        origin=origin,
        **extra,
    )


def _merge_headers(ruleset: RuleSet, data: dict, origin: Origin, library: str) -> None:
    for entry in data.get("header", []):
        ruleset.headers[entry["cuda"]] = HeaderRule(
            cuda=entry["cuda"],
            hip=entry.get("hip") or None,
            drop=entry.get("drop", False),
            library=entry.get("library", library),
            origin=origin,
            roc=entry.get("roc"),
            role=entry.get("role", "include"),
            hip_flat=entry.get("hip_flat"),
            roc_flat=entry.get("roc_flat"),
            dir_added=entry.get("dir_added"),
            flat_removed=entry.get("flat_removed"),
            added=entry.get("added"),
            older=entry.get("older"),
            note=entry.get("note"),
            rename_words=tuple(entry.get("rename_words", ())),
            inline=entry.get("inline"),
            inline_unless=tuple(entry.get("inline_unless", ())),
        )


def polyfill_variants(entry: dict) -> list[tuple[str, str, str]]:
    """A polyfill rule, and one for each of its `variants`: the same definition with the CUDA name
    and the port's name spelled for the variant (__ldcs, hipport_ldcs -> __ldcg, hipport_ldcg)."""
    cuda, hip, definition = entry["cuda"], entry["hip"], entry["definition"]
    found = [(cuda, hip, definition)]
    for variant in entry.get("variants", ()):
        variant_hip = hip.replace(cuda.lstrip("_"), variant.lstrip("_"))
        spelled = re.sub(rf"\b{re.escape(hip)}\b", variant_hip, definition)
        found.append((variant, variant_hip, re.sub(rf"(?<![\w]){re.escape(cuda)}\b", variant, spelled)))
    return found


def _merge_call_rules(ruleset: RuleSet, data: dict, origin: Origin) -> None:
    """What is done at a call or a use beyond a rename: wraps, lints, rewrites, accessors and structural lints."""
    for entry in data.get("wrap_argument", []):
        ruleset.wraps[entry["cuda"]] = WrapRule(
            entry["cuda"], entry["argument"], entry["wrapper"], origin, tuple(entry.get("unless_declared", ()))
        )
    for entry in data.get("symbol_lookup", []):
        ruleset.symbol_lookups = ruleset.symbol_lookups | {entry["call"]}
    for entry in data.get("name_lint", []):
        ruleset.lints[entry["cuda"]] = LintRule(
            entry["cuda"], entry["code"], entry["message"], origin, entry.get("severity"), entry.get("once", False)
        )
    for entry in data.get("polyfill", []):
        for cuda, hip, definition in polyfill_variants(entry):
            ruleset.polyfills[cuda] = (hip, definition)
    for entry in data.get("rewrite", []):
        ruleset.rewrites[entry["cuda"]] = make_rewrite(entry, origin)
    _merge_argument_rules(ruleset, data.get("argument_rewrite", []), origin)
    for entry in data.get("member_accessor", []):
        ruleset.member_accessors[(entry["receiver"], entry["member"])] = MemberAccessor(
            entry["receiver"], entry["member"], entry["read"], entry["code"], entry["message"], origin
        )
    for entry in data.get("pointer_type", []):
        ruleset.pointer_types[entry["cuda"]] = (entry["hip"], entry.get("hip_const"))
    for entry in data.get("lint", []):
        lint = make_lint(len(ruleset.structural_lints), entry, origin)
        ruleset.structural_lints.append(lint)
        if lint.platform is not None and lint.match == "name":
            ruleset.platform_names.update(dict.fromkeys(lint.names, lint))


# Top-level lists of names that add up across files.
_NAME_SETS = ("markers", "typedef_names", "runtime_libraries", "runtime_first_libraries")


def _merge_tables(ruleset: RuleSet, data: dict, origin: Origin) -> None:
    """Libraries, codes and the file-wide settings: name sets that add up, includes a later file replaces."""
    for entry in data.get("library_title", []):
        ruleset.library_titles[entry["library"]] = entry["title"]
        if "target_column" in entry:
            ruleset.target_columns[entry["library"]] = entry["target_column"]
    for entry in data.get("library_need", []):
        ruleset.library_needs.append(
            LibraryNeed(entry["include"], entry["library"], entry.get("package"), origin, entry.get("nvidia_limit"))
        )
    for entry in data.get("code", []):
        ruleset.codes[entry["code"]] = CodeInfo(**entry)
    ruleset.code_tables.merge(data)
    _merge_block_primitives(ruleset, data)
    for key in _NAME_SETS:
        if key in data:
            setattr(ruleset, key, getattr(ruleset, key) | frozenset(data[key]))
    if "patterns" in data:
        ruleset.unmapped_patterns = (*ruleset.unmapped_patterns, *data["patterns"])
    for key in ("runtime_include", "runtime_api_include"):
        if key in data:
            setattr(ruleset, key, data[key])


def _merge_block_primitives(ruleset: RuleSet, data: dict) -> None:
    """rules/cub-block-size.toml's block_primitive entries (hipport/engine/block_size.py)."""
    for entry in data.get("block_primitive", []):
        ruleset.block_primitives[entry["cuda"]] = BlockPrimitive(
            dimensions=(entry["x"], entry.get("y", -1), entry.get("z", -1)),
            algorithm=entry["algorithm"],
            algorithms=tuple(entry["algorithms"]),
            wavefront=entry["wavefront"],
            code=entry["code"],
            message=entry["message"],
            fallback=entry.get("fallback"),
            fixed_message=entry.get("fixed_message"),
        )


def _merge_tests(ruleset: RuleSet, data: dict, text: str, origin: Origin) -> None:
    """The file's [[test]] entries, each with its line for the self-test's failures."""
    test_lines = [n for n, line in enumerate(text.splitlines(), 1) if line.strip() == "[[test]]"]
    for index, entry in enumerate(data.get("test", [])):
        line = test_lines[index] if index < len(test_lines) else 1
        ruleset.tests.append(
            RuleTest(
                entry["before"],
                entry["after"],
                origin,
                line,
                tuple(entry.get("findings", ())),
                tuple(entry.get("args", ())),
            )
        )


def _merge_argument_rules(ruleset: RuleSet, entries: list[dict], origin: Origin) -> None:
    """A later file's rule for the same call shape replaces an earlier one; other shapes add up."""
    for entry in entries:
        rule = make_argument_rule(entry, origin)
        shape = _argument_shape(rule)
        kept = tuple(r for r in ruleset.arguments.get(rule.cuda, ()) if _argument_shape(r) != shape)
        ruleset.arguments[rule.cuda] = (*kept, rule)


def _argument_shape(rule: ArgumentRule) -> tuple:
    return (
        rule.count,
        rule.min_count,
        rule.target,
        rule.since,
        rule.until,
        rule.when_argument,
        rule.when_declared,
        rule.when_matches,
    )
