"""Convert a whole tree: select the files, port them (cached, in parallel), migrate the
build files, then write, to a mirror or in place, one atomic write per file.

Nothing is written in place until every file has been ported, so a refusal (git
state, rename collision) or an error while porting leaves the tree as it was; a
mirror with --rename waits too, as the new names need every port. Other mirrors
get each port as soon as it is made and let its bytes go: the writing overlaps
the porting, and the sources and outputs held in memory stay few however large
the tree (OUT is a new directory, which a failed run leaves part-written). A full
or read-only file system stops the writing at the first file it refuses; a
signal stops it between two files (hipport.tree.interrupt). A rerun first takes
from the tree index (hipport.tree.index) every file that it, its headers and its
output show unchanged: those are neither read nor written.
"""

from __future__ import annotations

import dataclasses
import os
import posixpath
import re
import time
from pathlib import Path

from hipport.porting import PortError, TreeRun
from hipport.buildfiles import BuildSettings, build_file_kind, port_build_file
from hipport.diagnostics import Finding, LineIndex, Severity, assign_positions_and_fingerprints
from hipport.engine.edits import apply_edits, order_edits
from hipport.options import Options
from hipport.project import ProjectHeaders, own_names, project_include_dirs
from hipport.engine.port import FileResult
from hipport.ruleset.model import RuleSet
from hipport.tree.cache import PortCache, cache_root
from hipport.tree.index import TreeIndex, index_file
from hipport.tree.parallel import Porter, PortTask, default_jobs
from hipport.tree.rename import RenamePlan
from hipport.tree.safety import SafetyError, check_output_dir
from hipport.tree.settings import TreeSettings
from hipport.tree.interrupt import HeldInterrupts
from hipport.tree.mirror import MirrorWriting
from hipport.tree.resume import begin, finish, unfinished
from hipport.tree.walk import Entry, is_binary, select, special_kind

_CMAKE_TARGET = re.compile(rb"\bCUDA::\w+")


class TreeConversion(MirrorWriting):
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
        self.temporary: list[Path] = []  # temporary files in SRC that killed runs left
        self._checked_dirs: set[str] = set()  # directories in OUT known to be directories
        self._linked_dirs: set[str] = set()  # ... known to be links, reported once
        self._done = 0
        self._total = 0
        self.stream_to: Path | None = None  # a mirror's OUT, to write each port as it comes (convert_tree)
        self._streamed: dict[str, list[str]] = {}  # what was written early -> the errors its write met
        self._opened: Path | None = None  # OUT, once made ready for writing
        self.in_place = False  # set by convert_tree_in_place: the tree is its own output
        self._index: TreeIndex | None = None  # what the last run did (hipport.tree.index)
        self._indexing: dict[str, tuple] = {}  # a source being ported -> what the index will record of it
        self._started_ns = 0

    # -- porting (nothing is written) ---------------------------------------------------

    def prepare(self) -> TreeRun:
        self._started_ns = time.time_ns()  # before any file is looked at: the tree index's racy check
        filters = self.settings.filters
        if self.settings.backup_suffix:
            filters = dataclasses.replace(
                filters, backup_suffixes=(*filters.backup_suffixes, self.settings.backup_suffix)
            )
        selection = select(self.src, filters)
        self.run.errors.extend(selection.errors)
        self.temporary = selection.temporary
        specials = selection.of_kind("special")
        for entry in specials:
            self.run.notices.append(f"{entry.path}: a {special_kind(entry.path)}, not a regular file; left out")
        self.run.skipped = len(selection.skipped) + len(specials)
        self.run.left_out = [*selection.skipped, *(entry.rel for entry in specials)]
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
        cache = PortCache(
            (self.settings.cache_dir or cache_root()) if cached else None, self.rules.digest, self.options
        )
        # Projects include their headers relative to the root too (-I${PROJECT_SOURCE_DIR}). The
        # paths are absolute: the tree index keeps those probed, for runs from another directory.
        root = Path(os.path.abspath(self.src))
        headers = ProjectHeaders(
            include_dirs=project_include_dirs(root, self.settings.include_dirs, self.options.compile_commands),
            declares=own_names(self.rules),
            root=root,
        )
        self._index = self._open_index(cache, root, sources, headers)
        if self._index is not None:  # what the index has first: a few changed files need no pool of workers
            sources = [entry for entry in sources if not self._from_index(entry)]
        jobs = self.settings.jobs or default_jobs()
        # Files are ported while the next ones are read; whichever process ports one stores its cache entry.
        with Porter(self.rules, self.options, jobs, cache, expected=len(sources)) as porter:
            for entry in sources:
                source = self._read(entry)
                if source is None:
                    continue
                if is_binary(source):
                    self.copies.append(entry)
                    self.run.binary += 1
                    if self._index is not None:
                        self._index.record_binary(entry.rel, entry.stat)
                    continue
                macros = headers.visible_in(root / entry.rel, source)
                declared = macros[0]
                key = cache.key(entry.rel, source, declared) if cache.enabled else ""
                if self._index is not None:
                    self._indexing[entry.rel] = (entry.stat, macros, key)
                hit = cache.get(key, source)
                if hit is not None:
                    self._ported(entry.rel, hit)
                else:
                    self._ported_all(porter.submit(PortTask(entry.rel, source, declared, str(entry.path), key)))
            self._ported_all(porter.finish())
        self.run.cached = cache.hits
        if self._index is not None:
            self._index.save()
            self.run.cached += self._index.hits

    def _open_index(
        self, cache: PortCache, root: Path, sources: list[Entry], headers: ProjectHeaders
    ) -> TreeIndex | None:
        """The tree index of a mirror written as it is ported, or of an in-place run without renames."""
        if not cache.enabled or self.settings.rename or (self.stream_to is None and not self.in_place):
            return None
        prefix = f"{root}{os.sep}"
        for entry in sources:  # the walk's stats answer the header lookups (hipport.project) too
            if entry.stat is not None:
                headers.found[prefix + entry.rel] = entry.stat
        assert cache.directory is not None  # cache.enabled
        return TreeIndex(
            index_file(cache.directory, self.src, self.stream_to),
            cache.salt,
            cache,
            self.in_place,
            headers,
            root,
            self._started_ns,
        )

    def _from_index(self, entry: Entry) -> bool:
        """True if the index has entry's port and nothing it depends on changed: nothing is read or written."""
        assert self._index is not None
        if self._index.binary(entry.rel, entry.stat):
            self.copies.append(entry)  # copied as data, as the last run found it to be
            self.run.binary += 1
            return True
        target = None
        if self.stream_to is not None:
            out = self._open_mirror(self.stream_to)
            if self._link_in_the_way(out, entry.rel):
                return False  # the real port reports it
            target = f"{out}{os.sep}{entry.rel}"
        result = self._index.lookup(entry.rel, entry.stat, target)
        if result is None:
            return False
        self.by_rel[entry.rel] = result
        if target is not None:
            self._streamed[entry.rel] = []
        self._tick(1, entry.rel)
        return True

    def _ported_all(self, done: list[tuple[PortTask, FileResult]]) -> None:
        for task, result in done:
            self._ported(task.rel, result)

    def _ported(self, rel: str, result: FileResult) -> None:
        self.by_rel[rel] = result
        written = self._write_now(rel, result) if self.stream_to is not None else None
        indexing = self._indexing.pop(rel, None)
        if indexing is not None:
            assert self._index is not None  # what is indexed has an index to go to
            source, macros, key = indexing
            self._index.record(rel, source, macros, key, result, written)
        self._tick(1, rel)

    def _write_now(self, rel: str, result: FileResult) -> os.stat_result | None:
        """Write rel's port to the mirror; the stat of the file it is there, if all went well."""
        assert self.stream_to is not None
        out = self._open_mirror(self.stream_to)
        target = out / rel
        errors = len(self.run.errors)
        written = []
        with HeldInterrupts():
            self._guard(target, lambda: written.append(self._write(out, target, result.output, self.src / rel)))
        # Reported where write_mirror would have: after the porting, in the order of the files.
        self._streamed[rel] = self.run.errors[errors:]
        del self.run.errors[errors:]
        result.release()
        return written[0] if written and not self._streamed[rel] else None

    def _rename_includes(self, result: FileResult) -> FileResult:
        plan = self.plan
        assert plan is not None  # called with --rename only
        extra = plan.include_edits(result.source, result.path)
        findings = list(result.findings)
        if result.path in plan.collisions:
            info = self.rules.codes.get("HP504")
            collision = Finding(
                "HP504",
                Severity(info.severity) if info else Severity.ERROR,
                0,
                0,
                result.path,
                f"--rename would replace {plan.collisions[result.path]}; kept the name "
                f"{posixpath.basename(result.path)}",
            )
            assign_positions_and_fingerprints([collision], LineIndex(result.source))
            findings.insert(0, collision)
        if not extra and len(findings) == len(result.findings):
            return result
        ordered, _ = order_edits([*result.edits, *extra])
        return dataclasses.replace(result, edits=ordered, output=apply_edits(result.source, ordered), findings=findings)

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
            self.run.errors.append(f"{entry.path}: cannot read: {exc.strerror}")
            self._tick(1, entry.rel)
            return None

    def _tick(self, count: int, rel: str) -> None:
        if count and self.settings.progress is not None:
            self._done += count
            self.settings.progress(self._done, self._total, rel)


