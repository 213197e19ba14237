"""A marketer's journey to a segment, at 1366 and 390 px, with JavaScript and without: build a
segment of two groups in the editor and see its reach (live with the script, on "Count devices"
without), compose a personalised campaign to it, preview it as a sample device reads it, send it,
and find the segment's name and reach on the list, the review, the confirmation and the report.
Then a weekly campaign sent at each recipient's own 09:00 reads as the marketer chose it."""
import json

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from conftest import BASE, answer_dialog, api, no_sideways_scroll, screenshot, sign_in, submit_with, wait_for_text
from test_composer import field, fill

# Each run's devices carry their own cohort, so runs (and other tests' devices) never overlap.
PEOPLE = [("fa", "Sara"), ("fa", "Maryam"), ("fa", "Reza"), ("he", "Noa"), ("he", "Avi"), ("en", "Tom"), ("en", "Ann")]
OUTSIDERS = [("fa", "Omid"), ("fa", "Leila")]


def register_devices(driver, tag):
    driver.get(BASE + "/campaigns")
    for index, (language, first_name) in enumerate(PEOPLE + OUTSIDERS):
        cohort = tag if index < len(PEOPLE) else "elsewhere"
        body = {"platform": "android", "language": language, "time_zone": "Asia/Tehran",
                "properties": {"first_name": first_name, "cohort": cohort}}
        status, text = api(driver, "PUT", f"/api/v1/devices/journey-{tag}-{index}", body)
        assert status == 201, text


def condition(driver, row, attribute, value, name=None):
    Select(field(driver, f"field_{row}")).select_by_value(attribute)
    if name is not None:
        fill(driver, f"name_{row}", name)
    Select(field(driver, f"op_{row}")).select_by_value("is")
    fill(driver, f"value_{row}", value)


def choose(driver, name, value):
    """Picks a radio button, scrolled to the middle first: the composer's sticky action bar may cover it."""
    radio = driver.find_element(By.CSS_SELECTOR, f"input[name='{name}'][value='{value}']")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", radio)
    radio.click()


def click(driver, action):
    submit_with(driver, driver.find_element(By.CSS_SELECTOR, f"button[name=action][value='{action}']"))


def build_segment(driver, name, tag, javascript):
    """(language fa or language he) and cohort = tag: two groups, the first any-of."""
    driver.get(BASE + "/segments")
    fill(driver, "name", name)
    condition(driver, 0, "language", "fa")
    click(driver, "add_row:0")
    condition(driver, 1, "language", "he")
    click(driver, "add_group")
    condition(driver, 2, "property", tag, name="cohort")
    choose(driver, "group_combine_0", "any")
    choose(driver, "group_combine_1", "all")
    choose(driver, "combine", "all")
    assert [e.text for e in driver.find_elements(By.CSS_SELECTOR, ".condition-group.several legend")] == ["Group 1", "Group 2"]
    expected = "5 active devices match now."
    if javascript:
        reach = driver.find_element(By.CSS_SELECTOR, "[data-live-reach]")
        WebDriverWait(driver, 15).until(lambda d: reach.text == expected, f"the live reach never said {expected!r}")
    else:
        click(driver, "count")
        assert driver.find_element(By.CSS_SELECTOR, "[data-live-reach]").text == expected
        assert field(driver, "value_2").get_attribute("value") == tag, "counting kept the rule"
    assert no_sideways_scroll(driver)
    click(driver, "save")
    wait_for_text(driver, "Saved.")
    status, text = api(driver, "GET", "/api/v1/segments")
    segment = next(s for s in json.loads(text)["items"] if s["name"] == name)
    assert segment["rule"] == {"all": [{"any": [{"field": "language", "equals": "fa"}, {"field": "language", "equals": "he"}]},
                                       {"property": "cohort", "equals": tag}]}, segment["rule"]
    return segment["id"]


def signed_in(request, javascript, width):
    """A signed-in browser, with or without script, `width` pixels wide."""
    driver = request.getfixturevalue("browser" if javascript else "browser_without_js")
    driver.set_window_size(width, 1400)
    sign_in(driver)
    return driver


def wait_until_sent(driver, campaign):
    """Waits for the campaign's status to read sent (the emulator answers at once)."""
    def status(_):
        answer, text = api(driver, "GET", f"/api/v1/campaigns/{campaign}")
        return answer == 200 and json.loads(text)["status"] == "sent"
    WebDriverWait(driver, 60, poll_frequency=0.2).until(status, "the campaign never finished sending")


