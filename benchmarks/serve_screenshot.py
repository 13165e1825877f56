"""The README's picture of the ``cpsudoku serve`` page (``docs/img/serve.png``).

Starts a server, opens the page in headless Chromium (Debian's ``chromium`` and
``chromium-driver``), pastes the f-puzzles link of a published variant with a few
givens taken out (so that it has several solutions: the page then shows its true
candidates and where two solutions differ), waits for the answers, and saves the
screenshot.

    python benchmarks/serve_screenshot.py [-o docs/img/serve.png]
"""

from __future__ import annotations

import argparse
import json
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from cpsudoku.model.fpuzzles import fpuzzles_link

ROOT = Path(__file__).resolve().parent.parent


def _puzzle() -> str:
    row = json.loads((ROOT / "tests/data/published/fpuzzles.jsonl").read_text().splitlines()[0])
    fp = row["fpuzzles"]
    removed = 0
    for cells in fp["grid"]:
        for cell in cells:
            if cell.get("given") and removed < 5:
                cell.clear()
                removed += 1
    return fpuzzles_link(fp)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--output", default=str(ROOT / "docs/img/serve.png"))
    args = ap.parse_args()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "cpsudoku", "serve", "--port", str(port)])
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,860"):
        options.add_argument(arg)
    service = webdriver.ChromeService(executable_path=shutil.which("chromedriver"))
    driver = webdriver.Chrome(options=options, service=service)
    try:
        for _ in range(600):
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                time.sleep(0.1)
        driver.get(f"http://127.0.0.1:{port}/")
        driver.find_element(By.ID, "puzzle").send_keys(_puzzle())
        driver.find_element(By.ID, "read").click()
        wait = WebDriverWait(driver, 60)
        wait.until(lambda d: d.find_element(By.ID, "picture").get_attribute("data-candidates"))
        driver.find_element(By.ID, "count").click()
        wait.until(lambda d: "solution" in d.find_element(By.ID, "counted").text)
        time.sleep(0.5)
        Path(args.output).parent.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(args.output)
        print(args.output)
    finally:
        driver.quit()
        proc.terminate()
        proc.wait(30)


if __name__ == "__main__":
    main()
