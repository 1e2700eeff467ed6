#!/usr/bin/env bash
# Asks cometcald for its health over its socket with nothing but bash, printf and socat, and
# prints the answer's JSON body: one request framed as in docs/daemon.md, one frame read back.
#
#   Examples/clients/health.sh [SOCKET]
#
# SOCKET defaults to the daemon's own default: $XDG_RUNTIME_DIR/cometcal/cometcald.sock, else
# ${XDG_DATA_HOME:-~/.local/share}/cometcal/cometcald.sock. Exits 0 when the daemon answered
# with a result, 1 when it answered with an error, 69 when it cannot be reached or gave no
# answer within 10 seconds.
#
# The request stays open until the answer has been read (socat runs as a coprocess): a client
# that closes its side right after sending may not get its answer from the daemon.
set -euo pipefail
export LC_ALL=C  # lengths and reads in bytes

if ! command -v socat >/dev/null 2>&1; then
    echo "health.sh: socat is not installed; on Debian or Ubuntu: sudo apt-get install socat" >&2
    exit 69
fi

if [ -n "${XDG_RUNTIME_DIR:-}" ]; then
    default_socket="$XDG_RUNTIME_DIR/cometcal/cometcald.sock"
else
    default_socket="${XDG_DATA_HOME:-$HOME/.local/share}/cometcal/cometcald.sock"
fi
socket="${1:-$default_socket}"
if [ ! -S "$socket" ]; then
    echo "health.sh: no socket at $socket; is cometcald running?" >&2
    exit 69
fi

body='{"jsonrpc": "2.0", "id": 1, "method": "health"}'
coproc daemon { exec socat - "UNIX-CONNECT:$socket"; }
in="${daemon[1]}"
out="${daemon[0]}"
pid="$daemon_PID"
printf 'Content-Length: %d\r\n\r\n%s' "${#body}" "$body" >&"$in"

# The answer's header: lines up to an empty one; only Content-Length matters.
length=""
while IFS= read -r -t 10 line <&"$out"; do
    line="${line%$'\r'}"
    [ -z "$line" ] && break
    case "${line,,}" in
        content-length:*) length="${line#*:}"; length="${length// /}" ;;
    esac
done
if [ -z "$length" ] || ! IFS= read -r -t 10 -N "$length" answer <&"$out"; then
    echo "health.sh: no answer from $socket" >&2
    exit 69
fi
exec {in}>&-  # done sending: socat passes the end on, the daemon closes, socat exits
wait "$pid" 2>/dev/null || true

printf '%s\n' "$answer"
case "$answer" in
    *'"error"'*) exit 1 ;;
esac
