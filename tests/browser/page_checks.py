"""What a reader's browser must show: checks of a rendered page in headless Chromium (Debian's ``chromium``).

:func:`open_chromium` starts Debian's Chromium through its ``chromedriver`` (installed by
``scripts/setup.sh``), offline and with a fresh profile. The checks run in the page and return
what is wrong (an empty list when nothing is):

* :func:`broken_images`: every ``<img>`` decoded (``naturalWidth > 0``);
* :func:`overflowing_elements`: at the current width, no element sticks out of the page's
  content box unless it sits in a horizontal scroll container, and the page itself never
  scrolls sideways (every ``<details>`` opened first, so folded tables are measured too);
* :func:`cut_figures`: every figure shown whole at its rendered size, nothing drawn on the
  image's edge (a label running off the picture);
* :func:`dangling_anchors`: every ``href="#..."`` names an element id;
* :func:`console_errors`: the browser's SEVERE log entries;
* :func:`bottom_of` measures where an element ends, in CSS pixels from the top of the page.

A missing browser is a failure with the command that installs it, never a skip: CI runs the
set-up script first.
"""

from __future__ import annotations

import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
INSTALL_HINT = ("headless Chromium is needed for the browser tests: run scripts/setup.sh "
                "(it installs Debian's chromium and chromium-driver, and selenium from the dev extra)")
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage", "--hide-scrollbars")


def missing_browser() -> str | None:
    """Why the browser cannot start (None when Chromium, its driver and selenium are all here)."""
    for path in (CHROMIUM, CHROMEDRIVER):
        if shutil.which(path) is None:
            return f"{path} not found; {INSTALL_HINT}"
    try:
        import selenium  # noqa: F401  (only checked for presence here)
    except ImportError:
        return f"selenium is not installed; {INSTALL_HINT}"
    return None


@contextmanager
def open_chromium() -> Iterator[Any]:
    """A headless Chromium WebDriver with a fresh profile; closed (and its profile removed) on exit."""
    from selenium import webdriver  # heavy optional test dependency: imported where used
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="hardmax-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def set_viewport(driver: Any, width: int, height: int = 1000) -> None:
    """An exact CSS viewport (the window's frame would otherwise take its share)."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})


def load(driver: Any, path: Path) -> None:
    driver.get(Path(path).resolve().as_uri())
    # Embedded images decode asynchronously: wait until each has finished, loaded or not.
    driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        Promise.all(Array.from(document.images).map(img => img.decode().catch(() => null))).then(() => done(true));
    """)


def broken_images(driver: Any) -> list[str]:
    return driver.execute_script("""
        return Array.from(document.images)
            .filter(img => !(img.complete && img.naturalWidth > 0))
            .map(img => img.alt || img.src.slice(0, 80));
    """)


def open_all_details(driver: Any) -> int:
    return driver.execute_script("""
        const all = document.querySelectorAll('details');
        all.forEach(d => { d.open = true; });
        return all.length;
    """)


def overflowing_elements(driver: Any) -> list[str]:
    """Elements wider than the page's content box (outside any scroll container), and sideways page scroll."""
    open_all_details(driver)
    return driver.execute_script("""
        const problems = [];
        const root = document.documentElement;
        if (root.scrollWidth > root.clientWidth + 1) {
            problems.push(`the page scrolls sideways: ${root.scrollWidth} px of content in ${root.clientWidth} px`);
        }
        const body = document.body.getBoundingClientRect();
        const style = getComputedStyle(document.body);
        const left = body.left + parseFloat(style.paddingLeft), right = body.right - parseFloat(style.paddingRight);
        const scrolls = el => ['auto', 'scroll', 'hidden'].includes(getComputedStyle(el).overflowX);
        const describe = el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
            + (el.className && typeof el.className === 'string' ? '.' + el.className.split(' ').join('.') : '')
            + ' "' + (el.textContent || '').trim().slice(0, 40) + '"';
        for (const el of document.body.querySelectorAll('*')) {
            const box = el.getBoundingClientRect();
            if (box.width === 0 && box.height === 0) continue;
            let inside = false;
            for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
                if (scrolls(p)) { inside = true; break; }
            }
            if (inside) continue;
            if (box.right > right + 1 || box.left < left - 1) {
                problems.push(`${describe(el)} spans ${Math.round(box.left)}..${Math.round(box.right)} px, `
                              + `the page's content ${Math.round(left)}..${Math.round(right)} px`);
            }
        }
        return problems;
    """)


