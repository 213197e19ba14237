"""Herald in its marketers' languages (issue 16), in a real browser: a Persian, a Hebrew, a Hindi and a
Vietnamese user each switch the pages to their language with the top bar's form and walk
list → composer (with a form error) → review → report. Persian and Hebrew pages are right to left
with no English label left and no sideways scroll at 1366 and 390 px; every walk leaves screenshots
(.screenshots/lang-*.png) that show the script shaped with the fonts the run script installs."""
import json
import os
import re
import time

import pytest
from selenium.webdriver.common.by import By

from conftest import BASE, PASSWORD, api, no_sideways_scroll, screenshot, sign_in, submit_with

STRINGS = os.path.join(os.path.dirname(__file__), "..", "..", "Sources", "HeraldWeb", "Localization", "Strings")


def table(language):
    """A language's Localizable.strings as a dict (the "key" = "value"; lines Herald writes)."""
    with open(os.path.join(STRINGS, f"{language}.lproj", "Localizable.strings"), encoding="utf-8") as file:
        text = file.read()
    return {key: json.loads('"' + value + '"') for key, value in re.findall(r'^"([^"]+)" = "((?:[^"\\]|\\.)*)";$', text, re.M)}


ENGLISH = table("en")
# The English labels of the pages walked here: headings, steps, buttons, column names and statuses.
LABEL_KEYS = [key for key in ENGLISH if key.split(".")[0] in ("nav", "list", "common", "status", "report", "review", "language")
              or key.startswith(("composer.step.", "composer.errors.", "composer.kind.", "composer.schedule_kind.", "composer.save"))]


def english_left(driver, language):
    """The English labels still visible on the page: those whose translation differs and that
    appear as whole words in the rendered text."""
    translated = table(language)
    text = driver.execute_script("return document.body.innerText")
    left = []
    for key in LABEL_KEYS:
        label = ENGLISH[key]
        if "%" in label or len(label) < 4 or translated.get(key) == label:
            continue
        if re.search(r"(?<![\w])" + re.escape(label) + r"(?![\w])", text):
            left.append(label)
    return left


# Latin words a right-to-left page may show: names of products and standards, the schedule's zone,
# the test's own topic, and the switcher's language names.
LATIN_ALLOWED = {"Herald", "Android", "iOS", "IOS", "ANDROID", "FCM", "JSON", "API", "URL", "PNG", "JPEG", "GIF", "KB", "CSV", "HTTP",
                 "JavaScript", "IANA", "Asia", "Tehran", "Dubai", "New_York", "Firebase", "Cloud", "Messaging", "UTC", "POST", "api",
                 "events", "null", "android", "apns", "webpush", "news", "English", "Tiếng", "Việt", "herald", "campaign", "variant",
                 "https", "http", "example", "com", "full", "Idempotency", "Key", "NUL"}


def latin_words_left(driver):
    """Latin words outside the page's left-to-right islands (code, JSON, tokens, e-mails, the brand,
    text people wrote such as other campaigns' names)."""
    text = driver.execute_script("""
        const copy = document.body.cloneNode(true);
        // Islands: code and JSON, e-mails, campaign names and whatever else people wrote ([dir=auto]).
        copy.querySelectorAll("code, pre, bdi, [dir=ltr], [dir=auto], script, template, option, time").forEach(e => e.remove());
        // What the user typed comes back inside Unicode isolates (FSI … PDI): an island of its own.
        return copy.textContent.replace(/\u2068[^\u2069]*\u2069/g, " ");
    """)
    return sorted({word for word in re.findall(r"[A-Za-z][A-Za-z_]{2,}", text) if word not in LATIN_ALLOWED})


def check_page(driver, language, step):
    html = driver.find_element(By.TAG_NAME, "html")
    assert html.get_attribute("lang") == language, (step, html.get_attribute("lang"))
    rtl = language in ("fa", "he")
    assert html.get_attribute("dir") == ("rtl" if rtl else "ltr"), step
    assert "⟦" not in driver.page_source, f"{step}: a missing text"
    assert english_left(driver, language) == [], f"{step}: English left {english_left(driver, language)}"
    for width in (1366, 390):
        driver.set_window_size(width, 900)
        assert no_sideways_scroll(driver), f"{language} {step} scrolls sideways at {width} px: {overflowing(driver)}"
    if rtl:
        assert latin_words_left(driver) == [], f"{step}: English words left {latin_words_left(driver)}"
        # The page really lays out right to left: the brand sits at the right of the top bar.
        driver.set_window_size(1366, 900)
        brand = driver.find_element(By.CSS_SELECTOR, ".topbar .brand").rect
        assert brand["x"] > 1366 / 2, f"{step}: the brand is on the left in a right-to-left page"
    screenshot(driver, f"lang-{language}-{step}", width=1366)
    screenshot(driver, f"lang-{language}-{step}-phone", width=390)


def overflowing(driver):
    """The innermost elements that stick out of the viewport sideways, to name in a failure."""
    return driver.execute_script("""
        const width = document.documentElement.clientWidth;
        return [...document.querySelectorAll("body *")].filter(e => {
            const r = e.getBoundingClientRect();
            return (r.right > width + 1 || r.left < -1) && ![...e.children].some(c => {
                const q = c.getBoundingClientRect(); return q.right > width + 1 || q.left < -1; });
        }).slice(0, 5).map(e => e.tagName + "." + e.className + ": " + e.textContent.trim().slice(0, 60));
    """)


