"""The page of cpsudoku serve in a real browser: headless Chromium driven by selenium.

Needs Debian's ``chromium`` and ``chromium-driver`` (``.ci/run`` installs them on CI);
skipped, saying so, where they are absent. The screenshot is kept in the test's
temporary folder.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("aiohttp")
webdriver = pytest.importorskip("selenium.webdriver")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402
from test_serve import SEVERAL, UNIQUE, Server  # noqa: E402

from cpsudoku.evidence.candidates import true_candidates  # noqa: E402
from cpsudoku.model.forms import parse  # noqa: E402
from cpsudoku.model.fpuzzles import fpuzzles_link, to_fpuzzles  # noqa: E402
from cpsudoku.serve.app import Limits  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")

pytestmark = pytest.mark.skipif(
    CHROMIUM is None or DRIVER is None,
    reason="the browser test needs chromium and chromium-driver (apt-get install chromium "
    "chromium-driver; .ci/run installs them)",
)


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    s = Server(Limits(interactive=5.0, count=5.0)).start()
    yield s
    s.stop()


@pytest.fixture
def browser() -> Iterator[webdriver.Chrome]:
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,900"):
        options.add_argument(arg)
    service = webdriver.ChromeService(executable_path=str(DRIVER))
    driver = webdriver.Chrome(options=options, service=service)
    try:
        yield driver
    finally:
        driver.quit()


def _status(driver: webdriver.Chrome) -> str:
    el = driver.find_element(By.ID, "status")
    return str(el.get_attribute("data-status") or "")


def _read(driver: webdriver.Chrome, url: str, text: str) -> None:
    driver.get(url)
    box = driver.find_element(By.ID, "puzzle")
    # A paste: the whole text at once, one input event (typing it key by key would
    # read every prefix on the way).
    driver.execute_script(
        "arguments[0].value = arguments[1];"
        "arguments[0].dispatchEvent(new Event('input', {bubbles: true}));",
        box,
        text,
    )
    driver.find_element(By.ID, "read").click()


def test_page_shows_status_and_true_candidates(
    server: Server, browser: webdriver.Chrome, tmp_path: Path
) -> None:
    link = fpuzzles_link(to_fpuzzles(parse(SEVERAL), title="Two solutions"))
    _read(browser, server.url + "/", link)
    wait = WebDriverWait(browser, 90)
    wait.until(lambda d: _status(d) == "multiple")
    wait.until(lambda d: d.find_element(By.ID, "picture").get_attribute("data-candidates"))
    marks = browser.find_elements(By.CSS_SELECTOR, "#picture svg text.candidate")
    shown: dict[int, set[int]] = {}
    for mark in marks:
        cell = int(mark.get_attribute("data-cells") or -1)
        shown.setdefault(cell, set()).add(int(mark.get_attribute("data-value") or 0))
    expected = true_candidates(parse(SEVERAL))
    puzzle = parse(SEVERAL)
    for i in range(81):
        if not puzzle.cells[i]:
            assert shown.get(i, set()) == set(expected.values(i)), f"cell {i}"
    rules = browser.find_elements(By.CSS_SELECTOR, "#rules li")
    assert rules
    assert "Two solutions" in browser.find_element(By.ID, "title").text
    assert "differ" in browser.find_element(By.ID, "status").text
    shot = tmp_path / "serve.png"
    assert browser.save_screenshot(str(shot))
    assert shot.stat().st_size > 10_000


def test_page_says_what_is_wrong_with_bad_input(server: Server, browser: webdriver.Chrome) -> None:
    _read(browser, server.url + "/", "https://f-puzzles.com/?load=garbage")
    WebDriverWait(browser, 90).until(lambda d: _status(d) == "invalid")
    assert "decompress" in browser.find_element(By.ID, "status").text


def test_page_counts_with_progress(server: Server, browser: webdriver.Chrome) -> None:
    _read(browser, server.url + "/", UNIQUE)
    wait = WebDriverWait(browser, 90)
    wait.until(lambda d: _status(d) == "unique")
    browser.find_element(By.ID, "count").click()
    wait.until(lambda d: "exactly 1 solution" in d.find_element(By.ID, "counted").text)
