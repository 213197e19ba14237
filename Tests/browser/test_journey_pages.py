"""The journey pages (issue 39) in a real browser: a publisher builds the welcome journey step by
step — entry on `signed_up`, wait 60 minutes, an A/B welcome, wait until opened or 1440 minutes,
if not opened a reminder, exit; goal `purchased` — with JavaScript and without, at 1366 and 390 px,
in English and in Persian. A wrong wait comes back with its error beside it and everything typed
kept; the saved journey reads through the API exactly as built, and saving it again through the
page leaves its definition byte for byte the same; it is published and its diagram drawn. No page
scrolls sideways. Screenshots: .screenshots/journey-pages-<language>-<js|nojs>-<width>-<step>.png."""
import json

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.expected_conditions import staleness_of
from selenium.webdriver.support.ui import Select, WebDriverWait

from conftest import BASE, api, no_sideways_scroll, screenshot, submit_with, wait_for_text
from test_languages import make_user, switch_language, table

# The welcome journey as the server writes it (its members in the order it writes them).
WELCOME_STEPS = [
    {"name": "settle", "type": "wait", "minutes": 60},
    {"name": "welcome", "type": "send", "message": {
        "notification": {"title": "Welcome!", "body": "Glad you are here"},
        "variants": [{"key": "A", "weight": 50, "notification": {"title": "Welcome!", "body": "Glad you are here"}},
                     {"key": "B", "weight": 50, "notification": {"title": "Hello there", "body": "Take a look around"}}]}},
    {"name": "read?", "type": "wait", "minutes": 1440, "until": {"opened": True}},
    {"name": "check", "type": "branch", "if": {"opened": True}, "then": "done", "else": "nudge"},
    {"name": "nudge", "type": "send", "message": {"notification": {"title": "Still there?", "body": "Your first week is free"}}},
    {"name": "done", "type": "exit"},
]
MEMBERS = ["name", "entry", "goal", "holdout_percent", "steps"]


def fill(driver, name, text):
    element = driver.find_element(By.NAME, name)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.clear()
    element.send_keys(text)


def pick(driver, name, value):
    element = driver.find_element(By.NAME, name)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    Select(element).select_by_value(value)


def press(driver, action):
    """Presses the journey form's button `action` and waits for the page it brings back."""
    button = driver.find_element(By.CSS_SELECTOR, f"form.journey-form button[name=action][value='{action}']:not(.visually-hidden)")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
    submit_with(driver, button)
    assert no_sideways_scroll(driver), f"{action}: the page scrolls sideways"


def step_ids(driver):
    return [e.get_attribute("value") for e in driver.find_elements(By.CSS_SELECTOR, "form.journey-form input[name=step]")]


def retype(driver, step, kind, javascript):
    """Changes a step's type: the script shows the new fields at once; without it the author presses the step's button."""
    if javascript:
        page = driver.find_element(By.TAG_NAME, "html")
        pick(driver, f"s{step}_type", kind)
        WebDriverWait(driver, 15).until(staleness_of(page), "choosing a type did not show its fields")
        assert no_sideways_scroll(driver)
    else:
        pick(driver, f"s{step}_type", kind)
        press(driver, "refresh")
    assert driver.find_element(By.ID, f"step-{step}").get_attribute("class").split()[1] == f"step-{kind}"


def definition(driver, journey):
    status, text = api(driver, "GET", f"/api/v1/journeys/{journey}")
    assert status == 200, text
    return json.loads(text)


