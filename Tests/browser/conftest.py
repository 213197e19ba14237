"""Fixtures for Herald's browser tests: a headless Chromium with and without JavaScript, signed in."""
import os
import struct
import zlib

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

BASE = os.environ.get("HERALD_URL", "http://127.0.0.1:8080")
EMAIL = os.environ.get("HERALD_EMAIL", "admin@example.com")
PASSWORD = os.environ.get("HERALD_PASSWORD", "")
SCREENSHOTS = os.environ.get("HERALD_SCREENSHOTS", ".screenshots")


def make_driver(javascript: bool) -> webdriver.Chrome:
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1800", "--lang=en-US"):
        options.add_argument(argument)
    if not javascript:
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.implicitly_wait(0)
    return driver


@pytest.fixture
def browser():
    driver = make_driver(javascript=True)
    yield driver
    driver.quit()


@pytest.fixture
def browser_without_js():
    driver = make_driver(javascript=False)
    yield driver
    driver.quit()


def sign_in(driver) -> None:
    driver.get(BASE + "/campaigns")
    assert "/sign-in" in driver.current_url, "an anonymous visit must be sent to sign in"
    driver.find_element(By.ID, "email").send_keys(EMAIL)
    driver.find_element(By.ID, "password").send_keys(PASSWORD)
    submit_with(driver, driver.find_element(By.CSS_SELECTOR, "form[method=post] button[type=submit]"))
    assert driver.current_url.startswith(BASE + "/campaigns"), driver.current_url


def submit_with(driver, button) -> None:
    """Clicks a form's submit button and waits for the next page to replace this one."""
    from selenium.webdriver.support.ui import WebDriverWait
    from selenium.common.exceptions import TimeoutException, WebDriverException
    page = driver.find_element(By.TAG_NAME, "html")

    def replaced(_) -> bool:
        # The old page's root is gone once the next page loads. Chromedriver says so either as a
        # stale element or as "Node … does not belong to the document": both mean replaced.
        try:
            page.is_enabled()
            return False
        except WebDriverException:
            return True

    try:
        button.click()
    except WebDriverException:
        # Chromedriver sometimes reports a click that started the navigation as failed; the
        # wait below tells whether it did.
        pass
    try:
        # A loaded machine can take seconds to navigate: wait the whole time before concluding
        # that the click did nothing, so a slow page is never posted twice.
        WebDriverWait(driver, 15).until(replaced)
    except TimeoutException:
        button.click()
        WebDriverWait(driver, 15).until(replaced, "the form post never loaded a new page")


def wait_for_text(driver, text: str, seconds: float = 10) -> None:
    """Waits until the page (after a form post and its redirect) shows `text`."""
    from selenium.webdriver.support.ui import WebDriverWait
    WebDriverWait(driver, seconds).until(lambda d: text in d.page_source, f"the page never showed {text!r}")


def screenshot(driver, name: str, full_page: bool = True, width: int = 1280) -> None:
    os.makedirs(SCREENSHOTS, exist_ok=True)
    driver.set_window_size(width, 1800)
    if full_page:
        height = driver.execute_script("return document.documentElement.scrollHeight") or 1800
        driver.set_window_size(width, min(max(int(height), 900), 6000))
    driver.save_screenshot(os.path.join(SCREENSHOTS, name + ".png"))
    driver.set_window_size(1280, 1800)


def png_file(path: str, total_bytes: int, width: int = 600, height: int = 300) -> str:
    """A real, decodable PNG (a gradient) padded with a private chunk to exactly total_bytes."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    rows = b"".join(b"\x00" + b"".join(bytes((x * 255 // width, y * 255 // height, 200)) for x in range(width)) for y in range(height))
    head = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    body = chunk(b"IDAT", zlib.compress(rows, 9))
    end = chunk(b"IEND", b"")
    padding = total_bytes - len(head) - len(body) - len(end) - 12
    assert padding >= 0, "the image is already larger than asked"
    data = head + body + chunk(b"prVt", bytes(i * 7 % 256 for i in range(padding))) + end
    assert len(data) == total_bytes
    with open(path, "wb") as file:
        file.write(data)
    return path


def api(driver, method: str, path: str, body=None):
    """Calls Herald's REST API from the signed-in page (session cookie + the page's CSRF token);
    returns (status, raw text)."""
    return driver.execute_async_script("""
        const [method, path, body, done] = arguments;
        const token = (document.querySelector("input[name=csrf_token]") || {}).value || "";
        const init = {method, headers: {"X-CSRF-Token": token}};
        if (body !== null) { init.headers["Content-Type"] = "application/json"; init.body = JSON.stringify(body); }
        fetch(path, init).then(r => r.text().then(text => done([r.status, text]))).catch(e => done([0, String(e)]));
    """, method, path, body)


def answer_dialog(driver, yes: bool) -> str:
    """Answers the confirmation dialog an irreversible action opens (JavaScript on); returns its question."""
    from selenium.webdriver.support.ui import WebDriverWait
    dialog = WebDriverWait(driver, 10).until(lambda d: d.find_element(By.CSS_SELECTOR, "dialog.confirm-dialog[open]"))
    question = dialog.find_element(By.TAG_NAME, "p").text
    buttons = dialog.find_elements(By.TAG_NAME, "button")
    if yes:
        submit_with(driver, buttons[0])
    else:
        buttons[1].click()
        WebDriverWait(driver, 10).until(lambda d: not d.find_elements(By.CSS_SELECTOR, "dialog.confirm-dialog"))
    return question


def no_sideways_scroll(driver) -> bool:
    return driver.execute_script("return document.documentElement.scrollWidth <= document.documentElement.clientWidth")
