"""Convert a whole tree: select the files, port them (cached, in parallel), migrate the
build files, then write, to a mirror or in place, one atomic write per file.

Nothing is written until every file has been ported, so a refusal (git state,
rename collision) or an error while porting leaves the tree as it was.
"""
from __future__ import annotations

import dataclasses
import os
import posixpath
import re
from pathlib import Path

from hipport.api import PortError, TreeRun
from hipport.buildfiles import BuildSettings, build_file_kind, port_build_file
from hipport.diagnostics import Finding, LineIndex, Severity, assign_positions_and_fingerprints
from hipport.emit.edits import apply_edits, order_edits
from hipport.emit.writer import copy_atomic, symlink_atomic, write_atomic
from hipport.options import Options
from hipport.project import ProjectHeaders
from hipport.rules.engine import FileResult
from hipport.rules.ruleset import RuleSet
from hipport.tree.cache import PortCache, cache_root
from hipport.tree.parallel import PortTask, default_jobs, port_all
from hipport.tree.rename import RenamePlan
from hipport.tree.safety import SafetyError, backup_suffix, check_in_place, check_output_dir, git_state
from hipport.tree.settings import TreeSettings
from hipport.tree.walk import Entry, is_binary, select

_CMAKE_TARGET = re.compile(rb"\bCUDA::\w+")


