"""The audience path at several registry sizes, side by side, with each figure's growth per 10x.

Run by deploy/bench/audiences (which builds Herald, starts a private PostgreSQL and passes its URL);
see that file for the options. For each size, in a database of its own:

  import      devices imported over the API (POST /api/v1/device-imports, a CSV), rows per second
  bytes/dev   the devices table and its indexes, per device
  reach       POST /api/v1/segment-reach for three typical segments, median of 7, milliseconds
  first       a personalised A/B campaign to every device made due: due -> the first message at FCM
  send        messages per second, first to last, as the emulator counted them
  herald/pg   CPU microseconds per message of Herald's processes and of PostgreSQL (from /proc)
  report      GET /api/v1/campaigns/{id}/report during the send and after it, milliseconds
  bytes/msg   what the send left in the outbox tables, per message
  caps        with HERALD_BENCH_CAPS=1: PostgreSQL's CPU per message of the same send twice more
              with frequency caps on (a device's first counted message, then its second), and the
              second's excess over the send without caps

Per-item figures should not grow with the registry: the last table divides each by the one a
tenth the size (1.0 is flat). CPU per message is the figure to trust on a shared machine.
"""
import json
import math
import os
import random
import statistics
import subprocess
import sys
import time

import benchlib
from benchlib import HZ, http, psql, timed, tree_ticks

HERALD, BASE_URL, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
SIZES = [int(s) for s in sys.argv[4].split(",")]
INSTANCES, WORKERS, RATE = int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])
EMULATOR, PG_PID_FILE = sys.argv[8], sys.argv[9]
# HERALD_BENCH_CAPS=1: after the first send, two more with frequency caps on, PostgreSQL's CPU per message of each.
CAPS = os.environ.get("HERALD_BENCH_CAPS") == "1"


def database(name):
    return benchlib.database(BASE_URL, name)


def postgres_ticks():
    return benchlib.postgres_ticks(PG_PID_FILE)


def emulator_count():
    return benchlib.emulator_count(EMULATOR)


def write_devices(n, path):
    random.seed(28)
    langs = ["fa-IR", "fa", "he-IL", "hi-IN", "vi-VN", "en-US", "de-DE"]
    countries = ["IR", "IL", "IN", "VN", "US", "DE"]
    zones = ["Asia/Tehran", "Asia/Jerusalem", "Asia/Kolkata", "Asia/Ho_Chi_Minh", "America/New_York", "Europe/Berlin"]
    versions = ["5.1", "5.2", "5.2.1", "5.10", "6.0"]
    names = ["Sara", "Reza", "Noa", "Aarav", "Linh", "Ada", ""]
    with open(path, "w") as f:
        f.write("token,platform,app_version,language,country,time_zone,last_seen_at,first_name,bucket\n")
        for i in range(n):
            k = random.randrange(6)
            seen = f"2026-{random.randint(8, 11):02d}-{random.randint(1, 28):02d}T12:00:00Z"
            f.write(f"bench-{i:08d}:APA91b{random.getrandbits(400):0100x},{('android', 'ios', 'web')[i % 3]},{random.choice(versions)},"
                    f"{random.choice(langs)},{countries[k]},{zones[k]},{seen},{random.choice(names)},{i % 10}\n")


SEGMENTS = {
    "fa & >=5.2": {"all": [{"field": "language", "equals": "fa"}, {"field": "app_version", "at_least": "5.2"}]},
    "IR|IL android": {"all": [{"field": "country", "in": ["IR", "IL"]}, {"field": "platform", "equals": "android"}]},
    "bucket=3": {"all": [{"property": "bucket", "equals": "3"}]},
}


def outbox_bytes(url):
    """The tables a send writes, with their indexes and TOAST."""
    return int(psql(url, "SELECT sum(pg_total_relation_size(c)) FROM unnest("
                         "ARRAY['deliveries', 'device_batches', 'run_counts', 'delivery_failures', 'runs']::regclass[]) AS c"))


