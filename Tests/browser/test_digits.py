"""Issue 43, finding 4, in a real browser at 1366 and 390 px, in English and Persian: the report's
figures (tables and charts) in the reader's digits, its chart legends never drawn over their
swatches (right to left in Persian), the audit log's actions in words, and the access-denied page
in the viewer's language with the menu on it. Screenshots:
.screenshots/digits-<en|fa>-<1366|390>-<report|audit|denied>.png."""
import json
import time

from selenium.webdriver.common.by import By

from conftest import BASE, PASSWORD, api, screenshot, sign_in, submit_with
from test_languages import switch_language

PERSIAN = set("۰۱۲۳۴۵۶۷۸۹")
LATIN = set("0123456789")
WIDTHS = (1366, 390)


def campaign_with_events(driver):
    """A two-variant draft with 120 opens and 60 conversions on B, made over the API; returns its id."""
    status, body = api(driver, "POST", "/api/v1/campaigns", {
        "name": "Digits", "notification": {"title": "Hi"}, "topics": ["news"],
        "variants": [{"key": "A", "weight": 50}, {"key": "B", "weight": 50, "notification": {"title": "Hello"}}]})
    assert status == 201, body
    campaign = json.loads(body)["id"]
    events = [{"id": f"d-open-{i}", "campaign_id": campaign, "variant": "B", "type": "open"} for i in range(120)]
    events += [{"id": f"d-conv-{i}", "campaign_id": campaign, "variant": "B", "type": "conversion"} for i in range(60)]
    status, body = api(driver, "POST", "/api/v1/events", {"events": events})
    assert status == 200 and json.loads(body)["recorded"] == 180, body
    return campaign


def legend_problems(driver):
    """Each legend entry whose swatch and label overlap, or whose swatch is not at the label's start
    side (left in a left-to-right page, right in a right-to-left one), or two entries that overlap."""
    return driver.execute_script("""
        const rtl = document.documentElement.dir === "rtl";
        const problems = [];
        document.querySelectorAll("svg.chart").forEach((svg, chart) => {
            const boxes = [];
            svg.querySelectorAll("text.legend").forEach(text => {
                const swatch = text.previousElementSibling.getBoundingClientRect();
                const label = text.getBoundingClientRect();
                const name = chart + " " + text.textContent;
                if (swatch.left < label.right - 0.5 && label.left < swatch.right - 0.5) problems.push(name + ": swatch over its label");
                if (rtl ? swatch.left < label.right - 0.5 : swatch.right > label.left + 0.5) problems.push(name + ": swatch not at the start");
                boxes.push([Math.min(swatch.left, label.left), Math.max(swatch.right, label.right), name]);
            });
            boxes.sort((a, b) => a[0] - b[0]);
            for (let i = 1; i < boxes.length; i++) {
                if (boxes[i][0] < boxes[i - 1][1] - 0.5) problems.push(boxes[i - 1][2] + " overlaps " + boxes[i][2]);
            }
        });
        return problems;
    """)


def digits_in(texts, digits):
    return [text for text in texts if any(c in digits for c in text)]


def check_report(driver, campaign, language):
    own, other = (PERSIAN, LATIN) if language == "fa" else (LATIN, PERSIAN)
    for width in WIDTHS:
        driver.set_window_size(width, 1800)
        driver.get(BASE + f"/campaigns/{campaign}/report")
        assert driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == language
        cells = [cell.get_attribute("textContent") for cell in driver.find_elements(By.CSS_SELECTOR, "table.stack tbody td")]
        assert digits_in(cells, own) and not digits_in(cells, other), cells
        charts = driver.find_elements(By.CSS_SELECTOR, "svg.chart")
        assert charts, "the events chart and the trend"
        texts = [text.get_attribute("textContent") for chart in charts for text in chart.find_elements(By.CSS_SELECTOR, "text, title")]
        assert digits_in(texts, own) and not digits_in(texts, other), texts
        assert legend_problems(driver) == []
        screenshot(driver, f"digits-{language}-{width}-report", width=width)


