"""The composer at parity with the API, and nothing sent by surprise: a campaign with every field
survives the composer byte for byte; each irreversible action asks first, with JavaScript and
without; the counter speaks in bytes before saving; no page scrolls sideways at 1366 or 390 px."""
import json

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import BASE, SCREENSHOTS, answer_dialog, api, no_sideways_scroll, screenshot, sign_in, submit_with, wait_for_text
import schema_campaigns
from test_composer import field, fill

EVERY_FIELD = {
    "name": "Every field",
    "notification": {"title": "Hello", "body": "Line one\nLine two", "image": "https://cdn.example.com/a.png"},
    "topics": ["news", "offers"],
    "data": {"z_last": "1", "deep_link": "app://sale", "multi": "a\nb"},
    "options": {
        "android_channel_id": "sales", "priority": "high", "sound": "chime", "icon": "ic_stat",
        "web_icon": "https://cdn.example.com/i.png", "color": "#1a73e8", "click_action": "OPEN", "ios_badge": 3,
        "ios_sound": "ping.caf", "ios_category": "SALE", "web_link": "https://example.com/sale", "expiry_seconds": 3600,
        "analytics_label": "spring", "collapse_key": "sale",
        "overrides": {"android": {"notification": {"tag": "sale", "sticky": True}},
                      "apns": {"headers": {"apns-push-type": "alert"}}, "webpush": {"headers": {"Urgency": "high"}}},
    },
    "variants": [{"key": f"V{i}", "weight": i + 1,
                  "notification": {"title": f"Title {i}", "image": f"https://cdn.example.com/v{i}.png"},
                  "data": {"variant": f"v{i}", f"extra {i}": "x"}} for i in range(10)],
    "holdout_percent": 5,
    "schedule": {"kind": "weekly", "time": "09:30", "time_zone": "Asia/Dubai", "days": ["mon", "fri"], "until": "2099-12-31"},
}


def create(driver, body):
    driver.get(BASE + "/campaigns")
    status, text = api(driver, "POST", "/api/v1/campaigns", body)
    assert status == 201, text
    return json.loads(text)["id"]


def read(driver, campaign):
    status, text = api(driver, "GET", f"/api/v1/campaigns/{campaign}")
    assert status == 200, text
    return text


def test_a_campaign_with_every_field_survives_the_composer(browser):
    sign_in(browser)
    campaign = create(browser, EVERY_FIELD)
    before = read(browser, campaign)

    browser.get(f"{BASE}/campaigns/{campaign}/edit")
    assert len([e for e in browser.find_elements(By.CSS_SELECTOR, "input[name^='variant_key_']") if e.get_attribute("value")]) == 10
    assert field(browser, "time_zone").get_attribute("value") == "Asia/Dubai"
    screenshot(browser, "composer-every-field", width=1366)
    submit_with(browser, browser.find_element(By.CSS_SELECTOR, "button[name=action][value=save]"))
    errors = [e.text for e in browser.find_elements(By.CSS_SELECTOR, ".error-summary li, .conflict h2")]
    assert not errors, errors
    assert "Draft saved." in browser.page_source, (browser.current_url, browser.find_element(By.TAG_NAME, "main").text[:600])
    wait_for_text(browser, "Draft saved.")
    assert read(browser, campaign) == before, "saving without a change changed the campaign"

    fill(browser, "variant_title_4", "Edited")
    submit_with(browser, browser.find_element(By.CSS_SELECTOR, "button[name=action][value=save]"))
    wait_for_text(browser, "Draft saved.")
    after, expected = json.loads(read(browser, campaign)), json.loads(before)
    expected["variants"][4]["notification"]["title"] = "Edited"
    for key in ("version", "updated_at"):
        expected[key] = after[key]
    assert after == expected


