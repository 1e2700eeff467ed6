#!/usr/bin/env python3
"""Writes a large, valid iCalendar file for import benchmarks and stress tests.

    python3 Tests/Fixtures/ical/generate_large.py > /tmp/large.ics
    python3 Tests/Fixtures/ical/generate_large.py --events 20000 --seed 7 --output /tmp/big.ics

The output is deterministic for a given --events and --seed (no clock, no randomness from the
environment), so tests can rely on it; it is never committed (.gitignore keeps *.generated.ics
out, the default output is standard output).

The file is RFC 5545 clean: CRLF line endings, lines folded at 75 octets without splitting a
UTF-8 character, PRODID/VERSION, UID and DTSTAMP on every VEVENT, a VTIMEZONE for every TZID.
Exactly --events VEVENT components are written, counting each RECURRENCE-ID override as its own
component, so an import creates exactly that many event records. The mix: timed events in five
IANA zones, UTC and floating times, all-day and multi-day events, weekly/monthly/yearly series
with EXDATEs and overrides, attendees with every PARTSTAT, alarms, categories, non-ASCII text
and a few long descriptions. A summary (records, series, overrides) goes to standard error.
Python 3.8+, standard library only.
"""
import argparse
import datetime
import random
import sys

# zone: standard and daylight offsets and names, then each observance's first onset and rule.
ZONES = {
    "Europe/Berlin": ("+0100", "+0200", "CET", "CEST", "20070325T020000", "BYMONTH=3;BYDAY=-1SU",
                      "20071028T030000", "BYMONTH=10;BYDAY=-1SU"),
    "Europe/London": ("+0000", "+0100", "GMT", "BST", "20070325T010000", "BYMONTH=3;BYDAY=-1SU",
                      "20071028T020000", "BYMONTH=10;BYDAY=-1SU"),
    "America/New_York": ("-0500", "-0400", "EST", "EDT", "20070311T020000", "BYMONTH=3;BYDAY=2SU",
                         "20071104T020000", "BYMONTH=11;BYDAY=1SU"),
    "America/Los_Angeles": ("-0800", "-0700", "PST", "PDT", "20070311T020000", "BYMONTH=3;BYDAY=2SU",
                            "20071104T020000", "BYMONTH=11;BYDAY=1SU"),
    "Asia/Tokyo": ("+0900", "+0900", "JST", None, None, None, None, None),
}

WORDS = ("review planning sync retro kickoff workshop demo interview lunch training offsite "
         "budget roadmap standup onboarding handover audit launch briefing hackathon").split()
PLACES = ["Room 1.01", "Room 2.14", "Atlas", "Kitchen", "Café Lindgren", "Hall B", "Lab 3",
          "Zürich office", "東京オフィス", "Main St. 5\\, Springfield", "Online"]
PEOPLE = ["Ada Okafor", "Jonas Weber", "Mei Tanaka", "Priya Raman", "Lars Eriksen", "Sofia Marquez",
          "Tomasz Nowak", "Hannah Fischer", "Kwame Mensah", "Inès Dubois", "Søren Østergaard",
          "Zoë Ávila"]
PARTSTATS = ["ACCEPTED", "NEEDS-ACTION", "TENTATIVE", "DECLINED", "DELEGATED"]
CATEGORIES = ["Work", "Personal", "Travel", "Family", "Health", "Team", "Customer"]


def fold(line):
    """RFC 5545 §3.1: at most 75 octets per line, continuation lines start with a space."""
    data = line.encode("utf-8")
    if len(data) <= 75:
        return [data]
    out = []
    limit = 75
    while data:
        cut = min(limit, len(data))
        while cut < len(data) and (data[cut] & 0xC0) == 0x80:
            cut -= 1
        out.append((b" " if out else b"") + data[:cut])
        data = data[cut:]
        limit = 74
    return out