class TreeConversion:
    def __init__(self, src: Path, rules: RuleSet, options: Options, settings: TreeSettings) -> None:
        if not Path(src).is_dir():
            raise PortError(f"{src}: not a directory")
        self.src = Path(src)
        self.rules = rules
        self.options = options
        self.settings = settings
        self.run = TreeRun()
        self.by_rel: dict[str, FileResult] = {}
        self.copies: list[Entry] = []
        self.links: list[Entry] = []
        self.dirs: list[Entry] = []
        self.plan: RenamePlan | None = None
        self._done = 0
        self._total = 0

    # -- porting (nothing is written) ---------------------------------------------------

    def prepare(self) -> TreeRun:
        filters = self.settings.filters
        if self.settings.backup_suffix:
            filters = dataclasses.replace(filters, backup_suffixes=(*filters.backup_suffixes,
                                                                    self.settings.backup_suffix))
        selection = select(self.src, filters)
        self.run.skipped = len(selection.skipped)
        entries = selection.entries
        self._total = sum(1 for e in entries if e.kind != "dir")
        self.dirs, self.links = selection.of_kind("dir"), selection.of_kind("link")
        self.copies = selection.of_kind("copy")
        self._port_sources(selection.of_kind("source"))
        if self.settings.rename:
            # Only what was ported is renamed: a binary file with a .cu name keeps it.
            self.plan = RenamePlan.build(list(self.by_rel), {e.rel for e in entries}, self.settings.rename_suffixes)
            for rel in list(self.by_rel):
                self.by_rel[rel] = self._rename_includes(self.by_rel[rel])
        if self.options.mode == "shim":
            self.copies.extend(selection.of_kind("build"))  # one tree for nvcc and hipcc: the build stays CUDA's
        else:
            self._port_build_files(selection.of_kind("build"))
        self._tick(len(self.links) + len(self.copies), "")
        self.run.results = [self.by_rel[rel] for rel in sorted(self.by_rel)]
        self.run.copied = len(self.copies) + len(self.links)
        if self.plan is not None:
            self.run.renamed = {old: new for old, new in sorted(self.plan.moves.items()) if old in self.by_rel}
        return self.run

    def _port_sources(self, sources: list[Entry]) -> None:
        # A clang parse depends on the whole translation unit and the compile database, which the
        # cache key does not cover: such runs are not cached.
        cached = self.settings.use_cache and self.options.parser_in_use != "clang"
        cache = PortCache((self.settings.cache_dir or cache_root()) if cached else None, self.rules.digest,
                          self.options)
        # Projects include their headers relative to the root too (-I${PROJECT_SOURCE_DIR}).
        headers = ProjectHeaders(include_dirs=(self.src,))
        tasks, keys = [], {}
        for entry in sources:
            source = self._read(entry)
            if source is None:
                continue
            if is_binary(source):
                self.copies.append(entry)
                self.run.binary += 1
                continue
            declared = headers.macros_visible_in(entry.path, source)
            key = cache.key(entry.rel, source, declared)
            hit = cache.get(key, source)
            if hit is not None:
                self.by_rel[entry.rel] = hit
                self._tick(1, entry.rel)
            else:
                tasks.append(PortTask(entry.rel, source, declared, str(entry.path)))
                keys[entry.rel] = key
        jobs = self.settings.jobs or default_jobs()
        for task, result in zip(tasks, port_all(tasks, self.rules, self.options, jobs,
                                                lambda task: self._tick(1, task.rel))):
            cache.put(keys[task.rel], result)
            self.by_rel[task.rel] = result
        self.run.cached = cache.hits

    def _rename_includes(self, result: FileResult) -> FileResult:
        plan = self.plan
        extra = plan.include_edits(result.source, result.path)
        findings = list(result.findings)
        if result.path in plan.collisions:
            info = self.rules.codes.get("HP504")
            collision = Finding("HP504", Severity(info.severity) if info else Severity.ERROR, 0, 0, result.path,
                                f"--rename would replace {plan.collisions[result.path]}; kept the name "
                                f"{posixpath.basename(result.path)}")
            assign_positions_and_fingerprints([collision], LineIndex(result.source))
            findings.insert(0, collision)
        if not extra and len(findings) == len(result.findings):
            return result
        ordered, _ = order_edits([*result.edits, *extra])
        return dataclasses.replace(result, edits=ordered, output=apply_edits(result.source, ordered),
                                   findings=findings)

    def _port_build_files(self, builds: list[Entry]) -> None:
        texts = {}
        for entry in builds:
            data = self._read(entry)
            if data is None:
                continue
            if is_binary(data):
                self.copies.append(entry)
                self.run.binary += 1
                continue
            texts[entry.rel] = data
        arches = self.settings.offload_arch or self.rules.build.default_arches(self.options.hip_version)
        for rel, data in texts.items():
            settings = BuildSettings(
                offload_arch=arches,
                rename=self.plan.build_file_renamer(rel) if self.plan is not None else None,
                rename_suffixes=self.settings.rename_suffixes,
                packages=self._subtree_packages(rel, texts),
            )
            self.by_rel[rel] = port_build_file(data, self.rules, settings, path=rel)
            self.run.build_files += 1
            self._tick(1, rel)

    def _subtree_packages(self, rel: str, texts: dict[str, bytes]) -> tuple[str, ...]:
        """ROCm packages the CMake files at and below rel's directory link to: its find_package
        provides them to add_subdirectory() children that have none of their own."""
        if build_file_kind(rel) != "cmake":
            return ()
        here = posixpath.dirname(rel)
        packages: list[str] = []
        for other, data in sorted(texts.items()):
            if build_file_kind(other) != "cmake" or not (here == "" or other.startswith(here + "/")):
                continue
            for m in _CMAKE_TARGET.finditer(data):
                library = self.rules.build.targets.get(m.group().decode())
                if library is not None and library.package and library.package not in packages:
                    packages.append(library.package)
        return tuple(packages)

    def _read(self, entry: Entry) -> bytes | None:
        try:
            return entry.path.read_bytes()
        except OSError as exc:
            self.run.errors.append(f"{entry.rel}: cannot read: {exc.strerror}")
            self._tick(1, entry.rel)
            return None

    def _tick(self, count: int, rel: str) -> None:
        if count and self.settings.progress is not None:
            self._done += count
            self.settings.progress(self._done, self._total, rel)

    # -- writing a mirror ------------------------------------------------------------------

    def write_mirror(self, out: Path) -> None:
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        src_real = self.src.resolve()
        for entry in self.dirs:
            self._guard(entry.rel, lambda e=entry: (out / e.rel).mkdir(parents=True, exist_ok=True))
        for rel, result in sorted(self.by_rel.items()):
            target = out / self._target(rel)
            self._guard(rel, lambda t=target, r=result, p=self.src / rel: self._write(t, r.output, p))
        for entry in sorted(self.copies, key=lambda e: e.rel):
            self._guard(entry.rel, lambda e=entry: self._copy(e.path, out / e.rel))
        for entry in self.links:
            self._guard(entry.rel, lambda e=entry: self._link(e, out, src_real))

    def _target(self, rel: str) -> str:
        return self.plan.target(rel) if self.plan is not None else rel

    def _write(self, target: Path, data: bytes, mode_from: Path) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            if not target.is_symlink() and target.read_bytes() == data:
                return  # a rerun into the same OUT leaves unchanged files (and their times) alone
        except OSError:
            pass
        # A mirror file replaces only an earlier port: a kill still leaves it old or new, and the
        # per-file fsync that guards in-place writes against power loss would be most of the run.
        write_atomic(target, data, mode_from=mode_from, durable=False)
        self.run.written += 1

    def _copy(self, source: Path, target: Path) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            here, there = source.stat(), target.lstat()
            if not target.is_symlink() and (here.st_size, here.st_mtime_ns) == (there.st_size, there.st_mtime_ns):
                return
        except OSError:
            pass
        copy_atomic(source, target, durable=False)

    def _link(self, entry: Entry, out: Path, src_real: Path) -> None:
        target = os.readlink(entry.path)
        if os.path.isabs(target):
            real = Path(target)
            if real == src_real or src_real in real.parents:
                target = str(out.resolve() / real.relative_to(src_real))  # into the mirror, as it was into SRC
        else:
            pointed = Path(os.path.normpath(entry.path.parent.resolve() / target))
            if pointed != src_real and src_real not in pointed.parents:
                target = str(pointed)  # outside the tree: keep pointing at the same file
            elif self.plan is not None:
                target = self.plan.link_target(entry.rel, target)
        link = out / entry.rel
        link.parent.mkdir(parents=True, exist_ok=True)
        if link.is_symlink() and os.readlink(link) == target:
            return
        symlink_atomic(target, link)

    def _guard(self, rel: str, step) -> None:
        try:
            step()
        except OSError as exc:
            self.run.errors.append(f"{rel}: cannot write: {exc.strerror or exc}")

    # -- writing in place -------------------------------------------------------------------

    def write_in_place(self) -> None:
        changes = [(rel, self._target(rel), r) for rel, r in sorted(self.by_rel.items())
                   if r.changed or self._target(rel) != rel]
        touched = [self.src / rel for rel, _, _ in changes] + [self.src / new for rel, new, _ in changes if new != rel]
        state = git_state(self.src)
        check_in_place(state, touched, self.settings.force)
        suffix = backup_suffix(state, touched, self.settings.backup_suffix)
        for rel, new, result in changes:
            self._guard(rel, lambda rel=rel, new=new, result=result: self._replace(rel, new, result, suffix))
        if self.plan is not None:
            for entry in self.links:
                self._guard(entry.rel, lambda e=entry: self._retarget(e))

    def _replace(self, rel: str, new: str, result: FileResult, suffix: str) -> None:
        path = self.src / rel
        if suffix:
            backup = path.with_name(path.name + suffix)
            if not backup.exists():  # a second run must not replace the original with a first port
                copy_atomic(path, backup)
                self.run.backups += 1
        write_atomic(self.src / new, result.output, mode_from=path)
        self.run.written += 1
        if new != rel:
            os.unlink(path)

    def _retarget(self, entry: Entry) -> None:
        target = os.readlink(entry.path)
        new = self.plan.link_target(entry.rel, target)
        if new != target:
            symlink_atomic(new, entry.path)


def convert_tree(src: Path, out: Path, rules: RuleSet, options: Options,
                 settings: TreeSettings | None = None) -> TreeRun:
    settings = settings or TreeSettings()
    try:
        check_output_dir(Path(src), Path(out), settings.force)
    except SafetyError as exc:
        raise PortError(str(exc)) from None
    conversion = TreeConversion(src, rules, options, settings)
    conversion.prepare()
    conversion.write_mirror(out)
    return conversion.run


def convert_tree_in_place(src: Path, rules: RuleSet, options: Options,
                          settings: TreeSettings | None = None) -> TreeRun:
    conversion = TreeConversion(src, rules, options, settings or TreeSettings())
    conversion.prepare()
    try:
        conversion.write_in_place()
    except SafetyError as exc:
        raise PortError(str(exc)) from None
    return conversion.run
