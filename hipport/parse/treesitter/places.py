"""Where the #includes and the launches are, as the tree-sitter classifier reports them."""

from __future__ import annotations

from typing import Any

from hipport.parse.lines import end_of_line
from hipport.parse.treesitter.lints.context import in_device_function
from hipport.parse.sites import IncludeSite, LaunchSite
from hipport.parse.treesitter.tree_path import NodePath
from hipport.parse.treesitter.grammar import CONDITIONAL_BLOCKS, spans_of_code


class PlaceClassifier:
    """Mixed into the classifier, which holds source, root, not_code and guard_start."""

    source: bytes
    root: Any  # a tree_sitter.Node
    not_code: tuple[list[int], list[int]] | None
    guard_start: object

    def _lexically_not_code(self, offset: int) -> bool:
        raise NotImplementedError

    def _include(self, path: NodePath, match) -> IncludeSite | None:
        line_start = match.start("line")
        hash_at = line_start + match.group("line").index(b"#")
        if self.not_code is not None and self._lexically_not_code(hash_at):
            return None
        path.seek(hash_at, hash_at + 1)
        depth = path.depth
        is_include = path.type_at(depth - 1) == "preproc_include"
        # After error recovery the tree may not show the directive; the lexer
        # has already ruled out comments and strings, and that is enough.
        if not is_include and self.not_code is None:
            return None
        return IncludeSite(
            line_start=line_start,
            line_end=end_of_line(self.source, match.end()),
            path_start=match.start(3),
            path_end=match.end(3),
            path=match.group(3).decode("utf-8", "replace"),
            scope=self._scope(path, depth - 1 if is_include else depth),
        )

    def _scope(self, path: NodePath, depth: int) -> tuple[int, ...]:
        """The conditional branches enclosing the node at depth, outermost first.

        tree-sitter nests #else/#elif inside the #if they continue; a branch
        reached as its parent's `alternative` is not inside the parent's body.
        """
        scope = []
        block = path.nearest(CONDITIONAL_BLOCKS, depth - 1)
        while block >= 0:
            start = path.at(block).start_byte
            if start != self.guard_start and path.field_at(block + 1) != "alternative":
                scope.append(start)
            block = path.nearest(CONDITIONAL_BLOCKS, block - 1)
        return tuple(reversed(scope))

    def _include_guard_start(self) -> int | None:
        # #ifndef X / #define X wrapping the file is a guard, not a real condition.
        for child in self.root.named_children:
            if child.type == "comment":
                continue
            if child.type != "preproc_ifdef" or self.source[child.start_byte : child.start_byte + 7] != b"#ifndef":
                return None
            name = child.child_by_field_name("name")
            for inner in child.named_children:
                if inner == name or inner.type == "comment":
                    continue
                if inner.type == "preproc_def":
                    inner_name = inner.child_by_field_name("name")
                    if (
                        name is not None
                        and inner_name is not None
                        and self.source[inner_name.start_byte : inner_name.end_byte]
                        == self.source[name.start_byte : name.end_byte]
                    ):
                        return child.start_byte
                return None
            return None
        return None

    def _launch(self, path: NodePath, offset: int) -> LaunchSite | None:
        if self.not_code is not None and self._lexically_not_code(offset):
            return None
        path.seek(offset, offset + 3)
        depth = path.depth
        if (
            path.type_at(depth) != "<<<"
            or path.type_at(depth - 1) != "kernel_call_syntax"
            or path.type_at(depth - 2) != "call_expression"
        ):
            return None
        config_node, call = path.at(depth - 1), path.at(depth - 2)
        kernel = call.children[0]
        args = call.child_by_field_name("arguments") or call.children[-1]
        if args.type != "argument_list":
            return None
        close = next((c for c in config_node.children if c.type == ">>>"), None)
        if close is None:
            return None
        return LaunchSite(
            start=call.start_byte,
            end=call.end_byte,
            kernel=(kernel.start_byte, kernel.end_byte),
            kernel_is_template=b"<" in self.source[kernel.start_byte : kernel.end_byte],
            config=spans_of_code(config_node.named_children),
            config_close=close.end_byte,
            args_open=args.start_byte,
            arguments=spans_of_code(args.named_children),
            in_device_code=in_device_function(path, depth - 2, self.source),
        )