def test_every_campaign_the_schema_generates_survives_the_composer_with_javascript(browser):
    """The generated round trip (the Swift suite posts the form without a script): each campaign
    the published schema generates, created over the API, opened in the composer with its script
    and saved unchanged, reads back byte for byte, at the same version, with no audit entry."""
    sign_in(browser)
    browser.get(BASE + "/campaigns")
    status, text = api(browser, "POST", "/api/v1/segments",
                       {"name": "Everyone (round trip)", "rule": {"all": [{"field": "platform", "in": ["android", "ios", "web"]}]}})
    assert status == 201, text
    segment = json.loads(text)["id"]

    def last_audit():
        status, text = api(browser, "GET", "/api/v1/audit?limit=1")
        assert status == 200, text
        return [entry["id"] for entry in json.loads(text)["items"]]

    stored = []
    for index, audience in enumerate(schema_campaigns.audiences()):
        campaign = schema_campaigns.campaign(index, audience, segment)
        # What the parser refuses in this combination is left out, path by path, as the API names it.
        refused = []
        browser.get(BASE + "/campaigns")
        status, text = api(browser, "POST", "/api/v1/campaigns", campaign)
        while status == 422 and len(refused) < 40:
            paths = [error.get("path") for error in json.loads(text).get("errors", [])]
            removed = [path for path in paths if path and schema_campaigns.remove(campaign, path)]
            assert removed, f"{audience}: refused without a path to leave out: {text}"
            refused += removed
            status, text = api(browser, "POST", "/api/v1/campaigns", campaign)
        assert status == 201, f"{audience}: {text}"
        identifier = json.loads(text)["id"]
        before = read(browser, identifier)
        audit_before = last_audit()

        browser.get(f"{BASE}/campaigns/{identifier}/edit")
        submit_with(browser, browser.find_element(By.CSS_SELECTOR, "button[name=action][value=save]"))
        errors = [e.text for e in browser.find_elements(By.CSS_SELECTOR, ".error-summary li, .conflict h2")]
        assert not errors, f"{audience}: {errors}"
        wait_for_text(browser, "Draft saved.")
        assert read(browser, identifier) == before, f"{audience} campaign changed by an unchanged save (refused first: {refused})"
        assert last_audit() == audit_before, f"{audience}: an unchanged save was audited"
        stored.append(json.loads(before))
    missing = [leaf for leaf in schema_campaigns.leaves() if not any(schema_campaigns.values_at(c, leaf) for c in stored)]
    assert not missing, f"no accepted campaign holds {missing}"


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_nothing_is_sent_or_undone_until_confirmed(javascript, request):
    driver = request.getfixturevalue("browser" if javascript else "browser_without_js")
    sign_in(driver)

    def refuse(button_text):
        """Clicks an action, is asked, says no; returns the question."""
        button = driver.find_element(By.XPATH, f"//button[normalize-space()={json.dumps(button_text)}]")
        if javascript:
            button.click()
            return answer_dialog(driver, yes=False)
        submit_with(driver, button)
        question = driver.find_element(By.CSS_SELECTOR, ".confirm-panel p").text
        submit_with(driver, driver.find_element(By.LINK_TEXT, "No, go back"))
        return question

    # A draft without a schedule: no Schedule button, and Send now asks first.
    draft = create(driver, {"name": "No schedule", "notification": {"title": "Hi"}, "topics": ["news"]})
    driver.get(f"{BASE}/campaigns/{draft}/review")
    assert not driver.find_elements(By.XPATH, "//button[starts-with(normalize-space(), 'Schedule')]")
    assert "goes to news now" in refuse("Send now to news")
    assert json.loads(read(driver, draft))["status"] == "draft"
    status, runs = api(driver, "GET", f"/api/v1/campaigns/{draft}/runs")
    assert json.loads(runs)["items"] == []

    # Delete in the list asks first.
    driver.get(BASE + "/campaigns?q=No+schedule")
    assert "deleted for good" in refuse("Delete")
    assert json.loads(read(driver, draft))["status"] == "draft"

    # Cancel on a scheduled campaign asks first.
    later = create(driver, {"name": "Later", "notification": {"title": "Hi"}, "topics": ["news"],
                            "schedule": {"kind": "once", "at": "2099-01-01T09:00", "time_zone": "Asia/Tehran"}})
    driver.get(f"{BASE}/campaigns/{later}/review")
    submit_with(driver, driver.find_element(By.XPATH, "//button[starts-with(normalize-space(), 'Schedule for')]"))
    wait_for_text(driver, "Campaign scheduled.")
    assert "will send nothing more" in refuse("Cancel campaign")
    assert json.loads(read(driver, later))["status"] == "scheduled"

    # Revoke asks first, and the key still works afterwards.
    status, text = api(driver, "POST", "/api/v1/api-keys", {"name": "my scripts " + str(javascript), "role": "editor"})
    assert status == 201, text
    driver.get(BASE + "/api-keys")
    row = driver.find_element(By.XPATH, f"//tr[td[normalize-space()='my scripts {javascript}']]")
    button = row.find_element(By.XPATH, ".//button[normalize-space()='Revoke']")
    if javascript:
        button.click()
        assert "stop working at once" in answer_dialog(driver, yes=False)
    else:
        submit_with(driver, button)
        assert "stop working at once" in driver.find_element(By.CSS_SELECTOR, ".confirm-panel p").text
        submit_with(driver, driver.find_element(By.LINK_TEXT, "No, go back"))
    status, keys = api(driver, "GET", "/api/v1/api-keys")
    key = next(k for k in json.loads(keys)["items"] if k["name"] == f"my scripts {javascript}")
    assert key["revoked_at"] is None


