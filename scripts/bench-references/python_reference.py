"""The python references of scripts/bench: python `icalendar` parsing a whole file, and
`recurring_ical_events` listing one range of it. Reading the file is outside the clock.

usage: python3 python_reference.py FILE [FROM TO]   (FROM/TO: YYYY-MM-DD, the range's days)
prints one JSON object: {"parse": seconds, "events": n, "range": seconds, "occurrences": n}
"""
import datetime
import json
import sys
import time

import icalendar

try:
    import recurring_ical_events
except ImportError:  # the parse figure alone is still worth having
    recurring_ical_events = None


def main():
    if len(sys.argv) not in (2, 4):
        print(__doc__, file=sys.stderr)
        return 64
    with open(sys.argv[1], "rb") as handle:
        data = handle.read()
    started = time.perf_counter()
    calendar = icalendar.Calendar.from_ical(data)
    result = {"parse": time.perf_counter() - started, "events": len(calendar.walk("VEVENT")), "version": icalendar.__version__}
    if len(sys.argv) == 4 and recurring_ical_events is not None:
        start = datetime.date.fromisoformat(sys.argv[2])
        end = datetime.date.fromisoformat(sys.argv[3])
        started = time.perf_counter()
        occurrences = recurring_ical_events.of(calendar).between(start, end)
        result["range"] = time.perf_counter() - started
        result["occurrences"] = len(occurrences)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