@pytest.mark.parametrize("width", [1366, 390])
@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_a_segment_of_two_groups_is_built_sent_to_and_named_everywhere(javascript, width, request):
    driver = signed_in(request, javascript, width)
    tag = f"{'js' if javascript else 'nojs'}{width}"
    register_devices(driver, tag)
    name = f"Persian or Hebrew {tag}"
    segment = build_segment(driver, name, tag, javascript)
    if width == 390:
        screenshot(driver, f"journey-segments-{tag}", width=390)
    named = f"5 devices in “{name}”"

    # The segment list: its reach now.
    driver.get(BASE + "/segments")
    row = driver.find_element(By.XPATH, f"//tr[.//a[normalize-space()='{name}']]")
    assert "5" in row.text.split(), row.text

    # Composed in the composer, personalised.
    driver.set_window_size(width, 1400)
    driver.get(BASE + "/campaigns/new")
    fill(driver, "name", f"Journey {tag}")
    fill(driver, "title", 'Hi {{first_name | default: "friend"}}')
    fill(driver, "body", "Your spring offer is here.")
    choose(driver, "target_kind", "segment")
    Select(field(driver, "segment")).select_by_value(segment)
    click(driver, "save")
    wait_for_text(driver, "Draft saved.")
    status, text = api(driver, "GET", "/api/v1/campaigns?limit=100")
    campaign = next(c for c in json.loads(text)["items"] if c["name"] == f"Journey {tag}")["id"]

    # The list and the review name the segment and its reach.
    driver.get(BASE + "/campaigns")
    assert named in driver.find_element(By.TAG_NAME, "main").text
    driver.get(f"{BASE}/campaigns/{campaign}/review")
    main = driver.find_element(By.TAG_NAME, "main").text
    assert named in main and "a segment of devices" not in main

    # The preview is what a sample device reads, and another sample is one click away.
    sample = driver.find_element(By.CSS_SELECTOR, ".preview-sample").text
    assert sample.startswith("As the device journey-"), sample
    title = driver.find_element(By.CSS_SELECTOR, ".variant-preview").text
    first_names = [person for _, person in PEOPLE]
    shown = [person for person in first_names if f"Hi {person}" in title]
    assert len(shown) == 1 and "{{" not in title, title
    submit_with(driver, driver.find_element(By.CSS_SELECTOR, ".preview-sample a"))
    other = driver.find_element(By.CSS_SELECTOR, ".variant-preview").text
    assert f"Hi {shown[0]}" not in other and any(f"Hi {person}" in other for person in first_names), other
    assert no_sideways_scroll(driver)
    screenshot(driver, f"journey-review-{tag}", width=width)

    # Send now: the button and its confirmation name the segment and its reach.
    button = driver.find_element(By.XPATH, "//button[starts-with(normalize-space(), 'Send now to')]")
    assert button.text == f"Send now to {named}", button.text
    if javascript:
        button.click()
        question = driver.find_element(By.CSS_SELECTOR, "dialog.confirm-dialog[open] p").text
        assert named in question, question
        answer_dialog(driver, yes=True)
    else:
        submit_with(driver, button)
        assert named in driver.find_element(By.CSS_SELECTOR, ".confirm-panel p").text
        submit_with(driver, driver.find_element(By.CSS_SELECTOR, ".confirm-panel button[type=submit]"))
    wait_until_sent(driver, campaign)

    # The report: the segment's name and reach, and the five sends.
    driver.get(f"{BASE}/campaigns/{campaign}/report")
    report = driver.find_element(By.TAG_NAME, "main").text
    assert named in report, report[:800]
    status, text = api(driver, "GET", f"/api/v1/campaigns/{campaign}/report")
    assert json.loads(text)["devices"]["reached"] == 5, text
    assert no_sideways_scroll(driver), "the report scrolls sideways"
    screenshot(driver, f"journey-report-{tag}", width=width)


@pytest.mark.parametrize("width", [1366, 390])
@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_recipient_time_reads_as_the_marketer_chose_it(javascript, width, request):
    driver = signed_in(request, javascript, width)
    driver.get(BASE + "/campaigns")
    status, text = api(driver, "POST", "/api/v1/campaigns", {
        "name": f"Weekly at their 09:00 {javascript} {width}", "notification": {"title": "Good morning"}, "topics": ["news"],
        "schedule": {"kind": "weekly", "days": ["mon", "wed", "sat"], "time": "09:00", "time_zone": "Asia/Tehran"},
        "delivery": {"recipient_time": {"past": "skip", "time_zones": ["Asia/Tehran", "Europe/Berlin"]}}})
    assert status == 201, text
    campaign = json.loads(text)["id"]
    driver.get(f"{BASE}/campaigns/{campaign}/review")
    main = driver.find_element(By.TAG_NAME, "main").text
    assert "Weekly (Mon, Wed, Sat) at 09:00 in each recipient's time zone" in main, main[:1200]
    button = driver.find_element(By.XPATH, "//button[starts-with(normalize-space(), 'Schedule for')]").text
    assert button.endswith("09:00 in each recipient's time zone"), button
    assert "first wave" in main and "last wave" in main, main[:1200]
    assert no_sideways_scroll(driver)