def convert_tree(
    src: Path, out: Path, rules: RuleSet, options: Options, settings: TreeSettings | None = None
) -> TreeRun:
    settings = settings or TreeSettings()
    resuming = unfinished(settings.cache_dir, src, out)
    try:
        check_output_dir(Path(src), Path(out), settings.force or resuming)
    except SafetyError as exc:
        raise PortError(str(exc)) from None
    if resuming:
        notice = f"{out}: resuming the conversion into it that was interrupted"
    conversion = TreeConversion(src, rules, options, settings)
    recorded = begin(settings.cache_dir, src, out)
    try:
        if not settings.rename:  # renaming needs every file's port first
            conversion.stream_to = Path(out)
        conversion.prepare()
        conversion.write_mirror(out)
    except KeyboardInterrupt:
        raise TreeInterrupted(RESUME_ADVICE if recorded else FORCE_ADVICE) from None
    finish(settings.cache_dir, src, out)
    if resuming:
        conversion.run.notices.insert(0, notice)
    return conversion.run


class TreeInterrupted(KeyboardInterrupt):
    """Ctrl-C while a tree was converted, with what to do next (hipport.console says it)."""

    def __init__(self, advice: str) -> None:
        super().__init__(advice)
        self.advice = advice


RESUME_ADVICE = "run the command again to finish: it resumes where this one stopped"
FORCE_ADVICE = "run the command again with --force to finish"
IN_PLACE_ADVICE = "run the command again to finish: what is ported already is left as it is"


def convert_tree_in_place(src: Path, rules: RuleSet, options: Options, settings: TreeSettings | None = None) -> TreeRun:
    conversion = TreeConversion(src, rules, options, settings or TreeSettings())
    conversion.in_place = True
    try:
        conversion.prepare()
        conversion.write_in_place()
    except SafetyError as exc:
        raise PortError(str(exc)) from None
    except KeyboardInterrupt:
        raise TreeInterrupted(IN_PLACE_ADVICE) from None
    return conversion.run
