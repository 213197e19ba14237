"""Segment reach alone, up to ten million devices, without importing them over the API.

Run by deploy/bench/reach (which builds Herald, starts a private PostgreSQL and passes its URL).
For each size, in a database of its own: fills `devices` with generate_series in batches of 5,000
rows, each its own transaction, through the same upsert Herald's import runs (so the census
triggers do what an import makes them do), with the bench's attributes (deploy/bench/audiences.py:
3 platforms, 5 app versions, 7 languages, 6 countries and their time zones, last seen over 120
days, a first name and a bucket 0-9 as properties); then asks POST /api/v1/segment-reach for each
segment below, the median of 7, in milliseconds, and says how big the census is.

HERALD_BENCH_WITHOUT_CENSUS=1 fills a second database the same way with the census triggers
disabled, to show what they cost the fill (rows/s with and without).
"""
import json
import os
import statistics
import subprocess
import sys
import time
import urllib.request

HERALD, BASE_URL, SIZES, PORT = sys.argv[1], sys.argv[2], [int(s) for s in sys.argv[3].split(",")], int(sys.argv[4])
BATCH = 5000

SEGMENTS = {
    "fa & >=5.2": {"all": [{"field": "language", "equals": "fa"}, {"field": "app_version", "at_least": "5.2"}]},
    "IR|IL android": {"all": [{"field": "country", "in": ["IR", "IL"]}, {"field": "platform", "equals": "android"}]},
    "bucket=3": {"all": [{"property": "bucket", "equals": "3"}]},
    "seen 30d & ios & tz": {"all": [{"last_seen_within_days": 30}, {"field": "platform", "equals": "ios"},
                                    {"field": "time_zone", "in": ["Asia/Tehran", "Europe/Berlin"]}]},
    "bucket=3 & de & seen 7d": {"all": [{"property": "bucket", "equals": "3"}, {"field": "language", "equals": "de"},
                                        {"last_seen_within_days": 7}]},
    "everyone": {"all": [{"field": "platform", "in": ["android", "ios", "web"]}]},
}

# The upsert of DeviceStore.upsert, over generated rows instead of unnest of the batch's columns.
FILL = """
INSERT INTO devices AS d (token, platform, app_version, app_version_key, language, country, time_zone, properties, last_seen_at)
SELECT 'bench-' || lpad(i::text, 9, '0') || ':APA91b' || md5(i::text) || md5(i::text || 'x') || left(md5(i::text || 'y'), 4),
       (ARRAY['android', 'ios', 'web'])[1 + i % 3],
       (ARRAY['5.1', '5.2', '5.2.1', '5.10', '6.0'])[1 + v],
       (ARRAY['{{5,1}}', '{{5,2}}', '{{5,2,1}}', '{{5,10}}', '{{6}}'])[1 + v]::integer[],
       (ARRAY['fa-IR', 'fa', 'he-IL', 'hi-IN', 'vi-VN', 'en-US', 'de-DE'])[1 + l],
       (ARRAY['IR', 'IL', 'IN', 'VN', 'US', 'DE'])[1 + k],
       (ARRAY['Asia/Tehran', 'Asia/Jerusalem', 'Asia/Kolkata', 'Asia/Ho_Chi_Minh', 'America/New_York', 'Europe/Berlin'])[1 + k],
       CASE WHEN f = 6 THEN jsonb_build_object('bucket', (i % 10)::text)
            ELSE jsonb_build_object('first_name', (ARRAY['Sara', 'Reza', 'Noa', 'Aarav', 'Linh', 'Ada'])[1 + f], 'bucket', (i % 10)::text) END,
       date_trunc('day', now()) - make_interval(days => s::integer) + interval '12 hours'
FROM (SELECT i, abs(hashint8extended(i, 1)) % 5 AS v, abs(hashint8extended(i, 2)) % 7 AS l, abs(hashint8extended(i, 3)) % 6 AS k,
             abs(hashint8extended(i, 4)) % 7 AS f, abs(hashint8extended(i, 5)) % 120 AS s
      FROM generate_series({first}, {last}) AS i) AS x
ON CONFLICT (token) DO UPDATE SET platform = excluded.platform, app_id = excluded.app_id, app_version = excluded.app_version,
    app_version_key = excluded.app_version_key, language = excluded.language, country = excluded.country,
    time_zone = excluded.time_zone, properties = excluded.properties,
    last_seen_at = greatest(d.last_seen_at, excluded.last_seen_at), status = 'active', invalid_reason = NULL, updated_at = now()
RETURNING (xmax = 0);
"""