def cut_figures(driver: Any) -> list[str]:
    """Figures as the page renders them: shown whole (their own aspect ratio), nothing drawn on the image's edge.

    Each decoded image is read back at its natural size on a canvas; a pixel of its outermost
    rows or columns that is not the white background is text or a line running off the picture
    (the figures keep a margin inside their border, so a cut label is the only way to reach it).
    """
    return driver.execute_script("""
        const problems = [];
        for (const img of document.images) {
            if (!(img.complete && img.naturalWidth > 0)) continue;
            const name = img.alt || img.src.slice(0, 60);
            const box = img.getBoundingClientRect();
            const sx = box.width / img.naturalWidth, sy = box.height / img.naturalHeight;
            if (!(box.width > 0) || Math.abs(sx - sy) > 0.02 * Math.max(sx, sy)) {
                problems.push(`${name} is shown at ${Math.round(box.width)} x ${Math.round(box.height)} px, `
                              + `not in its ${img.naturalWidth} x ${img.naturalHeight} proportions`);
            }
            const canvas = document.createElement('canvas');
            canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
            const context = canvas.getContext('2d');
            context.drawImage(img, 0, 0);
            const w = canvas.width, h = canvas.height;
            const edges = {top: [0, 0, w, 1], bottom: [0, h - 1, w, 1], left: [0, 0, 1, h], right: [w - 1, 0, 1, h]};
            for (const [side, [x, y, ew, eh]] of Object.entries(edges)) {
                const data = context.getImageData(x, y, ew, eh).data;
                let marked = 0;
                for (let i = 0; i < data.length; i += 4) {
                    if (data[i + 3] > 0 && Math.min(data[i], data[i + 1], data[i + 2]) < 200) marked++;
                }
                if (marked) problems.push(`${name}: ${marked} drawn pixels on its ${side} edge (something is cut off)`);
            }
        }
        return problems;
    """)


def small_figure_text(driver: Any, minimum_px: float) -> list[str]:
    """Figures whose smallest text, as the page shows it, is under ``minimum_px`` CSS pixels.

    A figure states the smallest text it was drawn with, in pixels of its PNG (``data-text-px``,
    measured from the figure itself when it was saved: verify.core.figure_text); the page shows
    the PNG at some width, so the reader sees that text times the shown width over the natural
    width. A figure that does not state it is reported too: its text size is unknown.
    """
    return driver.execute_script("""
        const problems = [];
        for (const img of document.images) {
            if (!(img.complete && img.naturalWidth > 0)) continue;
            const name = img.alt || img.src.slice(0, 60);
            const drawn = parseFloat(img.dataset.textPx);
            if (!(drawn > 0)) { problems.push(`${name}: does not say how large its text is`); continue; }
            const shown = drawn * img.getBoundingClientRect().width / img.naturalWidth;
            if (shown < arguments[0]) {
                problems.push(`${name}: its smallest text is shown at ${shown.toFixed(1)} px `
                              + `(drawn at ${drawn} px, the image at ${Math.round(img.getBoundingClientRect().width)} `
                              + `of its ${img.naturalWidth} px)`);
            }
        }
        return problems;
    """, minimum_px)


def dangling_anchors(driver: Any) -> list[str]:
    return driver.execute_script("""
        return Array.from(document.querySelectorAll('a[href^="#"]'))
            .map(a => a.getAttribute('href').slice(1))
            .filter(id => !id || !document.getElementById(decodeURIComponent(id)))
            .map(id => '#' + id);
    """)


def console_errors(driver: Any) -> list[str]:
    return [entry["message"] for entry in driver.get_log("browser") if entry.get("level") == "SEVERE"]


def bottom_of(driver: Any, selector: str) -> float | None:
    """Where the first element matching ``selector`` ends, in CSS px from the top of the page (None: no such element)."""
    return driver.execute_script("""
        const el = document.querySelector(arguments[0]);
        return el ? el.getBoundingClientRect().bottom + window.scrollY : null;
    """, selector)
