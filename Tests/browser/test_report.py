"""An A/B campaign published to the FCM emulator, opens and conversions reported through the
events API, and the report showing delivery, per-variant rates and the leader."""
import time

from selenium.webdriver.common.by import By

from conftest import BASE, answer_dialog, screenshot, sign_in, submit_with, wait_for_text
from test_composer import choose, fill


def post_events(driver, events):
    """POST /api/v1/events from the signed-in page (session cookie + the page's CSRF token)."""
    return driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const token = document.querySelector("input[name=csrf_token]").value;
        fetch("/api/v1/events", {method: "POST", headers: {"Content-Type": "application/json", "X-CSRF-Token": token},
                                 body: JSON.stringify({events: arguments[0]})})
            .then(r => r.json().then(body => done([r.status, body]))).catch(e => done([0, String(e)]));
    """, events)


def test_report_of_a_sent_ab_campaign(browser):
    sign_in(browser)
    browser.get(BASE + "/campaigns/new")
    fill(browser, "name", "Winter offer A/B")
    fill(browser, "title", "Winter offer")
    fill(browser, "body", "Warm up with 15% off this week.")
    fill(browser, "topics", "news")
    choose(browser, "schedule_kind", "now")
    for index, (key, weight, title) in enumerate([("A", "50", ""), ("B", "50", "Last chance: 15% off")]):
        fill(browser, f"variant_key_{index}", key)
        fill(browser, f"variant_weight_{index}", weight)
        if title:
            fill(browser, f"variant_title_{index}", title)
    fill(browser, "holdout_percent", "10")
    submit_with(browser, browser.find_element(By.CSS_SELECTOR, "button[name=action][value=review]"))
    campaign = browser.current_url.split("/campaigns/")[1].split("/")[0]

    # A test message to two registration tokens, each with its own result.
    browser.find_element(By.ID, "tokens").send_keys("test-device-token-1\ntest-device-token-2")
    browser.find_element(By.CSS_SELECTOR, "#variant option[value='B'], #variant option:nth-child(2)").click()
    submit_with(browser, browser.find_element(By.XPATH, "//button[normalize-space()='Send test']"))
    results = browser.find_elements(By.CSS_SELECTOR, ".test-result.ok")
    assert len(results) == 2 and "projects/" in results[0].text, [r.text for r in browser.find_elements(By.CSS_SELECTOR, ".test-result, .field-error")]

    browser.find_element(By.XPATH, "//button[normalize-space()='Send now to news']").click()
    answer_dialog(browser, yes=True)
    assert "/report" in browser.current_url

    events = [{"id": f"a-open-{i}", "campaign_id": campaign, "variant": "A", "type": "open"} for i in range(400)]
    events += [{"id": f"a-conv-{i}", "campaign_id": campaign, "variant": "A", "type": "conversion"} for i in range(40)]
    status, body = post_events(browser, events)
    assert status == 200 and body["recorded"] == 440, body
    events = [{"id": f"b-open-{i}", "campaign_id": campaign, "variant": "B", "type": "open"} for i in range(400)]
    events += [{"id": f"b-conv-{i}", "campaign_id": campaign, "variant": "B", "type": "conversion"} for i in range(72)]
    status, body = post_events(browser, events)
    assert status == 200 and body["recorded"] == 472, body
    status, body = post_events(browser, events[:10])
    assert status == 200 and body["duplicates"] == 10, body

    # The scheduler polls every second in the test server; give the emulator a few seconds.
    for _ in range(30):
        browser.get(BASE + f"/campaigns/{campaign}/report")
        if "Sent" in browser.find_element(By.CSS_SELECTOR, ".page-head .status").text:
            break
        time.sleep(0.5)
    assert browser.find_element(By.CSS_SELECTOR, ".page-head .status").text == "Sent"
    verdict = browser.find_element(By.CSS_SELECTOR, ".verdict").text
    assert verdict.startswith("Variant B leads"), verdict
    # Delivery per variant, events per variant, and the trend by hour.
    assert len(browser.find_elements(By.CSS_SELECTOR, "svg.chart")) == 3
    screenshot(browser, "report")

    browser.get(BASE + "/campaigns")
    assert "Winter offer A/B" in browser.page_source
    screenshot(browser, "list")
    browser.get(BASE + f"/campaigns/{campaign}/edit")
    screenshot(browser, "composer-phone", width=390)