def make_user(driver, language):
    """A publisher of its own, created by the admin through the API; returns its e-mail."""
    sign_in(driver)
    email = f"{language}-{int(time.time() * 1000)}@example.com"
    status, body = api(driver, "POST", "/api/v1/users", {"email": email, "role": "publisher", "password": PASSWORD})
    assert status == 201, body
    submit_with(driver, driver.find_element(By.CSS_SELECTOR, "form.signout button"))
    driver.find_element(By.ID, "email").send_keys(email)
    driver.find_element(By.ID, "password").send_keys(PASSWORD)
    submit_with(driver, driver.find_element(By.CSS_SELECTOR, "form[method=post] button[type=submit]"))
    assert driver.current_url.startswith(BASE + "/campaigns"), driver.current_url
    return email


def switch_language(driver, language):
    driver.find_element(By.CSS_SELECTOR, f"#language-choice option[value='{language}']").click()
    submit_with(driver, driver.find_element(By.CSS_SELECTOR, "form.language button"))


def fill(driver, name, text):
    element = driver.find_element(By.NAME, name)
    element.clear()
    element.send_keys(text)


NAMES = {"fa": ("حراج نوروزی", "تا ۲۰٪ تخفیف روی همه‌چیز"), "he": ("מבצע אביב", "עד 20% הנחה על הכול"),
         "hi": ("दिवाली सेल", "सब कुछ पर 20% तक की छूट"), "vi": ("Khuyến mãi Tết", "Giảm đến 20% cho mọi sản phẩm")}


def walk(driver, language):
    make_user(driver, language)
    switch_language(driver, language)
    assert driver.current_url.startswith(BASE + "/campaigns")
    check_page(driver, language, "list")

    driver.get(BASE + "/campaigns/new")
    check_page(driver, language, "composer")
    name, body = NAMES[language]
    fill(driver, "name", name)
    fill(driver, "title", name)
    fill(driver, "body", body)
    fill(driver, "topics", "bad topic!")
    once = driver.find_element(By.CSS_SELECTOR, "input[name='schedule_kind'][value='once']")
    # Taller lines (Persian, Devanagari) can put the radio under the sticky save bar: centre it first.
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", once)
    once.click()
    driver.execute_script("document.getElementById('schedule_at').value = '2027-03-21T09:30'")
    fill(driver, "time_zone", "Asia/Tehran")
    submit_with(driver, driver.find_element(By.CSS_SELECTOR, "button[name=action][value=review]"))
    summary = driver.find_element(By.CSS_SELECTOR, ".error-summary")
    assert summary.text.strip(), "the form error is shown"
    assert driver.find_element(By.NAME, "body").get_attribute("value") == body, "what was typed is kept"
    check_page(driver, language, "composer-error")

    fill(driver, "topics", "news")
    submit_with(driver, driver.find_element(By.CSS_SELECTOR, "button[name=action][value=review]"))
    assert "/review" in driver.current_url, driver.find_element(By.TAG_NAME, "main").text[:400]
    check_page(driver, language, "review")
    facts = driver.find_element(By.CSS_SELECTOR, ".facts").text
    if language == "fa":
        # The schedule in the Solar Hijri calendar, with the Gregorian date beside it.
        assert "۱ فروردین ۱۴۰۶، ۰۹:۳۰" in facts and "۲۱ مارس ۲۰۲۷" in facts, facts
    campaign = driver.current_url.split("/campaigns/")[1].split("/")[0]

    driver.get(BASE + f"/campaigns/{campaign}/report")
    check_page(driver, language, "report")

    # The segment editor, with two groups as a marketer builds them.
    driver.get(BASE + "/segments")
    submit_with(driver, driver.find_element(By.CSS_SELECTOR, "button[name=action][value=add_group]"))
    check_page(driver, language, "segments")
    return campaign


@pytest.mark.parametrize("language", ["fa", "he", "hi", "vi"])
def test_a_user_walks_the_composer_in_their_language(browser, language):
    walk(browser, language)


def test_the_scripts_are_drawn_with_their_own_fonts(browser):
    """Persian, Hebrew, Devanagari and Vietnamese text is measured once in its font stack and once
    in a bare fallback: a difference means the script has a font of its own (not boxes)."""
    sign_in(browser)
    widths = browser.execute_script("""
        const canvas = document.createElement("canvas").getContext("2d");
        const measure = (font, text) => { canvas.font = font; return canvas.measureText(text).width; };
        return Object.fromEntries(Object.entries(arguments[0]).map(([family, text]) =>
            [family, [measure("32px '" + family + "', monospace", text), measure("32px monospace", text)]]));
    """, {"Noto Sans Arabic": "کمپین‌های زمان‌بندی‌شده", "Noto Sans Hebrew": "קמפיינים מתוזמנים",
          "Noto Sans Devanagari": "शेड्यूल किए गए कैंपेन", "Noto Sans": "Chiến dịch đã lên lịch"})
    for family, (own, fallback) in widths.items():
        assert abs(own - fallback) > 1, f"{family} is not installed: text falls back to monospace"