def check_audit(driver, language):
    for width in WIDTHS:
        driver.set_window_size(width, 1800)
        driver.get(BASE + "/audit")
        code = driver.find_element(By.CSS_SELECTOR, "td .audit-code")
        cell = code.find_element(By.XPATH, "..")
        words = cell.get_attribute("textContent").replace(code.get_attribute("textContent"), "").strip()
        assert words and "." not in words, cell.get_attribute("textContent")
        if language == "fa":
            assert any("\u0600" <= c <= "\u06ff" for c in words), words
        screenshot(driver, f"digits-{language}-{width}-audit", width=width)


def sign_in_as(driver, email):
    submit_with(driver, driver.find_element(By.CSS_SELECTOR, "form.signout button"))
    driver.find_element(By.ID, "email").send_keys(email)
    driver.find_element(By.ID, "password").send_keys(PASSWORD)
    submit_with(driver, driver.find_element(By.CSS_SELECTOR, "form[method=post] button[type=submit]"))
    assert driver.current_url.startswith(BASE + "/campaigns"), driver.current_url


def test_figures_legends_audit_and_refusals_in_the_readers_language(browser):
    sign_in(browser)
    campaign = campaign_with_events(browser)
    viewer = f"viewer-{int(time.time() * 1000)}@example.com"
    status, body = api(browser, "POST", "/api/v1/users", {"email": viewer, "role": "viewer", "password": PASSWORD})
    assert status == 201, body
    for language in ("en", "fa"):
        browser.get(BASE + "/campaigns")
        switch_language(browser, language)
        check_report(browser, campaign, language)
        check_audit(browser, language)
    switch_language(browser, "en")

    # A viewer who chose Persian opens an admin's page: refused in Persian, the menu on Persian.
    sign_in_as(browser, viewer)
    for language in ("en", "fa"):
        browser.get(BASE + "/campaigns")
        switch_language(browser, language)
        for width in WIDTHS:
            browser.set_window_size(width, 1800)
            browser.get(BASE + "/users")
            html = browser.find_element(By.TAG_NAME, "html")
            assert html.get_attribute("lang") == language and html.get_attribute("dir") == ("rtl" if language == "fa" else "ltr")
            chosen = browser.find_element(By.CSS_SELECTOR, "#language-choice option:checked").get_attribute("value")
            assert chosen == language, chosen
            heading = browser.find_element(By.CSS_SELECTOR, ".access-denied h1").text
            assert heading == ("مجاز نیست" if language == "fa" else "Not allowed"), heading
            screenshot(browser, f"digits-{language}-{width}-denied", width=width)


def sticking_out(driver):
    """The elements past either side of the viewport: tag, id, type and where they are."""
    return driver.execute_script("""
        const width = document.documentElement.clientWidth;
        return [...document.querySelectorAll("body *")].filter(e => {
            const r = e.getBoundingClientRect();
            return r.right > width + 1 || r.left < -1;
        }).slice(0, 8).map(e => { const r = e.getBoundingClientRect();
            return e.tagName + "#" + e.id + "[" + (e.type || "") + "] " + Math.round(r.left) + ".." + Math.round(r.right) + " of " + width; });
    """)


def test_the_devices_page_fits_a_phone_in_persian(browser):
    """The devices page with its counts and a device listed, at 390 px in English and Persian: no
    sideways scroll, the counts in the reader's digits."""
    from conftest import no_sideways_scroll
    sign_in(browser)
    for index in range(3):
        status, body = api(browser, "PUT", f"/api/v1/devices/phone-fit-token-{index}-{int(time.time() * 1000)}",
                           {"platform": "android", "language": "fa", "country": "IR", "app_version": "5.10.2", "time_zone": "Asia/Tehran"})
        assert status in (200, 201), body
    for language in ("en", "fa"):
        browser.get(BASE + "/campaigns")
        switch_language(browser, language)
        for width in WIDTHS:
            browser.set_window_size(width, 1800)
            browser.get(BASE + "/devices")
            counts = [dd.text for dd in browser.find_elements(By.CSS_SELECTOR, "dl.counts dd")]
            own, other = (PERSIAN, LATIN) if language == "fa" else (LATIN, PERSIAN)
            assert digits_in(counts, own) and not digits_in(counts, other), counts
            fits, outside = no_sideways_scroll(browser), sticking_out(browser)
            screenshot(browser, f"digits-{language}-{width}-devices", width=width)
            assert fits, (language, width, outside)
    switch_language(browser, "en")
