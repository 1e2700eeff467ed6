#!/usr/bin/env python3
"""Expands RRULEs with python-dateutil, an independent implementation, for the differential
test in Tests/CometSchemaTests/RecurrenceDifferentialTests.swift.

    python3 Tests/Oracles/rrule_oracle.py in.json out.json

in.json:  {"budgetSeconds": 0.5, "cases": [{"id": 0, "rule": "FREQ=...", "dtstart": "20260101T090000", "max": 60,
                                           "budgetSeconds": 0.1}, ...]}   (a case's own budget is optional)
out.json: {"dateutil": "2.9.0.post0", "results": [{"id": 0, "status": "complete" | "max" | "timeout" | "error",
                                                   "occurrences": ["20260101T090000", ...], "error": "..."}]}

All times are floating (naive) wall times. "complete" means the rule ran out (COUNT, UNTIL or the
year 9999) before "max" occurrences; "max" means "max" occurrences were produced; "timeout" means
dateutil spent the case's time budget (a rule that produces nothing for centuries) and the list is
what it produced until then; "error" carries dateutil's message (for example a BYHOUR that an
INTERVAL can never reach).

Exit status 3 when python-dateutil is missing: run scripts/bootstrap.
"""
import datetime
import json
import signal
import sys

try:
    import dateutil
    from dateutil.rrule import rrulestr
except ImportError:
    sys.stderr.write("rrule_oracle: python-dateutil is not installed; run scripts/bootstrap "
                     "(python3 -m pip install python-dateutil)\n")
    sys.exit(3)


class Timeout(BaseException):  # not an Exception, so no library code can swallow it
    pass


def on_alarm(signum, frame):
    raise Timeout()


def expand(case, budget):
    dtstart = datetime.datetime.strptime(case["dtstart"], "%Y%m%dT%H%M%S")
    limit = int(case["max"])
    result = {"id": case["id"], "occurrences": []}
    out = result["occurrences"]
    signal.setitimer(signal.ITIMER_REAL, budget)
    try:
        rule = rrulestr(case["rule"], dtstart=dtstart)
        status = "complete"
        for value in rule:
            out.append(value.strftime("%Y%m%dT%H%M%S"))
            if len(out) >= limit:
                status = "max"
                break
        signal.setitimer(signal.ITIMER_REAL, 0)
        result["status"] = status
    except Timeout:
        result["status"] = "timeout"
    except Exception as error:  # dateutil's ValueError for rules that can never produce
        signal.setitimer(signal.ITIMER_REAL, 0)
        result["status"] = "error"
        result["error"] = "%s: %s" % (type(error).__name__, error)
    return result


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: rrule_oracle.py in.json out.json\n")
        return 2
    with open(argv[1], encoding="utf-8") as handle:
        request = json.load(handle)
    budget = float(request.get("budgetSeconds", 0.5))
    # A parent (the Swift test runner) may block signals, and children inherit the mask: without
    # this, SIGALRM never arrives and a rule that never produces runs to the year 9999.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGALRM})
    signal.signal(signal.SIGALRM, on_alarm)
    results = []
    for case in request["cases"]:
        try:
            results.append(expand(case, float(case.get("budgetSeconds", budget))))
        except Timeout:  # the alarm fired between the loop's end and disarming it
            results.append({"id": case["id"], "status": "timeout", "occurrences": []})
    with open(argv[2], "w", encoding="utf-8") as handle:
        json.dump({"dateutil": dateutil.__version__, "results": results}, handle)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
