"""docs/rules-traceability.md: every rule line of the five texts is mapped to code and to a test
that exists."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "rules-traceability.md"
TEXTS = ROOT.parent / "shared" / "rules"

# The lines of each text that state a rule (headings, history and links left out).
RULE_LINES = {
    "dice-10000-encyclopedia.md": {11, 17, 19, 20, 21, 22, 23, 24, 25, 27, 29, 30, 31, 33, 37, 39, 41, 43, 47, 49},
    "dice-10000-family-rules.md": {
        17,
        19,
        22,
        23,
        25,
        26,
        27,
        28,
        29,
        30,
        31,
        *range(33, 47),
        *range(49, 59),
        61,
        62,
        65,
        66,
        67,
    },
    "greedy-dice-zilch.txt": {9, 11, 13, 15, 17, 19, 21, 23, 25, 28, 31, 34, 36, 38, 41},
    "ten-thousand-web-game.txt": {
        3,
        *range(7, 15),
        *range(17, 24),
        *range(27, 34),
        *range(38, 43),
        46,
        47,
        49,
        50,
        52,
        53,
        57,
        58,
        59,
        *range(63, 70),
    },
    "ten-thousand-dice-game-rules.md": {5, 9, 11, 13, 17, 19},
}


def rows() -> list[tuple[str, range, list[str]]]:
    """(text, lines, tests) of every table row of the document."""
    found, text = [], None
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            title = line[3:].split()[0]
            text = title if title.endswith((".md", ".txt")) else "README.md"
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if text and line.startswith("|") and re.fullmatch(r"\d+(-\d+)?", cells[0]):
            first, _, last = cells[0].partition("-")
            tests = re.findall(r"`([^`]+::[^`]+)`", cells[3])
            found.append((text, range(int(first), int(last or first) + 1), tests))
    return found


def test_every_row_names_a_test_that_exists():
    table = rows()
    assert len(table) > 100
    for text, lines, tests in table:
        assert tests, (text, lines)
        for ref in tests:
            path, _, name = ref.partition("::")
            file = ROOT / (path if path.startswith("tests/") else f"tests/scorekeeper/{path}")
            assert re.search(rf"^def {name}\(", file.read_text(encoding="utf-8"), re.M), ref


def test_every_rule_line_of_the_five_texts_has_a_row():
    covered: dict[str, set[int]] = {}
    for text, lines, _ in rows():
        covered.setdefault(text, set()).update(lines)
    for text, lines in RULE_LINES.items():
        assert not lines - covered.get(text, set()), (text, sorted(lines - covered.get(text, set())))


@pytest.mark.skipif(not TEXTS.is_dir(), reason=f"the rule texts are not at {TEXTS}")
def test_every_cited_line_exists_and_is_not_blank():
    for text, lines, _ in rows():
        content = (TEXTS / text).read_text(encoding="utf-8").splitlines()
        assert lines.stop - 1 <= len(content), (text, lines)
        assert any(content[n - 1].strip() for n in lines), (text, lines)
    for text, lines in RULE_LINES.items():
        content = (TEXTS / text).read_text(encoding="utf-8").splitlines()
        assert all(content[n - 1].strip() for n in lines), text