def measure(n):
    name = f"bench_{n}"
    psql(BASE_URL, f"DROP DATABASE IF EXISTS {name}")
    psql(BASE_URL, f"CREATE DATABASE {name}")
    url = database(name)
    env = dict(os.environ, DATABASE_URL=url)
    subprocess.run([HERALD, "migrate"], env=env, check=True, capture_output=True)
    csv = os.path.join(WORK, f"devices-{n}.csv")
    if not os.path.exists(csv):
        write_devices(n, csv)

    servers = []
    for index in range(INSTANCES):
        port = 18090 + index
        log = open(os.path.join(WORK, f"herald-{n}-{index}.log"), "w")
        servers.append((port, subprocess.Popen([HERALD, "serve"], stdout=log, stderr=subprocess.STDOUT, env=dict(
            env, HERALD_PORT=str(port), HERALD_HOST="127.0.0.1", HERALD_SERVICE_ACCOUNT_KEY=os.path.join(WORK, "key.json"),
            HERALD_FCM_BASE_URL=EMULATOR, HERALD_DELIVERY_WORKERS=str(WORKERS), HERALD_FCM_RATE_PER_MINUTE=str(RATE),
            HERALD_MAX_IMPORT_BYTES=str(1 << 34)))))
    try:
        for port, _ in servers:
            for _ in range(300):
                try:
                    http("GET", f"http://127.0.0.1:{port}/readyz")
                    break
                except Exception:
                    time.sleep(0.1)
        api = f"http://127.0.0.1:{servers[0][0]}/api/v1"
        key = subprocess.run([HERALD, "api-keys", "create", "--name", "bench", "--role", "admin"], env=env,
                             capture_output=True, text=True, check=True).stdout.strip().split()[-1]

        herald_before, pg_before = sum(tree_ticks(p.pid) for _, p in servers), postgres_ticks()
        with open(csv, "rb") as body:  # streamed: ten million devices are 1.8 GB
            import_ms, report = timed(lambda: http("POST", api + "/device-imports", body, key, "text/csv", os.path.getsize(csv)))
        assert report["created"] == n, report
        print(f"  import CPU per row: Herald {(sum(tree_ticks(p.pid) for _, p in servers) - herald_before) / HZ * 1e6 / n:.1f} µs, "
              f"PostgreSQL {(postgres_ticks() - pg_before) / HZ * 1e6 / n:.1f} µs", flush=True)
        psql(url, "VACUUM ANALYZE devices")
        row = {"import": n / import_ms * 1000, "bytes/dev": int(psql(url, "SELECT pg_total_relation_size('devices')")) / n}

        reach = {}
        for label, rule in SEGMENTS.items():
            times = [timed(lambda: http("POST", api + "/segment-reach", json.dumps({"rule": rule}).encode(), key))[0] for _ in range(7)]
            reach[label] = statistics.median(times)
        row["reach"] = max(reach.values())
        row["reaches"] = reach

        segment = http("POST", api + "/segments", json.dumps({"name": "Everyone", "rule": {"all": [
            {"field": "platform", "in": ["android", "ios", "web"]}]}}).encode(), key)["id"]
        http("DELETE", EMULATOR + "/emulator/messages")
        before_bytes = outbox_bytes(url)
        statements = os.environ.get("HERALD_BENCH_STATEMENTS") == "1"
        superuser = url.replace("//herald@", "//postgres@")
        if statements:
            psql(superuser, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        def send(title):
            """A personalised A/B campaign to every device, made due now: what it cost, per message."""
            http("DELETE", EMULATOR + "/emulator/messages")
            if statements:
                psql(superuser, "SELECT pg_stat_statements_reset()")
            herald_before = sum(tree_ticks(p.pid) for _, p in servers)
            pg_before = postgres_ticks()
            content = {"name": title, "segment": segment,
                       "notification": {"title": "Hello {{first_name | default: \"friend\"}}", "body": "A benchmark"},
                       "variants": [{"key": "A", "weight": 1}, {"key": "B", "weight": 1, "notification": {"body": "The other text"}}]}
            due = time.monotonic()
            campaign = psql(url, f"INSERT INTO campaigns (name, status, content, next_run_at) VALUES ('{title}', 'scheduled', "
                                 f"'{json.dumps(content)}'::jsonb, now()) RETURNING id")
            first = None
            samples = []
            during = []
            while True:
                count = emulator_count()
                now = time.monotonic()
                samples.append((now, count))
                if count > 0 and first is None:
                    first = now
                if count >= n // 2 and len(during) < 3:
                    during.append(timed(lambda: http("GET", f"{api}/campaigns/{campaign}/report", key=key))[0])
                # (Each psql is a new backend: asked only at the end, so its start-up is not counted per message.)
                if count >= n and psql(url, f"SELECT status FROM campaigns WHERE id = '{campaign}'") != "sending":
                    break
                if now - due > 3600:
                    raise SystemExit(f"the send of {n} did not finish within an hour")
                time.sleep(0.02 if first is None else 0.2)
            last = next(t for t, c in samples if c >= n)
            herald_cpu = sum(tree_ticks(p.pid) for _, p in servers) - herald_before
            pg_cpu = postgres_ticks() - pg_before
            sent = emulator_count()
            if statements:
                print(f"  PostgreSQL's statements during the send \"{title}\" of {n:,} (µs of execution per message, calls):")
                print(psql(superuser, f"SELECT round((total_exec_time * 1000 / {max(1, n)})::numeric, 2) || ' µs  ' || calls || '  ' "
                                      f"|| left(regexp_replace(query, '\\s+', ' ', 'g'), 150) FROM pg_stat_statements "
                                      f"ORDER BY total_exec_time DESC LIMIT 12"))
            return campaign, first - due, last - first, sent, herald_cpu, pg_cpu, samples, during

        campaign, first, span, sent, herald_cpu, pg_cpu, samples, during = send("Everyone")
        after = [timed(lambda: http("GET", f"{api}/campaigns/{campaign}/report", key=key))[0] for _ in range(5)]
        # The busiest 60 seconds, against the quota.
        busiest = 0
        for i, (t0, c0) in enumerate(samples):
            later = [c for t, c in samples[i:] if t - t0 <= 60]
            busiest = max(busiest, later[-1] - c0)
        row.update({
            "first": first * 1000, "send": sent / max(1e-9, span) if span > 0 else float(sent),
            "herald": herald_cpu / HZ * 1e6 / sent, "pg": pg_cpu / HZ * 1e6 / sent,
            "report during": statistics.median(during) if during else float("nan"), "report after": statistics.median(after),
            "bytes/msg": (outbox_bytes(url) - before_bytes) / sent, "sent": sent, "busiest60": busiest,
        })
        if CAPS:
            # The same send twice more with frequency caps on (none reached): each device's first
            # counted message (its batches' histories empty), then its second (the first run's rows read).
            http("PUT", api + "/frequency-caps", json.dumps({"marketing": {"hour": 100, "day": 100, "week": 1000},
                                                             "categories": {"promotions": {"day": 10}}}).encode(), key)
            for label in ("pg capped 1st", "pg capped 2nd"):
                _, _, _, capped_sent, _, capped_pg, _, _ = send("Capped")
                assert capped_sent == n, (capped_sent, n)
                row[label] = capped_pg / HZ * 1e6 / capped_sent
            row["pg caps +"] = row["pg capped 2nd"] - row["pg"]
        return row
    finally:
        for _, process in servers:
            process.terminate()
            process.wait()
        psql(BASE_URL, f"DROP DATABASE IF EXISTS {name}")


COLUMNS = [("import", "rows/s", "{:,.0f}", -1), ("bytes/dev", "B", "{:,.0f}", 1), ("reach", "ms", "{:,.1f}", 1),
           ("first", "ms", "{:,.0f}", 1), ("send", "msg/s", "{:,.0f}", -1), ("herald", "us/msg", "{:,.1f}", 1),
           ("pg", "us/msg", "{:,.1f}", 1), ("report during", "ms", "{:,.1f}", 1), ("report after", "ms", "{:,.1f}", 1),
           ("bytes/msg", "B", "{:,.0f}", 1)]
if CAPS:
    COLUMNS += [("pg capped 1st", "us/msg", "{:,.1f}", 1), ("pg capped 2nd", "us/msg", "{:,.1f}", 1), ("pg caps +", "us/msg", "{:,.1f}", 1)]

rows = {}
for size in SIZES:
    print(f"measuring {size:,} devices ...", flush=True)
    rows[size] = measure(size)
    r = rows[size]
    print("  reach by segment (ms): " + ", ".join(f"{k} {v:.1f}" for k, v in r["reaches"].items()))
    print(f"  sent {r['sent']:,}; busiest 60 s {r['busiest60']:,} (quota {RATE:,} a minute)", flush=True)

print()
print("| devices | " + " | ".join(f"{name} ({unit})" for name, unit, _, _ in COLUMNS) + " |")
print("|---" * (len(COLUMNS) + 1) + "|")
for size, r in rows.items():
    print(f"| {size:,} | " + " | ".join(fmt.format(r[name]) for name, _, fmt, _ in COLUMNS) + " |")
print()
print("Growth per 10x of the cost per item (1.0 flat; import and send are inverted: time per row, per message):")
sizes = list(rows)
for small, large in zip(sizes, sizes[1:]):
    factor = (large / small)
    cells = []
    for name, _, _, direction in COLUMNS:
        a, b = rows[small][name], rows[large][name]
        ratio = (a / b if direction < 0 else b / a) if a and b else float("nan")
        cells.append(f"{name} {ratio ** (1 / math.log10(factor)):.2f}")
    print(f"  {small:,} -> {large:,}: " + ", ".join(cells))
