"""Importing devices from the devices page: the page's script sends the chosen file as the request
itself, which Herald reads as it arrives, so a file over the 1 MB body limit imports whole and the
report takes the page's place; without the script the form still posts (up to 1 MB)."""
import os
import tempfile

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from conftest import BASE, screenshot, sign_in, wait_for_text


def devices_csv(rows: int, prefix: str) -> str:
    path = os.path.join(tempfile.mkdtemp(), f"{prefix}.csv")
    with open(path, "w") as f:
        f.write("token,platform,language,country,first_name\n")
        for i in range(rows):
            f.write(f"{prefix}-{i:05d}-{'x' * 150},android,fa-IR,IR,Sara\n")
    return path


def test_a_csv_over_the_body_limit_imports_from_the_page(browser):
    sign_in(browser)
    browser.get(BASE + "/devices")
    rows = 9000
    path = devices_csv(rows, "browser-import")
    assert os.path.getsize(path) > 1 << 20
    browser.find_element(By.ID, "device-file").send_keys(path)
    browser.find_element(By.CSS_SELECTOR, "form[data-stream-import] button[type=submit]").click()
    wait_for_text(browser, f"{rows} rows read: {rows} devices added, 0 updated, 0 refused.", seconds=60)
    screenshot(browser, "devices-import")
    # The same file again only updates: importing twice is safe.
    browser.find_element(By.ID, "device-file").send_keys(path)
    browser.find_element(By.CSS_SELECTOR, "form[data-stream-import] button[type=submit]").click()
    wait_for_text(browser, f"{rows} rows read: 0 devices added, {rows} updated, 0 refused.", seconds=60)


def test_without_script_the_form_posts_a_small_file(browser_without_js):
    sign_in(browser_without_js)
    browser_without_js.get(BASE + "/devices")
    browser_without_js.find_element(By.ID, "device-file").send_keys(devices_csv(20, "form-import"))
    browser_without_js.find_element(By.CSS_SELECTOR, "form[data-stream-import] button[type=submit]").click()
    wait_for_text(browser_without_js, "20 rows read: 20 devices added, 0 updated, 0 refused.")


def test_a_segment_is_built_with_live_reach(browser):
    """The segment editor with its script: the reach follows the rule as it is edited (no button),
    a property name is asked for only on a property row, and a row is added by its button."""
    sign_in(browser)
    browser.get(BASE + "/devices")
    browser.find_element(By.ID, "device-file").send_keys(devices_csv(3, "segment-live"))
    browser.find_element(By.CSS_SELECTOR, "form[data-stream-import] button[type=submit]").click()
    wait_for_text(browser, "3 rows read")
    browser.get(BASE + "/segments")
    name = browser.find_element(By.NAME, "name_0")
    Select(browser.find_element(By.NAME, "field_0")).select_by_value("country")
    assert not name.is_displayed(), "a country row asks for no property name"
    browser.find_element(By.NAME, "value_0").send_keys("IR")
    # Counted as typed: every imported device is in IR (other tests' devices may be too).
    reach = browser.find_element(By.CSS_SELECTOR, "[data-live-reach]")
    WebDriverWait(browser, 10).until(lambda d: reach.is_displayed() and "active devices match now" in reach.text,
                                     "the reach never followed the rule")
    Select(browser.find_element(By.NAME, "field_0")).select_by_value("property")
    assert name.is_displayed(), "a property row asks for its name"
    screenshot(browser, "segment-editor-live")
    browser.find_element(By.XPATH, "//button[normalize-space()='Add a condition']").click()
    # The button's own text is on the page before and after: wait for the row it adds.
    WebDriverWait(browser, 15).until(lambda d: d.find_elements(By.NAME, "field_1"), "adding a condition never showed a second row")
    screenshot(browser, "segment-editor-390", width=390)
