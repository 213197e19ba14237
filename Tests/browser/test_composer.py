"""The composer in a real browser: compose in Persian with an image, the counter and the preview,
a limit that fails and keeps the form, save, schedule, cancel; a script title stays text; and the
same core flow with JavaScript disabled."""
import os
import tempfile

from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.common.by import By

from conftest import BASE, answer_dialog, png_file, screenshot, sign_in, submit_with, wait_for_text

TITLE = "حراج نوروزی"
BODY = "تا ۲۰٪ تخفیف روی همه‌چیز — فقط تا جمعه. Xin chào! नमस्ते"
SCRIPT = "<script>alert(1)</script>"


def field(driver, name):
    return driver.find_element(By.NAME, name)


def fill(driver, name, text):
    element = field(driver, name)
    element.clear()
    element.send_keys(text)


def choose(driver, name, value):
    element = driver.find_element(By.CSS_SELECTOR, f"input[name='{name}'][value='{value}']")
    # Scrolled to the middle first: at the bottom edge, where a click scrolls it, the sticky save bar covers it.
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


def set_schedule_once(driver):
    """A date next year at 09:00 Tehran time, typed into the native date-time field."""
    choose(driver, "schedule_kind", "once")
    element = field(driver, "schedule_at")
    # Chrome's en-US datetime-local takes month, day, year, tab, hours, minutes, AM/PM.
    element.send_keys("03202030")
    element.send_keys("\t0900AM")
    fill(driver, "time_zone", "Asia/Tehran")


def no_alert(driver):
    try:
        driver.switch_to.alert
    except NoAlertPresentException:
        return True
    return False


def compose_persian(driver, image_path, with_js):
    driver.get(BASE + "/campaigns/new")
    fill(driver, "name", "Nowruz sale " + ("js" if with_js else "no-js"))
    fill(driver, "title", TITLE)
    fill(driver, "body", BODY)
    field(driver, "image_file").send_keys(image_path)
    fill(driver, "topics", "news, offers")
    set_schedule_once(driver)


def test_compose_in_persian_fail_a_limit_save_schedule_cancel(browser):
    sign_in(browser)
    image = png_file(os.path.join(tempfile.mkdtemp(), "banner.png"), 299 * 1024)
    compose_persian(browser, image, with_js=True)

    # The live counter counts like the server (grapheme clusters) and the preview follows the typing.
    expected = browser.execute_script(
        "const s = new Intl.Segmenter(undefined, {granularity: 'grapheme'});"
        "return [...s.segment(arguments[0])].length + [...s.segment(arguments[1])].length;", TITLE, BODY)
    assert browser.find_element(By.CSS_SELECTOR, "[data-counter]").text == str(expected)
    title = browser.find_element(By.CSS_SELECTOR, ".device.android [data-preview-title]")
    assert title.text == TITLE
    assert title.get_attribute("dir") == "auto"
    assert browser.execute_script("return arguments[0].matches(':dir(rtl)')", title)
    image_preview = browser.find_element(By.CSS_SELECTOR, ".device.android [data-preview-image]")
    assert image_preview.is_displayed() and image_preview.get_attribute("src").startswith("data:image/png")
    screenshot(browser, "composer-rtl-preview")

    # 1001 characters: refused, with the error beside the text field and everything kept.
    long_body = "ب" * (1001 - len(TITLE))
    fill(browser, "body", long_body)
    assert browser.find_element(By.CSS_SELECTOR, "[data-counter]").text == "1001"
    assert "over" in browser.find_element(By.ID, "counter").get_attribute("class")
    submit_with(browser, browser.find_element(By.CSS_SELECTOR, "button[name=action][value=save]"))
    error = browser.find_element(By.CSS_SELECTOR, "#field-body .field-error")
    assert "at most 1000 characters, found 1001" in error.text
    assert field(browser, "title").get_attribute("value") == TITLE
    assert field(browser, "body").get_attribute("value") == long_body
    assert field(browser, "topics").get_attribute("value") == "news, offers"
    # The image was accepted on that post and is kept as its URL ending in .png, with the scheme the
    # (plain-HTTP) test server was reached by, so that it loads.
    image_url = field(browser, "image_url").get_attribute("value")
    assert image_url.startswith("http://") and image_url.endswith(".png"), image_url
    screenshot(browser, "composer-error")

    fill(browser, "body", BODY)
    submit_with(browser, browser.find_element(By.CSS_SELECTOR, "button[name=action][value=review]"))
    assert "/review" in browser.current_url
    assert TITLE in browser.find_element(By.CSS_SELECTOR, ".variant-preview [data-preview-title]").text
    assert "herald-" in browser.find_element(By.CSS_SELECTOR, "pre.json").get_attribute("textContent")
    screenshot(browser, "review")

    schedule = browser.find_element(By.XPATH, "//button[starts-with(normalize-space(), 'Schedule for')]")
    assert schedule.text == "Schedule for Wed 20 Mar 2030, 09:00 Asia/Tehran", schedule.text
    submit_with(browser, schedule)
    wait_for_text(browser, "Campaign scheduled.")
    assert browser.find_element(By.CSS_SELECTOR, ".page-head .status").text == "Scheduled"
    browser.find_element(By.XPATH, "//button[normalize-space()='Cancel campaign']").click()
    assert "will send nothing more" in answer_dialog(browser, yes=True)
    wait_for_text(browser, "Campaign cancelled.")

    browser.get(BASE + "/campaigns")
    row = browser.find_element(By.XPATH, "//tr[.//a[contains(., 'Nowruz sale js')]]")
    assert "Cancelled" in row.text