def vtimezone(tzid):
    std, dst, sn, dn, donset, drule, sonset, srule = ZONES[tzid]
    lines = ["BEGIN:VTIMEZONE", f"TZID:{tzid}"]
    if dn is None:
        lines += ["BEGIN:STANDARD", "DTSTART:19700101T000000", f"TZOFFSETFROM:{std}",
                  f"TZOFFSETTO:{std}", f"TZNAME:{sn}", "END:STANDARD"]
    else:
        lines += ["BEGIN:DAYLIGHT", f"DTSTART:{donset}", f"RRULE:FREQ=YEARLY;{drule}",
                  f"TZOFFSETFROM:{std}", f"TZOFFSETTO:{dst}", f"TZNAME:{dn}", "END:DAYLIGHT",
                  "BEGIN:STANDARD", f"DTSTART:{sonset}", f"RRULE:FREQ=YEARLY;{srule}",
                  f"TZOFFSETFROM:{dst}", f"TZOFFSETTO:{std}", f"TZNAME:{sn}", "END:STANDARD"]
    lines.append("END:VTIMEZONE")
    return lines


def stamp(day, minute=0):
    return f"2026{day[4:8]}T{8 + minute // 60:02d}{minute % 60:02d}00Z"


def generate(count, seed):
    rnd = random.Random(seed)
    events = []   # each: list of content lines (one VEVENT)
    series = overrides = 0
    n = 0
    while len(events) < count:
        n += 1
        uid = f"large-{seed}-{n:06d}@generated.cometcal.test"
        year = 2026 + rnd.randrange(2)
        month = rnd.randrange(1, 13)
        day = rnd.randrange(1, 29)
        date = f"{year}{month:02d}{day:02d}"
        kind = rnd.random()
        title = f"{rnd.choice(WORDS).capitalize()} {rnd.choice(WORDS)} #{n}"
        ev = ["BEGIN:VEVENT", f"UID:{uid}", f"DTSTAMP:{stamp(date, rnd.randrange(600))}"]
        zone = None
        if kind < 0.12:
            end = shift(date, rnd.choice([1, 1, 1, 2, 3]))
            ev += [f"DTSTART;VALUE=DATE:{date}", f"DTEND;VALUE=DATE:{end}", "TRANSP:TRANSPARENT"]
        else:
            hour, minute = rnd.randrange(7, 20), rnd.choice([0, 15, 30, 45])
            length = rnd.choice([15, 30, 45, 60, 60, 90, 120])
            eh, em = divmod(hour * 60 + minute + length, 60)
            start, stop = f"{date}T{hour:02d}{minute:02d}00", f"{date}T{eh:02d}{em:02d}00"
            if kind < 0.20:
                ev += [f"DTSTART:{start}Z", f"DTEND:{stop}Z"]
            elif kind < 0.24:
                ev += [f"DTSTART:{start}", f"DTEND:{stop}"]
            else:
                zone = rnd.choice(list(ZONES))
                ev += [f"DTSTART;TZID={zone}:{start}", f"DTEND;TZID={zone}:{stop}"]
        ev.append(f"SUMMARY:{title}")
        if rnd.random() < 0.6:
            ev.append(f"LOCATION:{rnd.choice(PLACES)}")
        if rnd.random() < 0.5:
            text = " ".join(rnd.choice(WORDS) for _ in range(rnd.choice([8, 20, 60, 200])))
            ev.append(f"DESCRIPTION:Agenda for {title}:\\n{text}\\nGrüße\\, the organizers")
        if rnd.random() < 0.4:
            ev.append("CATEGORIES:" + ",".join(rnd.sample(CATEGORIES, rnd.randrange(1, 3))))
        if rnd.random() < 0.35:
            people = rnd.sample(PEOPLE, rnd.randrange(2, 6))
            organizer = people[0]
            ev.append(f"ORGANIZER;CN={organizer}:mailto:{mail(organizer)}")
            for person in people:
                partstat = "ACCEPTED" if person == organizer else rnd.choice(PARTSTATS)
                role = "CHAIR" if person == organizer else rnd.choice(["REQ-PARTICIPANT", "OPT-PARTICIPANT"])
                ev.append(f"ATTENDEE;CN={person};ROLE={role};PARTSTAT={partstat}:mailto:{mail(person)}")
        alarm = None
        if rnd.random() < 0.3:
            alarm = ["BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Reminder",
                     f"TRIGGER:-PT{rnd.choice([5, 10, 15, 30, 60])}M", "END:VALARM"]
        recurring = kind >= 0.12 and rnd.random() < 0.25 and len(events) < count - 3
        moved = []
        if recurring:
            series += 1
            freq = rnd.choice(["WEEKLY", "WEEKLY", "DAILY", "MONTHLY", "YEARLY"])
            reps = rnd.randrange(4, 30)
            ev.append(f"RRULE:FREQ={freq};COUNT={reps}")
            skip = None
            if freq in ("WEEKLY", "DAILY") and rnd.random() < 0.5:
                skip = (7 if freq == "WEEKLY" else 1) * rnd.randrange(1, 4)
                ev.append(exdate(ev, skip))
            if freq == "WEEKLY" and rnd.random() < 0.5:
                offset = 7 * rnd.randrange(1, 4)
                if offset != skip:
                    moved.append(offset)
        if alarm:
            ev += alarm
        ev.append("END:VEVENT")
        events.append(ev)
        for offset in moved:
            if len(events) >= count:
                break
            events.append(override(ev, uid, offset, rnd))
            overrides += 1
    return events, series, overrides