@pytest.mark.parametrize("language", ["en", "fa"])
@pytest.mark.parametrize("width", [1366, 390])
@pytest.mark.parametrize("javascript", [True, False], ids=["js", "nojs"])
def test_the_welcome_journey_is_built_saved_unchanged_and_published(javascript, width, language, request):
    driver = request.getfixturevalue("browser" if javascript else "browser_without_js")
    # The top bar's forms (sign out, language) sit in the menu at phone width: set up wide first.
    driver.set_window_size(1366, 1400)
    make_user(driver, f"journey-{language}")
    if language != "en":
        switch_language(driver, language)
    driver.set_window_size(width, 1400)
    words = table(language)
    tag = f"{language}-{'js' if javascript else 'nojs'}-{width}"
    shot = f"journey-pages-{tag}"
    name = f"Welcome {tag}"

    driver.get(BASE + "/journeys")
    assert driver.find_element(By.TAG_NAME, "html").get_attribute("dir") == ("rtl" if language == "fa" else "ltr")
    submit_with(driver, driver.find_element(By.CSS_SELECTOR, "a[href='/journeys/new']"))
    assert no_sideways_scroll(driver)
    [done] = step_ids(driver)
    fill(driver, "name", name)
    fill(driver, "entry_event", "signed_up")
    fill(driver, "goal_event", "purchased")
    fill(driver, f"s{done}_name", "done")
    press(driver, "add:start:wait")
    settle = step_ids(driver)[0]
    fill(driver, f"s{settle}_name", "settle")
    fill(driver, f"s{settle}_minutes", "60")
    press(driver, f"add:{settle}:send")

    welcome = step_ids(driver)[1]
    fill(driver, f"s{welcome}_name", "welcome")
    fill(driver, f"s{welcome}_title", "Welcome!")
    fill(driver, f"s{welcome}_body", "Glad you are here")
    press(driver, f"add_variant:{welcome}")
    press(driver, f"add_variant:{welcome}")
    variants = [e.get_attribute("name").split("_")[-1] for e in driver.find_elements(By.CSS_SELECTOR, f"input[name^='variant_key_{welcome}v']")]
    assert len(variants) == 2, variants
    for row, (key, title, body) in zip(variants, [("A", "Welcome!", "Glad you are here"), ("B", "Hello there", "Take a look around")]):
        fill(driver, f"variant_key_{row}", key)
        fill(driver, f"variant_weight_{row}", "50")
        fill(driver, f"variant_title_{row}", title)
        fill(driver, f"variant_body_{row}", body)
    # The step's preview shows the message as typed, server-rendered.
    press(driver, f"add:{welcome}:wait")
    assert "Welcome!" in driver.find_element(By.CSS_SELECTOR, f"#step-{welcome} .journey-preview").text

    read = step_ids(driver)[2]
    fill(driver, f"s{read}_name", "read?")
    pick(driver, f"s{read}_wait_kind", "until")
    pick(driver, f"s{read}_condition", "opened")
    fill(driver, f"s{read}_minutes", "1440")
    press(driver, f"add:{read}:wait")
    check = step_ids(driver)[3]
    retype(driver, check, "branch", javascript)
    fill(driver, f"s{check}_name", "check")
    press(driver, f"add:{check}:send")

    nudge = step_ids(driver)[4]
    assert step_ids(driver) == [settle, welcome, read, check, nudge, done]
    fill(driver, f"s{nudge}_name", "nudge")
    fill(driver, f"s{nudge}_title", "Still there?")
    fill(driver, f"s{nudge}_body", "Your first week is free")
    if not javascript:
        # Without the script the branch lists the reminder by its new name once the form comes back.
        press(driver, "refresh")
    pick(driver, f"s{check}_condition", "opened")
    pick(driver, f"s{check}_then", "done")
    pick(driver, f"s{check}_else", "nudge")

    # A wrong wait: the same page, everything kept, the problem beside its field.
    fill(driver, f"s{settle}_minutes", "0")
    press(driver, "save")
    error = driver.find_element(By.CSS_SELECTOR, f"#field-s{settle}_minutes .field-error").text
    assert error, "the error stands beside the wait's minutes"
    assert driver.find_element(By.CSS_SELECTOR, ".error-summary").is_displayed()
    assert words["journeys.errors.heading_one"] in driver.find_element(By.CSS_SELECTOR, ".error-summary").text
    assert driver.find_element(By.NAME, f"variant_title_{variants[1]}").get_attribute("value") == "Hello there"
    assert Select(driver.find_element(By.NAME, f"s{check}_else")).first_selected_option.get_attribute("value") == "nudge"
    screenshot(driver, f"{shot}-error", width=width)
    fill(driver, f"s{settle}_minutes", "60")
    press(driver, "save")
    wait_for_text(driver, words["journeys.notice.saved"])
    journey = driver.current_url.split("/journeys/")[1].split("?")[0]
    built = definition(driver, journey)
    assert built["entry"] == {"event": "signed_up", "frequency": "once"} and built["goal"] == {"event": "purchased"}, built
    assert built["steps"] == WELCOME_STEPS, json.dumps(built["steps"], indent=1)
    assert driver.find_element(By.CSS_SELECTOR, "svg.journey-diagram").is_displayed()
    screenshot(driver, f"{shot}-built", width=width)

    # Saved again through the page as it shows it: the definition is byte for byte what the API read.
    status, before = api(driver, "GET", f"/api/v1/journeys/{journey}")
    press(driver, "save")
    wait_for_text(driver, words["journeys.notice.saved"])
    status, after = api(driver, "GET", f"/api/v1/journeys/{journey}")
    members = lambda text: json.dumps({key: json.loads(text).get(key) for key in MEMBERS}, ensure_ascii=False)
    assert members(after) == members(before)
    assert json.loads(after)["version"] == json.loads(before)["version"] + 1

    # Published (no approvals in this run), and drawn with its figures.
    publish = driver.find_element(By.CSS_SELECTOR, "form.publish-form button")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", publish)
    submit_with(driver, publish)
    wait_for_text(driver, words["journeys.notice.published"])
    assert definition(driver, journey)["status"] == "live"
    diagram = driver.find_element(By.CSS_SELECTOR, "svg.journey-diagram")
    labels = [e.text for e in diagram.find_elements(By.CSS_SELECTOR, ".link-label")]
    assert labels == [words["journeys.diagram.then"], words["journeys.diagram.else"]], labels
    assert diagram.rect["width"] <= driver.execute_script("return document.documentElement.clientWidth")
    assert no_sideways_scroll(driver)
    screenshot(driver, f"{shot}-published", width=width)

    driver.get(BASE + "/journeys")
    row = driver.find_element(By.XPATH, f"//tr[.//a[normalize-space()='{name}']]")
    assert words["journeys.status.live"] in row.text, row.text
    assert no_sideways_scroll(driver)
    screenshot(driver, f"{shot}-list", width=width)
