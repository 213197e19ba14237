"""Issue 43's findings 2 and 5 in a real browser.

A phone's photo (1.5 MB) chosen in the composer: refused beside the image field in the page's
language with everything typed kept, JavaScript on (before anything is uploaded; the form does not
post) and off (the server's form error), at 1366 and 390 px, in English and Persian; past the
composer's own upload limit, a page in the user's language rather than raw JSON.

The keyboard: the first Tab of a page lands on the skip link and Enter moves focus to the main
content; tabbing through the composer at 1366 × 768 (and 390 × 844), no focused control is under
the sticky bar."""
import os
import tempfile
import time

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from conftest import BASE, SCREENSHOTS, png_file, submit_with
from test_languages import make_user, switch_language

TOO_LARGE = {
    "en": "The image is 1.5 MB; the limit is 300 KB.",
    "fa": "حجم تصویر ۱٫۵ مگابایت است؛ حد مجاز ۳۰۰ کیلوبایت است.",
}
UPLOAD_TOO_LARGE = {"en": "The upload is too large", "fa": "فایل بارگذاری‌شده بیش از حد بزرگ است"}
PHOTO = png_file(os.path.join(tempfile.mkdtemp(), "IMG_2041.png"), 1536 * 1024)


def fill(driver, name, text):
    element = driver.find_element(By.NAME, name)
    element.clear()
    element.send_keys(text)


def signed_in_as_new_user(driver, language):
    """A user of their own (the admin's language is left alone), in `language`."""
    make_user(driver, language)
    if language != "en":
        switch_language(driver, language)


def compose(driver, name):
    driver.get(BASE + "/campaigns/new")
    fill(driver, "name", name)
    fill(driver, "title", "Summer sale")
    fill(driver, "body", "Half price until Sunday")
    fill(driver, "topics", "news")
    driver.find_element(By.ID, "image_file").send_keys(PHOTO)


def kept(driver, name):
    values = [driver.find_element(By.NAME, field).get_attribute("value") for field in ("name", "title", "body", "topics")]
    return values == [name, "Summer sale", "Half price until Sunday", "news"]


def image_error(driver):
    return " ".join(e.text for e in driver.find_elements(By.CSS_SELECTOR, "#field-image_file .field-error"))


def saved(driver, name):
    driver.get(BASE + "/campaigns?q=" + name)
    return name in driver.find_element(By.TAG_NAME, "main").text


@pytest.mark.parametrize("language", ["en", "fa"])
@pytest.mark.parametrize("width", [1366, 390])
@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_a_photo_too_large_is_refused_beside_its_field(request, javascript, width, language):
    driver = request.getfixturevalue("browser" if javascript else "browser_without_js")
    signed_in_as_new_user(driver, language)
    driver.set_window_size(width, 900)
    name = f"Photo {language} {width} {'js' if javascript else 'nojs'} {int(time.time() * 1000)}"
    compose(driver, name)
    shot = f"upload-too-large-{language}-{width}-{'js' if javascript else 'nojs'}"
    if javascript:
        # Said at once, before anything is sent, and the form does not post while it holds the photo.
        WebDriverWait(driver, 10).until(lambda d: TOO_LARGE[language] in image_error(d), "no error beside the image field")
        driver.execute_script("window.stillThisPage = true")
        for action in ("save", "review"):
            button = driver.find_element(By.CSS_SELECTOR, f"button[name=action][value={action}]")
            # The submit event a click fires is cancelled (a dispatched one, so nothing posts if not)...
            assert driver.execute_script("""
                const event = new SubmitEvent("submit", {cancelable: true, bubbles: true, submitter: arguments[0]});
                arguments[0].form.dispatchEvent(event);
                return event.defaultPrevented;""", button), f"{action} would post the photo"
            # ...and a real click leaves the page as it is, focus on the image field.
            driver.execute_script("arguments[0].click()", button)
            assert driver.switch_to.active_element.get_attribute("id") == "image_file"
        assert driver.find_element(By.ID, "image_file").get_attribute("aria-invalid") == "true"
    else:
        submit_with(driver, driver.find_element(By.CSS_SELECTOR, "button[name=action][value=review]"))
        assert TOO_LARGE[language] in image_error(driver), image_error(driver)
        assert "invalid" in driver.find_element(By.ID, "field-image_file").get_attribute("class")
    assert driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == language
    assert kept(driver, name)
    driver.execute_script("document.getElementById('field-image_file').scrollIntoView({block: 'center'})")
    snap(driver, shot)
    if javascript:
        assert driver.execute_script("return window.stillThisPage === true"), "the form posted"
    assert not saved(driver, name)


