"""What the benches share: psql, HTTP with large blocks, CPU ticks from /proc, timing."""
import json
import os
import subprocess
import time
import http.client as httpclient
import urllib.error
import urllib.parse

HZ = os.sysconf("SC_CLK_TCK")


def psql(url, sql):
    return subprocess.run(["psql", "-qAtX", url, "-c", sql], check=True, capture_output=True, text=True).stdout.strip()


def database(base_url, name):
    """A URL for database `name` of the bench's cluster."""
    return base_url.rsplit("/", 1)[0] + "/" + name


def ticks(pid):
    """CPU ticks of a process and its reaped children (utime, stime, cutime, cstime)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return sum(int(x) for x in fields[11:15])
    except OSError:
        return 0


def tree_ticks(pid):
    """A process's ticks and its live children's (PostgreSQL's backends)."""
    total = ticks(pid)
    children = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    return total + sum(ticks(int(c)) for c in children)


def postgres_ticks(pid_file):
    """The PostgreSQL cluster's CPU ticks: the postmaster and every backend and background process."""
    with open(pid_file) as f:
        return tree_ticks(int(f.readline()))


def postgres_ticks_by_kind(pid_file):
    """The cluster's CPU ticks by kind of process: its client backends (by database), autovacuum,
    the WAL writer, the checkpointer and the rest, so that a bench can say where the cluster's CPU
    went. (A backend that exits between two samples takes its ticks with it into the postmaster's
    reaped children, counted as "ended".)"""
    with open(pid_file) as f:
        postmaster = int(f.readline())
    kinds = {"ended": ticks(postmaster)}
    for child in subprocess.run(["pgrep", "-P", str(postmaster)], capture_output=True, text=True).stdout.split():
        try:
            with open(f"/proc/{child}/cmdline") as f:
                title = f.read().replace("\0", " ").strip()
        except OSError:
            continue
        if "autovacuum" in title:
            kind = "autovacuum"
        elif "walwriter" in title:
            kind = "walwriter"
        elif "checkpointer" in title:
            kind = "checkpointer"
        elif "background writer" in title:
            kind = "bgwriter"
        elif "(" in title:
            kind = "backends"
        else:
            kind = "other"
        kinds[kind] = kinds.get(kind, 0) + ticks(int(child))
    return kinds


def http(method, url, body=None, key=None, content_type="application/json", length=None):
    # http.client, not urllib: a file body goes out in blocks of 1 MB (as curl's are large), not
    # 8 KB: on this 2-core machine the bench's own Python took CPU from the work it measured.
    parts = urllib.parse.urlsplit(url)
    connection = httpclient.HTTPConnection(parts.hostname, parts.port, timeout=600, blocksize=1 << 20)
    headers = {}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    if body is not None:
        headers["Content-Type"] = content_type
    if length is not None:
        headers["Content-Length"] = str(length)
    try:
        connection.request(method, parts.path + (f"?{parts.query}" if parts.query else ""), body=body, headers=headers)
        response = connection.getresponse()
        content = response.read()
        if response.status >= 400:
            raise urllib.error.HTTPError(url, response.status, content.decode(errors="replace"), response.headers, None)
        return json.loads(content or b"null")
    finally:
        connection.close()


def timed(function):
    start = time.monotonic()
    result = function()
    return (time.monotonic() - start) * 1000, result


def emulator_count(emulator):
    return int(http("GET", emulator + "/emulator/counts")["accepted"])
