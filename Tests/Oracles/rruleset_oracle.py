#!/usr/bin/env python3
"""Expands recurrence sets (several RRULEs, EXRULEs, RDATEs and EXDATEs) with python-dateutil's
rruleset, an independent implementation, for Tests/CometSchemaTests/RecurrenceSetDifferentialTests.swift.

    python3 Tests/Oracles/rruleset_oracle.py in.json out.json

in.json:  {"cases": [{"id": 0, "dtstart": "20260101T090000", "rrules": ["FREQ=...", ...],
                      "exrules": ["FREQ=..."], "rdates": ["20260101T090000"], "exdates": [...],
                      "max": 40, "budgetSeconds": 0.1}, ...]}
out.json: {"dateutil": "2.9.0.post0", "results": [{"id": 0, "status": "complete" | "max" | "timeout" | "error",
                                                   "occurrences": ["20260101T090000", ...], "error": "..."}]}

All times are floating (naive) wall times. The caller passes DTSTART as an RDATE (RFC 5545 makes
DTSTART the first occurrence; dateutil's rrule yields it only when the rule generates it) and
adjusts each RRULE's COUNT accordingly. "timeout" means the case's budget was spent (a rule that
produces nothing for centuries) and the list is what was produced until then.

Exit status 3 when python-dateutil is missing: run scripts/bootstrap.
"""
import datetime
import json
import signal
import sys

try:
    import dateutil
    from dateutil.rrule import rrulestr, rruleset
except ImportError:
    sys.stderr.write("rruleset_oracle: python-dateutil is not installed; run scripts/bootstrap "
                     "(python3 -m pip install python-dateutil)\n")
    sys.exit(3)


class Timeout(BaseException):  # not an Exception, so no library code can swallow it
    pass


def on_alarm(signum, frame):
    raise Timeout()


def parse(text):
    return datetime.datetime.strptime(text, "%Y%m%dT%H%M%S")


def expand(case):
    dtstart = parse(case["dtstart"])
    limit = int(case["max"])
    result = {"id": case["id"], "occurrences": []}
    out = result["occurrences"]
    signal.setitimer(signal.ITIMER_REAL, float(case.get("budgetSeconds", 0.1)))
    try:
        rules = rruleset()
        for text in case["rrules"]:
            rules.rrule(rrulestr(text, dtstart=dtstart))
        for text in case["exrules"]:
            rules.exrule(rrulestr(text, dtstart=dtstart))
        for text in case["rdates"]:
            rules.rdate(parse(text))
        for text in case["exdates"]:
            rules.exdate(parse(text))
        status = "complete"
        for value in rules:
            out.append(value.strftime("%Y%m%dT%H%M%S"))
            if len(out) >= limit:
                status = "max"
                break
        signal.setitimer(signal.ITIMER_REAL, 0)
        result["status"] = status
    except Timeout:
        result["status"] = "timeout"
    except Exception as error:
        signal.setitimer(signal.ITIMER_REAL, 0)
        result["status"] = "error"
        result["error"] = "%s: %s" % (type(error).__name__, error)
    return result


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: rruleset_oracle.py in.json out.json\n")
        return 2
    with open(argv[1], encoding="utf-8") as handle:
        request = json.load(handle)
    # The Swift test runner may block signals, and children inherit the mask.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGALRM})
    signal.signal(signal.SIGALRM, on_alarm)
    results = []
    for case in request["cases"]:
        try:
            results.append(expand(case))
        except Timeout:  # the alarm fired between the loop's end and disarming it
            results.append({"id": case["id"], "status": "timeout", "occurrences": []})
    with open(argv[2], "w", encoding="utf-8") as handle:
        json.dump({"dateutil": dateutil.__version__, "results": results}, handle)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
