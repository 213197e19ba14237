"""Journeys at several sizes, side by side, with each figure's growth per 10x.

Run by deploy/bench/journeys (which builds Herald, starts a private PostgreSQL and passes its URL).
For each size N, in a database of its own, with N registered devices (random tokens of FCM's
length, a language and a first name each):

  ingest      app events over the API (POST /api/v1/events, batches of 500 from 4 connections),
              events per second, for an event no journey reads (recording alone)
  first       an entry event -> its journey's first message at FCM, median of 9, milliseconds
  enter       N devices enter a live journey by their sign-up events: Herald's and PostgreSQL's CPU
              per device (recording the events and writing each device's place)
  steps       the N devices wait an hour (the bench moves their clocks on), then each is sent an
              A/B message and leaves: CPU per device per step of Herald and PostgreSQL (three steps
              a device: the wait, the send, the exit), the engine's sending included; and the
              messages a second
Per-item figures should not grow with the size: the last table divides each by the one a tenth
the size (1.0 is flat). CPU per item is the figure to trust on a shared machine.
"""
import json
import math
import os
import statistics
import subprocess
import sys
import threading
import time

import benchlib
from benchlib import HZ, http, psql, timed, tree_ticks

HERALD, BASE_URL, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
SIZES = [int(s) for s in sys.argv[4].split(",")]
RATE = int(sys.argv[5])
EMULATOR, PG_PID_FILE = sys.argv[6], sys.argv[7]
STEPS = 3
STATEMENTS = os.environ.get("HERALD_BENCH_STATEMENTS") == "1"


def postgres_ticks():
    return benchlib.postgres_ticks(PG_PID_FILE)


def emulator_count():
    return benchlib.emulator_count(EMULATOR)


def post_events(api, key, events, connections=4):
    """Posts `events` in batches of 500 over `connections` at once; answers the milliseconds taken."""
    batches = [events[i:i + 500] for i in range(0, len(events), 500)]
    bodies = [json.dumps({"events": b}).encode() for b in batches]
    errors = []

    def worker(index):
        try:
            for body in bodies[index::connections]:
                http("POST", api + "/events", body, key)
        except Exception as error:  # reported after the join
            errors.append(error)
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(connections)]
    start = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return (time.monotonic() - start) * 1000


JOURNEY = {
    "name": "Welcome", "entry": {"event": "signed_up"}, "goal": {"event": "purchased"},
    "steps": [
        {"name": "settle", "type": "wait", "minutes": 60},
        {"name": "welcome", "type": "send", "message": {
            "notification": {"title": "Welcome, {{first_name | default: \"friend\"}}"},
            "variants": [{"key": "A", "weight": 1, "notification": {"body": "Take the tour"}},
                         {"key": "B", "weight": 1, "notification": {"body": "10% off your first order"}}],
            "options": {"labels": "none"}}},
        {"name": "done", "type": "exit"}]}
QUICK = {"name": "Instant", "entry": {"event": "installed"},
         "steps": [{"name": "hello", "type": "send", "message": {"notification": {"title": "Hello"}, "options": {"labels": "none"}}}]}


def where_it_went(phase, unit, items, superuser, kinds_before):
    """Prints PostgreSQL's CPU of the phase by process kind, and with HERALD_BENCH_STATEMENTS=1 its costliest statements."""
    kinds_after = benchlib.postgres_ticks_by_kind(PG_PID_FILE)
    if STATEMENTS:
        print(f"  {phase}: PostgreSQL's statements (µs of planning and execution per {unit}, calls):")
        print(psql(superuser, f"SELECT round(((total_plan_time + total_exec_time) * 1000 / {items})::numeric, 1) || ' µs  ' || calls || '  ' "
                              f"|| left(regexp_replace(query, '\\s+', ' ', 'g'), 140) FROM pg_stat_statements "
                              f"ORDER BY total_plan_time + total_exec_time DESC LIMIT 12"), flush=True)
    print(f"  {phase}: PostgreSQL's CPU by process, µs per {unit}: " + ", ".join(
        f"{kind} {(kinds_after.get(kind, 0) - kinds_before.get(kind, 0)) / HZ * 1e6 / items:,.1f}" for kind in sorted(kinds_after)), flush=True)