def mail(name):
    ascii_name = name.lower().translate(str.maketrans("èéëøöüåäáô", "eeeoouaaao")).replace("ø", "o")
    return ascii_name.replace(" ", ".") + "@example.com"


def _start(ev):
    line = next(l for l in ev if l.startswith("DTSTART"))
    head, value = line.split(":", 1)
    return head, value


def shift(value, days):
    """Adds days to an RFC 5545 date or date-time text."""
    base = datetime.date(int(value[:4]), int(value[4:6]), int(value[6:8])) + datetime.timedelta(days=days)
    return base.strftime("%Y%m%d") + value[8:]


def exdate(ev, days):
    head, value = _start(ev)
    return head.replace("DTSTART", "EXDATE") + ":" + shift(value, days)


def override(master, uid, days, rnd):
    head, value = _start(master)
    recurrence = head.replace("DTSTART", "RECURRENCE-ID") + ":" + shift(value, days)
    end_head, end_value = next(l for l in master if l.startswith("DTEND")).split(":", 1)
    later = 1 if value[9:11] < "22" and end_value[9:11] < "22" else 0
    def plus_hour(v):
        return v[:9] + f"{int(v[9:11]) + later:02d}" + v[11:]
    title = next(l for l in master if l.startswith("SUMMARY:"))[8:]
    return ["BEGIN:VEVENT", f"UID:{uid}", next(l for l in master if l.startswith("DTSTAMP")), recurrence,
            f"{head}:{plus_hour(shift(value, days))}", f"{end_head}:{plus_hour(shift(end_value, days))}",
            f"SUMMARY:{title} (moved)", f"LOCATION:{rnd.choice(PLACES)}", "END:VEVENT"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=5000, help="VEVENT components to write (default 5000)")
    parser.add_argument("--seed", type=int, default=5545, help="seed for the deterministic mix (default 5545)")
    parser.add_argument("--output", "-o", help="file to write (default: standard output)")
    args = parser.parse_args()
    if args.events < 1:
        parser.error("--events must be at least 1")
    events, series, overrides = generate(args.events, args.seed)
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//CometCal//generate_large.py//EN", "CALSCALE:GREGORIAN",
             f"X-WR-CALNAME:Large calendar ({args.events} events)"]
    used = sorted({l.split("TZID=", 1)[1].split(":", 1)[0] for ev in events for l in ev if "TZID=" in l})
    for tzid in used:
        lines += vtimezone(tzid)
    for ev in events:
        lines += ev
    lines.append("END:VCALENDAR")
    data = b"".join(chunk + b"\r\n" for line in lines for chunk in fold(line))
    if args.output:
        with open(args.output, "wb") as f:
            f.write(data)
    else:
        sys.stdout.buffer.write(data)
    sys.stderr.write(f"{len(events)} VEVENTs ({series} series, {overrides} overrides), {len(data)} bytes\n")


if __name__ == "__main__":
    main()
