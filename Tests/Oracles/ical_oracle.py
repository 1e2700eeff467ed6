#!/usr/bin/env python3
"""Independent checks of CometCal's exported iCalendar files, for Tests/CometICalTests.

    python3 Tests/Oracles/ical_oracle.py request.json reply.json

request.json: {"files": ["/tmp/x.ics", ...], "from": "2026-01-01", "to": "2028-01-01"}
reply.json:   {"results": [{"file": ..., "error": null | "...", "occurrences": [["uid", "2026-06-01T07:30:00Z"], ...]}]}

Each file is parsed by the `icalendar` library (an independent parser) and its occurrences in the
range are expanded by `recurring_ical_events` (an independent recurrence implementation, with
overrides and EXDATEs), as UTC instants; floating times are read as UTC.
Exit status 3 when a library is missing: run scripts/bootstrap.
"""
import datetime
import json
import sys

try:
    import icalendar
    import recurring_ical_events
except ImportError as error:
    sys.stderr.write("ical_oracle: %s; run scripts/bootstrap\n" % error)
    sys.exit(3)


def utc(value):
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=datetime.timezone.utc)
        return value.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return value.strftime("%Y-%m-%d")


def main(argv):
    request = json.load(open(argv[1], encoding="utf-8"))
    start = datetime.date.fromisoformat(request["from"])
    end = datetime.date.fromisoformat(request["to"])
    results = []
    for path in request["files"]:
        result = {"file": path, "error": None, "occurrences": []}
        try:
            # An iCalendar stream may hold several VCALENDARs (RFC 5545 3.4): a whole-store
            # export writes one per calendar.
            for calendar in icalendar.Calendar.from_ical(open(path, "rb").read(), multiple=True):
                for event in recurring_ical_events.of(calendar).between(start, end):
                    result["occurrences"].append([str(event.get("UID")), utc(event.get("DTSTART").dt)])
        except Exception as error:  # report, the Swift test fails with it
            result["error"] = "%s: %s" % (type(error).__name__, error)
        results.append(result)
    json.dump({"results": results}, open(argv[2], "w", encoding="utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
