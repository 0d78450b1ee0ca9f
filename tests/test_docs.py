"""The documentation: a short README, docs/ for the rest, links that resolve, and the generated
pages (docs/codes.md from rules/codes.toml, docs/modules.md from the docstrings) up to date."""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
# Pages of the dialects and measurements, which the README links besides the index.
OTHERS = {"libraries.md", "pytorch.md", "corpus.md", "generality.md", "gpu.md", "verify.md"}
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def _gen_docs():
    spec = importlib.util.spec_from_file_location("gen_docs", ROOT / "tools" / "gen_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("page", ["codes.md", "modules.md"])
def test_the_generated_pages_are_up_to_date(page):
    expected = _gen_docs().pages()[DOCS / page]
    assert (DOCS / page).read_text(encoding="utf-8") == expected, f"docs/{page} is stale: run make docs"


def test_the_codes_page_lists_every_code_with_its_data(rules):
    text = (DOCS / "codes.md").read_text()
    for code, info in rules.codes.items():
        row = f'| <a id="{code}"></a>{code} | {info.name} | {info.severity} | {info.effort} |'
        assert row in text, code
        assert f"### {code} {info.name}" in text


def test_the_codes_page_follows_the_loader(rules, monkeypatch):
    """The generator reads codes as hipport does: a code the loader gives appears, with its data."""
    from dataclasses import replace

    gen = _gen_docs()
    from hipport.ruleset import loader

    changed = replace(rules.codes["HP415"], severity="info")
    fake = type("Rules", (), {"codes": {**rules.codes, "HP415": changed}, "code_tables": rules.code_tables})()
    monkeypatch.setattr(loader, "load_rules", lambda **_: fake)
    assert '| <a id="HP415"></a>HP415 | cuda-arch-macro | info |' in gen.render_codes()


def test_the_readme_is_short_and_says_where_the_rest_is():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) < 150
    assert "make demo" in readme and "make test" in readme
    for command in ("report", "convert", "verify", "check", "explain"):
        assert f"\nhipport {command} " in readme
    assert "docs/index.md" in readme


def _links(page: Path) -> list[str]:
    text = page.read_text(encoding="utf-8")
    return [target for target in LINK.findall(text) if "://" not in target]


def test_every_link_resolves():
    broken = []
    for page in [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]:
        for target in _links(page):
            resolved = (page.parent / target).resolve()
            if not resolved.exists():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")
    assert broken == []


def test_the_index_and_the_readme_link_every_page():
    pages = {p.name for p in DOCS.glob("*.md")} - {"index.md"} | OTHERS
    index = set(_links(DOCS / "index.md"))
    assert pages <= index, pages - index
    readme = {Path(t).name for t in _links(ROOT / "README.md")}
    assert OTHERS <= readme


def test_every_setting_is_documented():
    from hipport.config import KEYS

    text = (DOCS / "configuration.md").read_text()
    missing = [key for key in KEYS if f"`{key}`" not in text]
    assert missing == [], f"docs/configuration.md has no row for {missing}"
