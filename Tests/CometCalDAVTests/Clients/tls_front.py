"""Clients of a CometCal server reached through a TLS front (nginx) at https://127.0.0.1:PORT/,
trusting only the test's self-signed certificate (CAFILE). Each step prints JSON lines of what
the client saw; the Swift test (TLSFrontTests) checks them and the store.

  tls_front.py BASE CAFILE client
      python caldav from the bare URL: the principal and calendar home it finds, MKCALENDAR,
      PUT, GET, a time-range REPORT, sync-collection, DELETE.
  tls_front.py BASE CAFILE request METHOD PATH [--user NAME:PASSWORD] [--body TEXT]
                                    [--body-bytes N] [--chunked] [--header NAME:VALUE]...
      one request with the standard library: status, headers (lower-cased names, every
      value), body."""
import argparse
import base64
import http.client
import json
import ssl
import sys
from datetime import datetime, timezone
from urllib.parse import urlsplit

base, cafile, step = sys.argv[1], sys.argv[2], sys.argv[3]


def say(**what):
    print(json.dumps(what, default=str), flush=True)


EVENT = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//CometCal TLS front test//EN
BEGIN:VEVENT
UID:comet-watch@example.com
DTSTAMP:20260601T080000Z
DTSTART:20260612T200000Z
DTEND:20260612T220000Z
SUMMARY:Comet watch
END:VEVENT
END:VCALENDAR
"""

if step == "client":
    import caldav

    client = caldav.DAVClient(url=base, username="alice", password="secret", ssl_verify_cert=cafile)
    principal = client.principal()
    home = principal.calendar_home_set
    say(principal=str(principal.url), home=str(home.url))
    made = principal.make_calendar(name="Night sky", cal_id="night-sky")
    say(made=str(made.url))
    token = made.objects_by_sync_token(load_objects=False).sync_token
    saved = made.save_event(EVENT)
    say(saved=str(saved.url))
    fetched = made.event_by_url(saved.url)
    fetched.load()
    say(summary=str(fetched.icalendar_component.get("summary")))
    june = made.search(start=datetime(2026, 6, 12, tzinfo=timezone.utc), end=datetime(2026, 6, 13, tzinfo=timezone.utc), event=True)
    july = made.search(start=datetime(2026, 7, 1, tzinfo=timezone.utc), end=datetime(2026, 7, 2, tzinfo=timezone.utc), event=True)
    say(june=[str(e.url) for e in june], july=len(july))
    changed = made.objects_by_sync_token(sync_token=token, load_objects=True)
    say(synced=[str(o.url) for o in changed], syncedSummaries=[str(o.icalendar_component.get("summary")) for o in changed])
    fetched.delete()
    say(left=len(made.events()), calendars=[c.get_display_name() for c in principal.calendars()])
elif step == "request":
    parser = argparse.ArgumentParser()
    parser.add_argument("method")
    parser.add_argument("path")
    parser.add_argument("--user")
    parser.add_argument("--body")
    parser.add_argument("--body-bytes", type=int)
    parser.add_argument("--chunked", action="store_true")
    parser.add_argument("--header", action="append", default=[])
    options = parser.parse_args(sys.argv[4:])
    place = urlsplit(base)
    context = ssl.create_default_context(cafile=cafile)
    connection = http.client.HTTPSConnection(place.hostname, place.port, context=context, timeout=60)
    headers = dict(h.split(":", 1) for h in options.header)
    if options.user:
        headers["Authorization"] = "Basic " + base64.b64encode(options.user.encode()).decode()
    body = options.body.encode() if options.body is not None else None
    if options.body_bytes is not None:
        body = b"x" * options.body_bytes
    if options.chunked:
        # Sent as chunks of at most 1,000 bytes, without a Content-Length.
        pieces = [body[i:i + 1000] for i in range(0, len(body), 1000)]
        connection.request(options.method, options.path, body=iter(pieces), headers=headers, encode_chunked=True)
    else:
        connection.request(options.method, options.path, body=body, headers=headers)
    response = connection.getresponse()
    answer = {}
    for name, value in response.getheaders():
        answer.setdefault(name.lower(), []).append(value)
    say(status=response.status, headers=answer, body=response.read().decode("utf-8", "replace"))
else:
    sys.exit(f"unknown step {step}")
