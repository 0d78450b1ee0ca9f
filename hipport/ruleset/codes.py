"""The code registry's tables beside the codes themselves (rules/codes.toml): fixed messages, families, sets.

A finding's message that does not depend on the code it is about comes from `message` entries, so
wording is data; the report groups findings by `family` prefixes; Python asks for sets of codes
(`code_set`) and the not-ported statuses (`not_ported`) by name instead of keeping tuples.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class CodeTables:
    messages: dict[tuple[str, str], str] = field(default_factory=dict)  # (code, key) -> text with {fields}
    families: tuple[tuple[str, str], ...] = ()  # (code prefix, title), first match wins
    sets: dict[str, frozenset[str]] = field(default_factory=dict)
    not_ported: dict[str, str] = field(default_factory=dict)  # code -> status a report shows
    names: dict[str, frozenset[str]] = field(default_factory=dict)  # name sets (name_set entries)

    def merge(self, data: dict) -> None:
        for entry in data.get("message", []):
            self.messages[(entry["code"], entry["key"])] = entry["text"]
        if "family" in data:
            self.families = (*self.families, *((e["prefix"], e["title"]) for e in data["family"]))
        for entry in data.get("code_set", []):
            self.sets[entry["set"]] = self.sets.get(entry["set"], frozenset()) | frozenset(entry["codes"])
        for entry in data.get("not_ported", []):
            self.not_ported[entry["code"]] = entry["status"]
        for entry in data.get("name_set", []):
            self.names[entry["set"]] = self.names.get(entry["set"], frozenset()) | frozenset(entry["names"])

    def message(self, code: str, key: str, **fields: object) -> str:
        """The message `key` of `code`, its {fields} filled in."""
        return self.messages[(code, key)].format(**fields)

    def family(self, code: str) -> str | None:
        return next((title for prefix, title in self.families if code.startswith(prefix)), None)

    def code_set(self, name: str) -> frozenset[str]:
        return self.sets.get(name, frozenset())

    def name_set(self, name: str) -> frozenset[str]:
        return self.names.get(name, frozenset())

    def sets_named(self, *names: str) -> tuple[frozenset[str], ...]:
        return tuple(self.code_set(name) for name in names)
