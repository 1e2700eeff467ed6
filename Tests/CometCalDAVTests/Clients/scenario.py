"""python caldav (an independent CalDAV client) against a CometCal server: each step prints
one JSON line of what the client saw; the Swift test checks them and the store."""
import json
import sys
from urllib.parse import unquote
from datetime import datetime, timezone

import caldav

url, step = sys.argv[1], sys.argv[2]
client = caldav.DAVClient(url=url, username="alice", password="secret")
principal = client.principal()


def say(**what):
    print(json.dumps(what, default=str))


def calendar(name):
    return next(c for c in principal.calendars() if c.get_display_name() == name)


SERIES = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//python caldav scenario//EN
BEGIN:VEVENT
UID:standup@example.com
DTSTAMP:20260601T080000Z
DTSTART;TZID=Europe/Berlin:20260601T090000
DTEND;TZID=Europe/Berlin:20260601T091500
RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=8
SUMMARY:Standup
END:VEVENT
BEGIN:VEVENT
UID:standup@example.com
DTSTAMP:20260601T080000Z
RECURRENCE-ID;TZID=Europe/Berlin:20260608T090000
DTSTART;TZID=Europe/Berlin:20260608T100000
DTEND;TZID=Europe/Berlin:20260608T101500
SUMMARY:Standup (moved)
END:VEVENT
END:VCALENDAR
"""

if step == "create":
    made = principal.make_calendar(name="Team", cal_id="team")
    event = made.save_event(SERIES)
    say(calendars=[c.get_display_name() for c in principal.calendars()], url=str(event.url))
    # The sync token now, for the next step.
    say(token=made.objects_by_sync_token(load_objects=False).sync_token)
elif step == "read":
    team = calendar("Team")
    # The series has an occurrence on 8 June (its override) and none in September (COUNT=8).
    june = team.search(start=datetime(2026, 6, 8, tzinfo=timezone.utc), end=datetime(2026, 6, 9, tzinfo=timezone.utc), event=True, expand=False)
    september = team.search(start=datetime(2026, 9, 1, tzinfo=timezone.utc), end=datetime(2026, 9, 2, tzinfo=timezone.utc), event=True, expand=False)
    say(june=len(june), september=len(september))
    event = team.event_by_uid("standup@example.com")
    say(summaries=sorted(str(c.get("summary")) for c in event.icalendar_instance.walk("VEVENT")), etag=event.props.get("{DAV:}getetag") if hasattr(event, "props") else None)
elif step == "sync":
    team = calendar("Team")
    changed = team.objects_by_sync_token(sync_token=sys.argv[3], load_objects=True)
    say(changed=[unquote(str(o.url).rsplit("/", 1)[-1]) for o in changed], summaries=sorted(str(c.get("summary")) for o in changed for c in o.icalendar_instance.walk("VEVENT")))
elif step == "split":
    # After CometCal moved the series "this and future": what the client holds, resource by
    # resource, and the instances it expands itself from them over June and July.
    team = calendar("Team")
    resources = []
    for event in team.events():
        components = list(event.icalendar_instance.walk("VEVENT"))
        master = next(c for c in components if c.get("recurrence-id") is None)
        resources.append({
            "uid": str(master.get("uid")),
            "rrule": master.get("rrule").to_ical().decode() if master.get("rrule") else None,
            "start": master.decoded("dtstart").isoformat(),
            "related": str(master.get("related-to")) if master.get("related-to") else None,
            "overrides": sorted(c.decoded("recurrence-id").isoformat() for c in components if c.get("recurrence-id") is not None),
        })
    say(resources=sorted(resources, key=lambda r: r["start"]))
    found = team.search(start=datetime(2026, 6, 1, tzinfo=timezone.utc), end=datetime(2026, 8, 1, tzinfo=timezone.utc), event=True, expand=True)
    instances = sorted((c.decoded("dtstart").isoformat(), str(c.get("summary"))) for o in found for c in o.icalendar_instance.walk("VEVENT"))
    say(instances=[f"{start} {summary}" for start, summary in instances])
elif step == "delete":
    team = calendar("Team")
    team.event_by_uid("standup@example.com").delete()
    say(left=len(team.events()))