def psql(url, sql):
    done = subprocess.run(["psql", "-qAtX", "-v", "ON_ERROR_STOP=1", url], input=sql, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"psql failed: {done.stderr.strip()}")
    return done.stdout.strip()


def http(method, url, body=None, key=None):
    request = urllib.request.Request(url, data=body, method=method)
    if key:
        request.add_header("Authorization", f"Bearer {key}")
    if body is not None:
        request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=600) as response:
        return json.loads(response.read() or b"null")


def fresh(name):
    psql(BASE_URL, f"DROP DATABASE IF EXISTS {name}; CREATE DATABASE {name};")
    url = BASE_URL.rsplit("/", 1)[0] + "/" + name
    subprocess.run([HERALD, "migrate"], env=dict(os.environ, DATABASE_URL=url), check=True, capture_output=True)
    return url


def fill(url, n, census=True):
    """Rows per second of filling `n` devices, a transaction per batch (no output kept)."""
    script = "" if census else "ALTER TABLE devices DISABLE TRIGGER USER;\n"
    script += "\\o /dev/null\n" + "".join(FILL.format(first=first, last=min(n, first + BATCH - 1)) for first in range(1, n + 1, BATCH))
    if census:  # the import's end: the changes into the counts
        script += "SELECT device_census_fold();\n"
    start = time.monotonic()
    psql(url, script)
    return n / (time.monotonic() - start)


for n in SIZES:
    print(f"{n:,} devices:", flush=True)
    if os.environ.get("HERALD_BENCH_WITHOUT_CENSUS") == "1":
        url = fresh(f"reach_bare_{n}")
        print(f"  fill without the census triggers: {fill(url, n, census=False):,.0f} rows/s", flush=True)
        psql(BASE_URL, f"DROP DATABASE reach_bare_{n}")
    url = fresh(f"reach_{n}")
    print(f"  fill with the census triggers:    {fill(url, n):,.0f} rows/s", flush=True)
    psql(url, "VACUUM ANALYZE devices; VACUUM device_census_changes; VACUUM ANALYZE device_census; VACUUM ANALYZE device_property_census;")
    print("  census rows: " + psql(url, "SELECT (SELECT count(*) FROM device_census) || ' plain, ' || (SELECT count(*) FROM device_property_census)"
                                        " || ' per property, ' || (SELECT count(*) FROM device_census_changes) || ' pending; '"
                                        " || pg_size_pretty(pg_total_relation_size('device_census') + pg_total_relation_size('device_property_census'))"
                                        " || ' beside devices '  || pg_size_pretty(pg_total_relation_size('devices'))"))
    env = dict(os.environ, DATABASE_URL=url, HERALD_PORT=str(PORT), HERALD_HOST="127.0.0.1", HERALD_SCHEDULER="false")
    key = subprocess.run([HERALD, "api-keys", "create", "--name", "bench", "--role", "admin"], env=env,
                         capture_output=True, text=True, check=True).stdout.strip().split()[-1]
    log = open(f"/tmp/herald-reach-bench-{n}.log", "w")
    server = subprocess.Popen([HERALD, "serve"], stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        for _ in range(300):
            try:
                http("GET", f"http://127.0.0.1:{PORT}/readyz")
                break
            except Exception:
                time.sleep(0.1)
        for label, rule in SEGMENTS.items():
            body = json.dumps({"rule": rule}).encode()
            times, devices = [], None
            for _ in range(7):
                start = time.monotonic()
                devices = http("POST", f"http://127.0.0.1:{PORT}/api/v1/segment-reach", body, key)["devices"]
                times.append((time.monotonic() - start) * 1000)
            print(f"  reach {label}: {statistics.median(times):.1f} ms ({devices:,.0f} devices)", flush=True)
    finally:
        server.terminate()
        server.wait()
        if os.environ.get("HERALD_BENCH_KEEP") != "1":
            psql(BASE_URL, f"DROP DATABASE reach_{n}")
