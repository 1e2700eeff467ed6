"""Runs caldav-server-tester (python-caldav's compatibility checker) against a CometCal server
and compares what it observed with the committed baseline: a feature whose support got worse,
or a feature now observed as broken or ungraceful that was not before, is a regression.
Prints one JSON object: the counts and the regressions. Exit 0 either way; the test decides."""
import ast
import json
import subprocess
import sys

url, baseline_path = sys.argv[1], sys.argv[2]
output = subprocess.run(
    ["caldav-server-tester", "--caldav-url", url, "--caldav-user", "alice", "--caldav-pass", "secret", "--format", "hints"],
    capture_output=True, text=True, timeout=600)
if output.returncode != 0:
    print(json.dumps({"error": output.stderr[-2000:]}))
    sys.exit(0)
observed = ast.literal_eval(output.stdout[output.stdout.index("{"):])
RANK = {"full": 5, "quirk": 4, "fragile": 3, "unsupported": 2, "unknown": 2, "ungraceful": 1, "broken": 0}


def support(value):
    return value.get("support", "full") if isinstance(value, dict) and "value" not in value else "value"


summary = {}
for feature, value in observed.items():
    level = support(value)
    summary[level] = summary.get(level, 0) + 1
regressions = []
if len(sys.argv) > 3 and sys.argv[3] == "--write":
    with open(baseline_path, "w") as handle:
        json.dump({k: support(v) for k, v in sorted(observed.items())}, handle, indent=1, sort_keys=True)
        handle.write("\n")
else:
    baseline = json.load(open(baseline_path))
    for feature, level in sorted(baseline.items()):
        now = support(observed[feature]) if feature in observed else "unknown"
        if level in RANK and now in RANK and RANK[now] < RANK[level]:
            regressions.append(f"{feature}: {level} -> {now}")
    for feature, value in sorted(observed.items()):
        if feature not in baseline and support(value) in ("broken", "ungraceful"):
            regressions.append(f"{feature}: new, {support(value)}")
observed_count = sum(n for level, n in summary.items() if level not in ("unknown", "value"))
print(json.dumps({"summary": summary, "full": summary.get("full", 0), "observed": observed_count, "regressions": regressions}))
