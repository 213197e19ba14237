"""firebase-admin (the official Python Admin SDK) sending a fixed number of messages to a sink.

Usage: firebase_admin_load.py MODE KEY_FILE BASE_URL MESSAGES
  MODE      send_each (a thread per message, 500 at a time) or send_each_async (asyncio, httpx)
  KEY_FILE  a service-account key whose token_uri the sink answers (the emulator writes one)
  BASE_URL  scheme, host and port standing in for https://fcm.googleapis.com

The SDK has no setting for its endpoint: the messaging service's send URL is replaced, and the
connection pool it mounts for fcm.googleapis.com (100 connections) is mounted for the sink too,
so it runs as it would against FCM. Prints "messages/s: N"; exits non-zero if any send failed.
"""
import asyncio
import resource
import sys
import time

import requests
import firebase_admin
from firebase_admin import _http_client, credentials, messaging

BATCH = 500  # the most send_each and send_each_async take per call


def message(number):
    """The message `herald fcm-load` sends, numbered so that none repeats. (No Android
    priority: the SDK writes it in lower case, which FCM takes and the emulator's stricter enum
    check refuses.)"""
    return messaging.Message(
        topic="bench",
        notification=messaging.Notification(
            title="Weekend offer", body="Free delivery on every order until Sunday night, this app only."),
        android=messaging.AndroidConfig(
            ttl=3600, notification=messaging.AndroidNotification(channel_id="offers")),
        apns=messaging.APNSConfig(
            headers={"apns-priority": "10"}, payload=messaging.APNSPayload(aps=messaging.Aps(sound="default"))),
        data={"campaign": "bench", "n": str(number)},
    )


def cpu_seconds():
    """User and system time of this process, every thread included."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main():
    mode, key_file, base_url, count = sys.argv[1], sys.argv[2], sys.argv[3].rstrip("/"), int(sys.argv[4])
    if mode not in ("send_each", "send_each_async"):
        sys.exit(f"unknown mode {mode}")
    app = firebase_admin.initialize_app(credentials.Certificate(key_file))
    service = messaging._get_messaging_service(app)
    if not hasattr(service, "_fcm_url"):
        sys.exit(f"firebase-admin {firebase_admin.__version__} keeps its send URL elsewhere: update this script")
    service._fcm_url = f"{base_url}/v1/projects/{app.project_id}/messages:send"
    service._client.session.mount(base_url, requests.adapters.HTTPAdapter(
        pool_connections=100, pool_maxsize=100, max_retries=_http_client.DEFAULT_RETRY_CONFIG))

    messages = [message(n) for n in range(count + BATCH)]
    batches = [messages[i:i + BATCH] for i in range(0, len(messages), BATCH)]
    warmup, measured = batches[0], batches[1:]

    if mode == "send_each":
        def run(batch):
            return messaging.send_each(batch, app=app)
        run(warmup)
        started, cpu_before = time.monotonic(), cpu_seconds()
        responses = [run(batch) for batch in measured]
        elapsed, cpu = time.monotonic() - started, cpu_seconds() - cpu_before
    else:
        async def run_all():
            await messaging.send_each_async(warmup, app=app)
            began, cpu_began = time.monotonic(), cpu_seconds()
            answers = [await messaging.send_each_async(batch, app=app) for batch in measured]
            return answers, time.monotonic() - began, cpu_seconds() - cpu_began
        responses, elapsed, cpu = asyncio.run(run_all())

    failures = sum(response.failure_count for response in responses)
    sent = sum(len(batch) for batch in measured)
    print(f"firebase-admin {firebase_admin.__version__} {mode}: messages: {sent}, failures: {failures}, seconds: {elapsed:.3f}")
    if failures:
        first = next(r.exception for response in responses for r in response.responses if r.exception)
        print(f"first failure: {first}")
    print(f"sender CPU per message: {cpu / sent * 1e6:.0f} µs")
    print(f"messages/s: {sent / elapsed:.0f}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
