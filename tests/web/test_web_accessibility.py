"""axe-core (bundled by axe-selenium-python) on the table, phone, setup, history and stats pages:
no serious or critical violation, in the light and the dark colour scheme."""

from __future__ import annotations

import pytest
from test_web_browser import LAPTOP, PHONE, wait_live
from web_helpers import Table

pytestmark = [pytest.mark.browser, pytest.mark.slow]

BLOCKING = ("serious", "critical")


def axe_violations(window) -> list[dict]:
    try:
        from axe_selenium_python import Axe
    except ImportError:  # pragma: no cover - the test extra installs it
        pytest.fail("axe-selenium-python is not installed: pip install -e '.[test]'")
    axe = Axe(window)
    axe.inject()
    results = axe.run()
    return [v for v in results["violations"] if v.get("impact") in BLOCKING]


def describe(violations: list[dict]) -> str:
    return "\n".join(
        f"{v['id']} ({v['impact']}): {v['help']} -> "
        + "; ".join(n["target"][0] if n.get("target") else "?" for n in v["nodes"][:5])
        for v in violations
    )


@pytest.fixture
def pages(app, live_server):
    """Every page kind with something on it: a game under way with a throw on the table."""
    finished = Table(app.test_client(), ["Ann", "Bob"], rules="family", source="manual", set={"target": 300})
    finished.post("throw", {"dice": [1, 1, 1, 2, 3]})
    finished.post("bank", {"dice": [1, 1, 1]})
    table = Table(app.test_client(), ["Ann", "Bob", "Cy"], rules="farkle", source="manual")
    table.post("throw", {"dice": [1, 5, 2, 3, 4, 6]})
    base = live_server.url
    return {
        "setup": (LAPTOP, f"{base}/"),
        "table": (LAPTOP, f"{base}/games/{table.id}/table?token={table.token}"),
        "phone": (PHONE, f"{base}/games/{table.id}/play?token={table.token}"),
        "game over": (PHONE, f"{base}/games/{finished.id}/play?token={finished.token}"),
        "history": (LAPTOP, f"{base}/history/"),
        "game history": (LAPTOP, f"{base}/history/{finished.id}"),
        "stats": (LAPTOP, f"{base}/history/stats"),
    }


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_serious_accessibility_violations(pages, open_window, scheme):
    found = {}
    windows = {}
    for name, (size, url) in pages.items():
        window = windows.get(size)
        if window is None:
            window = windows[size] = open_window(size)
            window.execute_cdp_cmd(
                "Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]}
            )
        window.get(url)
        if "/games/" in url:
            wait_live(window)
        violations = axe_violations(window)
        if violations:
            found[name] = describe(violations)
    assert not found, "\n\n".join(f"{name}:\n{text}" for name, text in found.items())