def measure(n):
    name = f"bench_{n}"
    psql(BASE_URL, f"DROP DATABASE IF EXISTS {name}")
    psql(BASE_URL, f"CREATE DATABASE {name}")
    url = benchlib.database(BASE_URL, name)
    env = dict(os.environ, DATABASE_URL=url)
    subprocess.run([HERALD, "migrate"], env=env, check=True, capture_output=True)
    # Random-looking tokens of FCM's length (no repeated part for PostgreSQL to compress), in no order;
    # a language and a first name each.
    psql(url, f"""INSERT INTO devices (token, platform, language, properties)
        SELECT 'bench-' || lpad(g::text, 8, '0') || ':APA91b' || md5(g::text) || md5(g || 'a') || md5(g || 'b') || md5(g || 'c'), 'android',
               (ARRAY['fa', 'en', 'he', 'hi', 'vi'])[1 + g % 5], jsonb_build_object('first_name', (ARRAY['Sara', 'Reza', 'Noa', ''])[1 + g % 4])
        FROM generate_series(0, {n - 1 + 10}) AS g ORDER BY md5(g::text)""")
    psql(url, "VACUUM ANALYZE devices")
    tokens = psql(url, "SELECT token FROM devices ORDER BY md5(token)").split("\n")
    port = 18190
    log = open(os.path.join(WORK, f"herald-{n}.log"), "w")
    server = subprocess.Popen([HERALD, "serve"], stdout=log, stderr=subprocess.STDOUT, env=dict(
        env, HERALD_PORT=str(port), HERALD_HOST="127.0.0.1", HERALD_SERVICE_ACCOUNT_KEY=os.path.join(WORK, "key.json"),
        HERALD_FCM_BASE_URL=EMULATOR, HERALD_FCM_RATE_PER_MINUTE=str(RATE)))
    try:
        for _ in range(300):
            try:
                http("GET", f"http://127.0.0.1:{port}/readyz")
                break
            except Exception:
                time.sleep(0.1)
        api = f"http://127.0.0.1:{port}/api/v1"
        key = subprocess.run([HERALD, "api-keys", "create", "--name", "bench", "--role", "admin"], env=env,
                             capture_output=True, text=True, check=True).stdout.strip().split()[-1]
        row = {}

        # Recording alone: an event no journey reads.
        events = [{"id": f"open-{i}", "event": "app_opened", "device": tokens[i % len(tokens)]} for i in range(n)]
        ms = post_events(api, key, events)
        row["ingest"] = n / ms * 1000

        # An entry event to its journey's first message.
        quick = http("POST", api + "/journeys", json.dumps(QUICK).encode(), key)["id"]
        http("POST", f"{api}/journeys/{quick}/publish", None, key)
        http("DELETE", EMULATOR + "/emulator/messages")
        firsts = []
        for i in range(9):
            before = emulator_count()
            start = time.monotonic()
            http("POST", api + "/events", json.dumps({"id": f"install-{i}", "event": "installed", "device": tokens[n + i]}).encode(), key)
            while emulator_count() <= before:
                if time.monotonic() - start > 30:
                    raise SystemExit("no first message within 30 s")
                time.sleep(0.002)
            firsts.append((time.monotonic() - start) * 1000)
        row["first"] = statistics.median(firsts)
        http("POST", f"{api}/journeys/{quick}/stop", None, key)

        # N devices enter at once. (Each phase starts with the tables the one before wrote vacuumed
        # and analysed, so that autovacuum's catching up is not counted in the next phase's CPU.)
        journey = http("POST", api + "/journeys", json.dumps(JOURNEY).encode(), key)["id"]
        http("POST", f"{api}/journeys/{journey}/publish", None, key)
        psql(url, "VACUUM ANALYZE app_events")
        herald_before, pg_before = tree_ticks(server.pid), postgres_ticks()
        kinds_before = benchlib.postgres_ticks_by_kind(PG_PID_FILE)
        superuser = url.replace("//herald@", "//postgres@")
        if STATEMENTS:
            psql(superuser, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
            psql(superuser, "SELECT pg_stat_statements_reset()")
        signups = [{"id": f"signup-{i}", "event": "signed_up", "device": tokens[i]} for i in range(n)]
        enter_ms = post_events(api, key, signups)
        entered = int(psql(url, f"SELECT count(*) FROM journey_states WHERE journey_id = '{journey}'"))
        assert entered == n, (entered, n)
        row["enter/s"] = n / enter_ms * 1000
        row["enter herald"] = (tree_ticks(server.pid) - herald_before) / HZ * 1e6 / n
        row["enter pg"] = (postgres_ticks() - pg_before) / HZ * 1e6 / n
        where_it_went("entry", "device", n, superuser, kinds_before)

        # The hour passes; every device moves on, is sent the welcome and leaves.
        psql(url, "VACUUM ANALYZE app_events")
        psql(url, "VACUUM ANALYZE journey_states")
        http("DELETE", EMULATOR + "/emulator/messages")
        # The bench's own rewrite of every place's clock is not the journey's cost: counted from after it.
        psql(url, f"UPDATE journey_states SET since = since - interval '61 minutes', due_at = due_at - interval '61 minutes' WHERE journey_id = '{journey}'")
        herald_before, pg_before = tree_ticks(server.pid), postgres_ticks()
        kinds_before = benchlib.postgres_ticks_by_kind(PG_PID_FILE)
        if STATEMENTS:
            psql(superuser, "SELECT pg_stat_statements_reset()")
        start = time.monotonic()
        psql(url, "NOTIFY herald_journeys")
        first_sent = None
        while True:
            count = emulator_count()
            if count and first_sent is None:
                first_sent = time.monotonic()
            if count >= n and psql(url, f"SELECT count(*) FROM journey_states WHERE journey_id = '{journey}' AND status = 'active'") == "0":
                break
            if time.monotonic() - start > 3600:
                raise SystemExit(f"the journey of {n} did not finish within an hour")
            time.sleep(0.2)
        span = time.monotonic() - (first_sent or start)
        # The dead rows the steps left are theirs to clean: at a million autovacuum cleans them while
        # the steps run, at ten thousand after they end; a vacuum now counts them at every size alike.
        psql(url, "VACUUM journey_states, device_batches")
        row["steps herald"] = (tree_ticks(server.pid) - herald_before) / HZ * 1e6 / n / STEPS
        row["steps pg"] = (postgres_ticks() - pg_before) / HZ * 1e6 / n / STEPS
        row["send"] = emulator_count() / max(span, 1e-9)
        where_it_went("steps", "step", n * STEPS, superuser, kinds_before)
        report = http("GET", f"{api}/journeys/{journey}/report", key=key)
        assert report["completed"] == n, report
        return row
    finally:
        server.terminate()
        server.wait()
        psql(BASE_URL, f"DROP DATABASE IF EXISTS {name}")


COLUMNS = [("ingest", "events/s", "{:,.0f}", -1), ("first", "ms", "{:,.0f}", 1), ("enter/s", "devices/s", "{:,.0f}", -1),
           ("enter herald", "us/dev", "{:,.1f}", 1), ("enter pg", "us/dev", "{:,.1f}", 1),
           ("steps herald", "us/step", "{:,.1f}", 1), ("steps pg", "us/step", "{:,.1f}", 1), ("send", "msg/s", "{:,.0f}", -1)]

rows = {}
for size in SIZES:
    print(f"measuring {size:,} devices ...", flush=True)
    rows[size] = measure(size)
    print("  " + ", ".join(f"{k} {v:,.1f}" for k, v in rows[size].items()), flush=True)

print()
print("CPU is every process of Herald's and of the PostgreSQL cluster (background writers included), from /proc.")
print("| devices | " + " | ".join(f"{name} ({unit})" for name, unit, _, _ in COLUMNS) + " |")
print("|---" * (len(COLUMNS) + 1) + "|")
for size, r in rows.items():
    print(f"| {size:,} | " + " | ".join(fmt.format(r[name]) for name, _, fmt, _ in COLUMNS) + " |")
print()
print("Growth per 10x of the cost per item (1.0 flat; rates are inverted: time per item):")
sizes = list(rows)
for small, large in zip(sizes, sizes[1:]):
    factor = large / small
    cells = []
    for name, _, _, direction in COLUMNS:
        a, b = rows[small][name], rows[large][name]
        ratio = (a / b if direction < 0 else b / a) if a and b else float("nan")
        cells.append(f"{name} {ratio ** (1 / math.log10(factor)):.2f}")
    print(f"  {small:,} -> {large:,}: " + ", ".join(cells))