@pytest.mark.parametrize("language", ["en", "fa"])
def test_an_upload_past_the_forms_limit_is_a_page_in_the_users_language(browser_without_js, language):
    driver = browser_without_js
    signed_in_as_new_user(driver, language)
    name = f"Huge {language} {int(time.time() * 1000)}"
    huge = os.path.join(tempfile.mkdtemp(), "scan.png")
    with open(huge, "wb") as file:
        file.write(os.urandom(17 * 1024 * 1024))
    driver.get(BASE + "/campaigns/new")
    fill(driver, "name", name)
    driver.find_element(By.ID, "image_file").send_keys(huge)
    submit_with(driver, driver.find_element(By.CSS_SELECTOR, "button[name=action][value=save]"))
    assert driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == language
    assert UPLOAD_TOO_LARGE[language] in driver.find_element(By.TAG_NAME, "h1").text
    assert "about:blank" not in driver.page_source
    snap(driver, f"upload-past-the-limit-{language}")
    assert not saved(driver, name)


def snap(driver, name):
    """The viewport as it is (the conftest's screenshot resizes the window, which moves the layout)."""
    os.makedirs(SCREENSHOTS, exist_ok=True)
    driver.save_screenshot(os.path.join(SCREENSHOTS, name + ".png"))


def focused(driver):
    return driver.execute_script("""
        const e = document.activeElement, bar = document.querySelector('.form-actions');
        const r = e.getBoundingClientRect(), b = bar ? bar.getBoundingClientRect() : null;
        return {tag: e.tagName, id: e.id, name: e.getAttribute('name') || '', cls: e.className || '',
                inForm: !!e.closest('form.campaign-form'), inBar: !!(bar && bar.contains(e)),
                rect: [r.left, r.top, r.right, r.bottom], bar: b && [b.left, b.top, b.right, b.bottom]};
    """)


def intersects(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("size", [(1366, 768), (390, 844)], ids=["1366", "390"])
@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_the_keyboard_reaches_every_control_unhidden_and_skips_to_the_content(request, javascript, size):
    driver = request.getfixturevalue("browser" if javascript else "browser_without_js")
    signed_in_as_new_user(driver, "en")
    driver.set_window_size(*size)
    tag = f"{'js' if javascript else 'nojs'}-{size[0]}"
    driver.get(BASE + "/campaigns/new")
    keys = ActionChains(driver)

    # The first Tab lands on the skip link, shown; Enter moves focus to the main content.
    keys.send_keys(Keys.TAB).perform()
    first = driver.switch_to.active_element
    assert "skip-link" in first.get_attribute("class") and first.text == "Skip to content"
    assert first.is_displayed() and first.rect["y"] >= 0
    snap(driver, f"skip-link-{tag}")
    keys.send_keys(Keys.ENTER).perform()
    WebDriverWait(driver, 5).until(lambda d: d.switch_to.active_element.get_attribute("id") == "main")

    # From there, Tab through the whole form: no focused control is under the sticky bar.
    stops, covered, left_form = 0, [], False
    for _ in range(250):
        keys.send_keys(Keys.TAB).perform()
        now = focused(driver)
        if not now["inForm"]:
            if stops:
                left_form = True
                break
            continue
        stops += 1
        if not now["inBar"] and intersects(now["rect"], now["bar"]):
            covered.append(f"{now['tag']}#{now['id'] or now['name']} at {now['rect']} under the bar at {now['bar']}")
            if len(covered) == 1:
                snap(driver, f"focus-under-the-bar-{tag}")
    assert left_form and stops > 40, (left_form, stops)
    snap(driver, f"focus-after-the-form-{tag}")
    assert not covered, f"{len(covered)} of {stops} focus stops under the sticky bar: " + "; ".join(covered)
