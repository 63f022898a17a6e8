"""The README and docs/: every relative link resolves (files, and headings for #anchors), the
README stays short and opens with the two set-up commands CI runs."""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "CHANGELOG.md"] + sorted(
    (ROOT / "docs").glob("*.md"))
SETUP_COMMANDS = [
    "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/python -m dmlcpu bench --quick",
    "python3 -m venv .venv && .venv/bin/pip install '.[test]' && .venv/bin/python -m pytest tests",
]
FENCE = re.compile(r"^```.*?^```", re.M | re.S)
LINK = re.compile(r"\]\(([^)\s]+)\)")  # the target of [text](target) and ![alt](target)


def anchors(page):
    """GitHub's anchors for a page's headings: lower case, punctuation dropped, spaces -> '-'."""
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
            for h in re.findall(r"^#+ (.*)$", text, re.M)}


def relative_links(page):
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    return [t for t in LINK.findall(text) if not re.match(r"[a-z]+:", t)]


def broken_links(page):
    broken = []
    for target in relative_links(page):
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(target)
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            broken.append(target)
    return broken


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    assert broken_links(page) == []


def test_the_link_check_finds_a_missing_file_and_a_missing_heading(tmp_path):
    (tmp_path / "there.md").write_text("# A heading\n")
    page = tmp_path / "page.md"
    page.write_text("[a](there.md) [b](there.md#a-heading) [c](missing.md) [d](there.md#nope)\n"
                    "![e [1]](there.md) [f](https://example.com/x) [g](#top)\n"
                    "```\n[h](in-a-code-block.md)\n```\n# Top\n")
    assert broken_links(page) == ["missing.md", "there.md#nope"]


def test_the_readme_python_examples_run():
    """Each block runs; one whose comments show an InvalidArgumentError must raise it."""
    import dmlcpu

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```", text, re.M | re.S)
    assert len(blocks) >= 2
    namespace = {}
    for block in blocks:
        if "# InvalidArgumentError:" in block:
            with pytest.raises(dmlcpu.InvalidArgumentError):
                exec(block, namespace)
        else:
            exec(block, namespace)
    assert namespace["out"][:, :2].tolist() == [[1, 3], [5, 7], [9, 11]]


def test_the_readme_is_short():
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 300


def test_the_readme_opens_with_the_two_setup_commands():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    first_block = FENCE.search(text).group(0).splitlines()[1:-1]
    assert first_block == SETUP_COMMANDS