def test_a_script_title_is_text_everywhere(browser):
    sign_in(browser)
    browser.get(BASE + "/campaigns/new")
    fill(browser, "name", SCRIPT)
    fill(browser, "title", SCRIPT)
    fill(browser, "body", "Hello")
    fill(browser, "topics", "news")
    assert no_alert(browser)
    assert browser.find_element(By.CSS_SELECTOR, ".device.ios [data-preview-title]").text == SCRIPT
    submit_with(browser, browser.find_element(By.CSS_SELECTOR, "button[name=action][value=review]"))
    campaign = browser.current_url.split("/campaigns/")[1].split("/")[0]
    for path, selector in [("/campaigns", "a.campaign-name"), (f"/campaigns/{campaign}/edit", ".device.android [data-preview-title]"),
                           (f"/campaigns/{campaign}/review", ".variant-preview [data-preview-title]"),
                           (f"/campaigns/{campaign}/report", ".page-head h1")]:
        browser.get(BASE + path)
        assert no_alert(browser), path
        texts = [element.text for element in browser.find_elements(By.CSS_SELECTOR, selector)]
        assert any(SCRIPT in text for text in texts), (path, texts)


def test_every_form_works_without_javascript(browser_without_js):
    driver = browser_without_js
    sign_in(driver)
    image = png_file(os.path.join(tempfile.mkdtemp(), "banner.png"), 120 * 1024)
    compose_persian(driver, image, with_js=False)
    # Without JavaScript the server-rendered counter stays as rendered: the form still works.
    fill(driver, "body", "ب" * (1001 - len(TITLE)))
    submit_with(driver, driver.find_element(By.CSS_SELECTOR, "button[name=action][value=save]"))
    assert "found 1001" in driver.find_element(By.CSS_SELECTOR, "#field-body .field-error").text
    assert field(driver, "title").get_attribute("value") == TITLE
    # The server-rendered preview shows what was typed, right to left.
    assert driver.find_element(By.CSS_SELECTOR, ".device.ios [data-preview-title]").text == TITLE
    fill(driver, "body", BODY)
    submit_with(driver, driver.find_element(By.CSS_SELECTOR, "button[name=action][value=save]"))
    wait_for_text(driver, "Draft saved.")
    driver.find_element(By.LINK_TEXT, "Review").click()
    submit_with(driver, driver.find_element(By.XPATH, "//button[starts-with(normalize-space(), 'Schedule for')]"))
    wait_for_text(driver, "Campaign scheduled.")
    # Without JavaScript, Cancel asks on a page of its own.
    submit_with(driver, driver.find_element(By.XPATH, "//button[normalize-space()='Cancel campaign']"))
    wait_for_text(driver, "Cancel this campaign?")
    submit_with(driver, driver.find_element(By.XPATH, "//button[normalize-space()='Cancel campaign']"))
    wait_for_text(driver, "Campaign cancelled.")
    # List actions: duplicate, then delete the copy (a draft).
    driver.get(BASE + "/campaigns?q=no-js")
    submit_with(driver, driver.find_element(By.XPATH, "//button[normalize-space()='Duplicate']"))
    wait_for_text(driver, "Campaign duplicated")
    driver.get(BASE + "/campaigns?q=Copy+of")
    submit_with(driver, driver.find_element(By.XPATH, "//button[normalize-space()='Delete']"))
    wait_for_text(driver, "Delete this draft?")
    submit_with(driver, driver.find_element(By.XPATH, "//button[normalize-space()='Delete draft']"))
    wait_for_text(driver, "Draft deleted.")
