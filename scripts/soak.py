#!/usr/bin/env python3
"""Load and soak test of cometcald (issue 12): CLIENTS clients mixing reads and writes for
SECONDS against a fresh store. At the end every acknowledged write must be in the store exactly
once, no request may have failed, the daemon's RSS may grow at most 10% after the warm-up, and
its open file descriptors must be back where they started. Prints the figures; exits 1 if any
check fails. Run through scripts/soak."""
import argparse, json, os, sys, tempfile, threading, time, subprocess, random, shutil

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Examples", "clients"))
from cometcal_client import Client, RPCError  # noqa: E402


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=300)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--warmup", type=float, default=None, help="seconds before the RSS baseline (default: half the run)")
    parser.add_argument("--bin", required=True, help="folder holding cometcald")
    parser.add_argument("--schemas", required=True)
    parser.add_argument("--seed", type=int, default=20000, help="events in the store before the clients start")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--db", default=None,
                        help="the store's location: a postgresql:// address of an empty database (scripts/soak --store postgresql "
                             "starts a private cluster and gives it); default a new store file")
    options = parser.parse_args()
    # The first half: the caches (bounded, per connection) fill as the clients read more of the
    # store; a leak would show as growth over the second half.
    warmup = options.warmup if options.warmup is not None else options.seconds / 2

    work = tempfile.mkdtemp(prefix="cometcal-soak-")
    os.chmod(work, 0o700)
    socket_path = os.path.join(work, "run", "d.sock")
    store = options.db or os.path.join(work, "cal.sqlite")
    daemon = subprocess.Popen([os.path.join(options.bin, "cometcald"), "--db", store, "--socket", socket_path, "--schemas", options.schemas],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + 30
    while True:
        try:
            Client(socket_path).close()
            break
        except OSError:
            if time.time() > deadline or daemon.poll() is not None:
                print("soak: the daemon did not start:", daemon.stderr.read().decode(), file=sys.stderr)
                return 1
            time.sleep(0.05)
    # A store of some size from the start (--seed events over a year), so the daemon's caches
    # (bounded: pages and records per connection) fill during the warm-up, not during the
    # measurement, and growth after it means something.
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//cometcal soak//EN", "X-WR-CALNAME:Soak"]
    for index in range(options.seed):
        day = 1 + index % 28
        month = 1 + (index // 28) % 12
        lines += ["BEGIN:VEVENT", f"UID:seed-{index}@soak", "DTSTAMP:20260101T000000Z",
                  f"DTSTART:2026{month:02d}{day:02d}T{8 + index % 10:02d}0000Z", f"SUMMARY:seed {index}",
                  f"DESCRIPTION:seeded event {index} with a note long enough to be a real one", "END:VEVENT"]
    lines.append("END:VCALENDAR")
    with Client(socket_path, timeout=300) as setup:
        setup.call("ical.import", content="\r\n".join(lines) + "\r\n", name="seed.ics")
    fds_start = fds(daemon.pid)

    acknowledged = [[] for _ in range(options.clients)]
    deleted = [[] for _ in range(options.clients)]
    errors = []
    counts = {"reads": 0, "writes": 0, "updates": 0, "deletes": 0}
    lock = threading.Lock()
    stop = time.time() + options.seconds

    def worker(number):
        rng = random.Random(number)
        mine = acknowledged[number]
        try:
            client = Client(socket_path, timeout=60)
        except OSError as error:
            errors.append(f"client {number}: connect: {error}")
            return
        sequence = 0
        while time.time() < stop:
            roll = rng.random()
            try:
                if roll < 0.35:
                    title = f"soak {number} {sequence}"
                    sequence += 1
                    day = 1 + sequence % 28
                    result = client.call("intent.perform", intent="createEvent",
                                         parameters={"title": title, "startDate": f"2026-06-{day:02d}T{8 + sequence % 10:02d}:00:00Z"})
                    if result.get("outcome") != "done":
                        errors.append(f"client {number}: create: {result.get('outcome')}")
                        continue
                    mine.append(title)
                    with lock: counts["writes"] += 1
                    # Each client keeps its last 50: the store stays the same size, so memory
                    # that grows is memory kept, not data added.
                    if len(mine) > 50:
                        oldest = mine[0]
                        result = client.call("intent.perform", intent="deleteEvent", parameters={"event": oldest}, confirmed=True)
                        if result.get("outcome") != "done":
                            errors.append(f"client {number}: delete {oldest}: {result.get('outcome')} {result.get('error')}")
                            continue
                        mine.pop(0)
                        deleted[number].append(oldest)
                        with lock: counts["deletes"] += 1
                elif roll < 0.45 and mine:
                    title = rng.choice(mine)
                    result = client.call("intent.perform", intent="updateEvent", parameters={"event": title, "note": f"touched {sequence}"}, confirmed=True)
                    if result.get("outcome") != "done":
                        errors.append(f"client {number}: update {title}: {result.get('outcome')} {result.get('error')}")
                        continue
                    with lock: counts["updates"] += 1
                else:
                    kind = rng.random()
                    if kind < 0.5:
                        client.call("intent.perform", intent="searchEvents",
                                    parameters={"from": "2026-06-01T00:00:00Z", "to": "2026-06-08T00:00:00Z"}, limit=20)
                    elif kind < 0.8:
                        client.call("entity.search", entity="Event", text=f"soak {rng.randrange(options.clients)}", limit=10)
                    else:
                        client.call("health")
                    with lock: counts["reads"] += 1
            except (RPCError, OSError, ValueError) as error:
                errors.append(f"client {number}: {type(error).__name__}: {error}")
        client.close()

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(options.clients)]
    started = time.time()
    for thread in threads:
        thread.start()
    samples = []
    baseline = None
    while any(thread.is_alive() for thread in threads):
        time.sleep(1)
        elapsed = time.time() - started
        rss = rss_kib(daemon.pid)
        samples.append((round(elapsed, 1), rss))
        if baseline is None and elapsed >= warmup:
            baseline = rss
    for thread in threads:
        thread.join()
    elapsed = time.time() - started
    time.sleep(1.0)
    fds_end = fds(daemon.pid)
    rss_end = rss_kib(daemon.pid)
    rss_peak = max(rss for _, rss in samples) if samples else rss_end
    if baseline is None:
        baseline = samples[0][1] if samples else rss_end

    # Every acknowledged write is there exactly once.
    expected = [title for titles in acknowledged for title in titles]
    with Client(socket_path, timeout=120) as check:
        found = []
        offset = 0
        while True:
            page = check.call("intent.perform", intent="searchEvents", parameters={}, limit=5000, offset=offset)
            entities = page.get("entities", [])
            found += [entity["title"] for entity in entities]
            if not page.get("truncated"):
                break
            offset += len(entities)
    missing = set(expected) - set(found)
    resurrected = set(title for titles in deleted for title in titles) & set(found)
    duplicated = len(found) - len(set(found))
    daemon.terminate()
    daemon.wait(timeout=30)
    shutil.rmtree(work, ignore_errors=True)

    growth = (rss_end - baseline) / baseline * 100 if baseline else 0.0
    figures = {
        "store": "postgresql" if store.startswith(("postgresql:", "postgres:")) else "sqlite",
        "seconds": round(elapsed, 1), "clients": options.clients,
        "requests": sum(counts.values()), "reads": counts["reads"],
        "writes": counts["writes"], "updates": counts["updates"], "deletes": counts["deletes"],
        "requestsPerSecond": round(sum(counts.values()) / elapsed, 1),
        "errors": len(errors), "missing": len(missing), "deletedButPresent": len(resurrected), "duplicated": duplicated, "stored": len(found), "seeded": options.seed,
        "rssStartMiB": round(samples[0][1] / 1024, 1) if samples else None, "rssAfterWarmupMiB": round(baseline / 1024, 1),
        "rssEndMiB": round(rss_end / 1024, 1), "rssPeakMiB": round(rss_peak / 1024, 1), "rssGrowthPercent": round(growth, 1),
        "fdsStart": fds_start, "fdsEnd": fds_end,
        "rssEvery30sMiB": [round(rss / 1024) for at, rss in samples if int(at) % 30 == 0][::1],
    }
    ok = not errors and not missing and not resurrected and duplicated == 0 and len(found) == len(expected) + options.seed and growth < 10 and fds_end <= fds_start
    if options.json:
        print(json.dumps({"ok": ok, **figures, "firstErrors": errors[:5]}, indent=2))
    else:
        for key, value in figures.items():
            print(f"{key:>18}  {value}")
        for error in errors[:5]:
            print("error:", error)
        print("soak:", "ok" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