def test_the_counter_shows_the_byte_overrun_before_saving(browser):
    """The issue's case: 890 Persian characters to a topic, with an image and a deep link, are
    within the 1000-character limit but over FCM's 2048 bytes, and the counter says so live."""
    sign_in(browser)
    browser.get(BASE + "/campaigns/new")
    fill(browser, "name", "Long Persian")
    fill(browser, "title", "نوروز مبارک")
    fill(browser, "topics", "news")
    fill(browser, "image_url", "https://cdn.example.com/banners/nowruz-1405-spring-sale.png")
    fill(browser, "data_key_0", "deep_link")
    fill(browser, "data_value_0", "app://sale/nowruz-1405")
    # Typed in pieces, as a person types: the counter follows without a save.
    body = "س" * (890 - len("نوروز مبارک"))
    for start in range(0, len(body), 50):
        field(browser, "body").send_keys(body[start:start + 50])
    counter = browser.find_element(By.ID, "counter")
    WebDriverWait(browser, 10).until(lambda d: int(d.find_element(By.CSS_SELECTOR, "[data-bytes]").text) > 2048)
    assert browser.find_element(By.CSS_SELECTOR, "[data-counter]").text == "890"
    assert browser.find_element(By.CSS_SELECTOR, "[data-byte-limit]").text == "2048"
    assert "over" in counter.get_attribute("class")
    advice = browser.find_element(By.CSS_SELECTOR, "[data-budget-advice]").text
    assert advice.startswith("Shorten the title and text by at least"), advice
    assert "/edit" not in browser.current_url and "/campaigns/new" in browser.current_url
    screenshot(browser, "composer-byte-budget", width=1366)


PAGES = ["/campaigns", "/campaigns/new", "review", "report", "/audit", "/api-keys", "/webhooks"]


@pytest.mark.parametrize("width", [1366, 390])
def test_no_page_scrolls_sideways(width, browser):
    sign_in(browser)
    campaign = create(browser, dict(EVERY_FIELD, name="Layout check " + str(width)))
    for page in PAGES:
        browser.set_window_size(width, 1000)
        path = f"/campaigns/{campaign}/{page}" if page in ("review", "report") else page
        browser.get(BASE + path)
        name = "page" + path.replace("/", "-").replace(campaign, "id") + f"-{width}"
        assert no_sideways_scroll(browser), f"{path} scrolls sideways at {width} px"
        screenshot(browser, name, width=width)
    # Each composer step, as its own screenshot.
    browser.set_window_size(width, 1000)
    browser.get(f"{BASE}/campaigns/{campaign}/edit")
    for step in ["notification", "target", "scheduling", "ab", "conversions", "options"]:
        element = browser.find_element(By.ID, f"step-{step}")
        element.screenshot(f"{SCREENSHOTS}/composer-step-{step}-{width}.png")
    assert no_sideways_scroll(browser)
