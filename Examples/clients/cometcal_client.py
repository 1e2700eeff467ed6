#!/usr/bin/env python3
"""A small client for cometcald, the CometCal daemon (docs/daemon.md), on the standard library only.

As a module::

    from cometcal_client import Client, RPCError

    with Client() as client:                        # the daemon's default socket
        print(client.call("health")["status"])
        client.call("subscribe", topics=["changes"])
        client.call("intent.perform", intent="createEvent",
                    parameters={"title": "Picnic",
                                "startDate": "2026-06-13T12:00:00-07:00[America/Los_Angeles]"})
        print(client.next_notification(timeout=5))  # {"jsonrpc": "2.0", "method": "changed", ...}

As a command::

    cometcal_client.py [--socket PATH] METHOD [JSON-PARAMS]   # prints the result as JSON
    cometcal_client.py [--socket PATH] say "TEXT" ["TEXT"...]  # one conversation, a reply per turn
    cometcal_client.py [--socket PATH] watch [--count N]      # prints each change notification

Exit codes: 0 done, 1 the daemon answered with a JSON-RPC error, 64 bad usage, 69 no daemon to
talk to (or it hung up), 75 no answer in time.
"""

import argparse
import collections
import json
import os
import socket
import sys
import time

__all__ = ["Client", "RPCError", "ProtocolError", "FrameReader", "default_socket_path", "frame"]

EX_RPC_ERROR = 1
EX_USAGE = 64
EX_UNAVAILABLE = 69
EX_TEMPFAIL = 75


def default_socket_path(environ=None):
    """Where cometcald listens unless told: as the daemon finds it (Sources/CometDaemon/DaemonPaths.swift)."""
    environ = os.environ if environ is None else environ
    runtime = environ.get("XDG_RUNTIME_DIR")
    if runtime:
        return os.path.join(runtime, "cometcal", "cometcald.sock")
    data = environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(data, "cometcal", "cometcald.sock")


class RPCError(Exception):
    """An error the daemon answered with: the JSON-RPC code, message and data."""

    def __init__(self, code, message, data=None):
        super().__init__(f"{message} (JSON-RPC error {code})")
        self.code = code
        self.message = message
        self.data = data


class ProtocolError(Exception):
    """The daemon sent something that is not a Content-Length frame of JSON."""


def frame(message):
    """One message as a frame: the header, an empty line, the UTF-8 JSON body."""
    body = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class FrameReader:
    """Splits a byte stream into frame bodies, whatever pieces the bytes arrive in: half a
    header, a frame across several reads, several frames in one read."""

    def __init__(self):
        self._buffer = bytearray()
        self._length = None  # the body length once the header is read

    def feed(self, data):
        self._buffer += data

    def messages(self):
        """The messages complete so far, decoded; what is left waits for more bytes."""
        while True:
            if self._length is None:
                while self._buffer.startswith(b"\r\n"):  # blank lines between frames
                    del self._buffer[:2]
                end = self._buffer.find(b"\r\n\r\n")
                if end < 0:
                    return
                header = bytes(self._buffer[:end]).decode("utf-8", "replace")
                del self._buffer[:end + 4]
                self._length = self._content_length(header)
            if len(self._buffer) < self._length:
                return
            body = bytes(self._buffer[:self._length])
            del self._buffer[:self._length]
            self._length = None
            try:
                yield json.loads(body.decode("utf-8"))
            except ValueError as error:
                raise ProtocolError(f"a frame's body is not JSON: {error}") from None

    @staticmethod
    def _content_length(header):
        for line in header.split("\r\n"):
            name, colon, value = line.partition(":")
            if colon and name.strip().lower() == "content-length" and value.strip().isdigit():
                return int(value.strip())
        raise ProtocolError(f"a frame's header has no Content-Length: {header[:80]!r}")


class Client:
    """One connection to cometcald. Requests go one at a time and wait for their answer;
    notifications that arrive meanwhile are kept, in order, for `next_notification`."""

    def __init__(self, path=None, timeout=30.0):
        self.path = path or default_socket_path()
        self.timeout = timeout
        self.notifications = collections.deque()
        self._reader = FrameReader()
        self._messages = collections.deque()
        self._next_id = 1
        self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._socket.connect(self.path)
        except OSError:
            self._socket.close()
            raise

    def close(self):
        self._socket.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def call(self, method, /, **params):
        """Calls METHOD with named parameters; its result, or RPCError with the daemon's code and message."""
        request_id = self._next_id
        self._next_id += 1
        request = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params:
            request["params"] = params
        self._socket.sendall(frame(request))
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        while True:
            message = self._receive(deadline)
            if message is None:
                raise TimeoutError(f"no answer to '{method}' within {self.timeout} s")
            if "method" in message and "id" not in message:
                self.notifications.append(message)
                continue
            # id null: the daemon could not tell which request it answers (a frame it could not
            # read, too large, too slow); one request is in flight, so it is this one.
            if message.get("id") not in (request_id, None):
                continue
            if "error" in message:
                error = message["error"]
                raise RPCError(error.get("code"), error.get("message", ""), error.get("data"))
            return message.get("result")

    def next_notification(self, timeout=None):
        """The next notification (a dict with "method" and "params"), first those kept while
        waiting for answers; None when TIMEOUT seconds pass without one (None: wait for ever)."""
        if self.notifications:
            return self.notifications.popleft()
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            message = self._receive(deadline)
            if message is None:
                return None
            if "method" in message and "id" not in message:
                return message

    def _receive(self, deadline):
        """The next message from the daemon, or None at the deadline."""
        while not self._messages:
            if deadline is None:
                self._socket.settimeout(None)
            else:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self._socket.settimeout(remaining)
            try:
                data = self._socket.recv(65536)
            except socket.timeout:
                return None
            if not data:
                raise ConnectionError("the daemon closed the connection")
            self._reader.feed(data)
            self._messages.extend(self._reader.messages())
        return self._messages.popleft()


# The command line.

class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    """argparse, with bad usage exiting 64 like cometcal's."""

    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(EX_USAGE, f"{self.prog}: error: {message}\n")


def _print_json(value):
    print(json.dumps(value, indent=2, ensure_ascii=False), flush=True)


def _method_params(method, arguments):
    if len(arguments) > 1:
        raise _UsageError(f"'{method}' takes one JSON object of parameters, not {len(arguments)} arguments")
    if not arguments:
        return {}
    try:
        params = json.loads(arguments[0])
    except ValueError as error:
        raise _UsageError(f"the parameters are not JSON: {error}") from None
    if not isinstance(params, dict):
        raise _UsageError("the parameters must be a JSON object (cometcald takes named parameters)")
    return params


def _say_parser():
    parser = _Parser(prog="cometcal_client.py say", description="Hold one conversation: each TEXT is a turn, and each reply is printed.")
    parser.add_argument("texts", metavar="TEXT", nargs="+", help="what you say, one turn each")
    parser.add_argument("--now", help="the conversation's clock, e.g. 2026-06-08T09:00:00-07:00 (default: now)")
    parser.add_argument("--time-zone", help="the conversation's IANA zone (default: the daemon's TZ)")
    parser.add_argument("--json", action="store_true", help="print each turn's whole result as one JSON line")
    return parser


def _watch_parser():
    parser = _Parser(prog="cometcal_client.py watch", description="Subscribe and print each notification as one JSON line.")
    parser.add_argument("--count", type=int, metavar="N", help="stop after N notifications")
    parser.add_argument("--topics", default="changes", help="comma-separated: changes, alarms (default: changes)")
    parser.add_argument("--wait", type=float, metavar="SECONDS", help="give up (exit 75) when no notification comes for this long")
    return parser


def _say(client, options):
    opening = {key: value for key, value in (("now", options.now), ("timeZone", options.time_zone)) if value}
    session = client.call("conversation.open", **opening)["session"]
    try:
        for text in options.texts:
            turn = client.call("conversation.say", session=session, text=text)
            if options.json:
                print(json.dumps(turn, ensure_ascii=False), flush=True)
            else:
                print(f"> {text}\n{turn['reply']}\n", flush=True)
    finally:
        try:
            client.call("conversation.close", session=session)
        except (RPCError, OSError):
            pass  # the error that stopped the dialog is the one to tell
    return 0


def _watch(client, options):
    topics = client.call("subscribe", topics=[topic.strip() for topic in options.topics.split(",") if topic.strip()])["topics"]
    print(f"watching {', '.join(topics)} on {client.path}", file=sys.stderr, flush=True)
    seen = 0
    while options.count is None or seen < options.count:
        message = client.next_notification(timeout=options.wait)
        if message is None:
            print(f"error: no notification within {options.wait} s", file=sys.stderr)
            return EX_TEMPFAIL
        print(json.dumps({"method": message["method"], "params": message.get("params")}, ensure_ascii=False), flush=True)
        seen += 1
    return 0


def main(argv=None):
    parser = _Parser(
        prog="cometcal_client.py",
        description="Talk to cometcald: call a method, hold a conversation (say) or watch changes (watch).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="""examples:
  cometcal_client.py health
  cometcal_client.py agenda '{"from": "2026-06-08T00:00:00Z", "to": "2026-06-15T00:00:00Z"}'
  cometcal_client.py say "who's coming to my picnic?" "move it to noon" "yes"
  cometcal_client.py watch --count 1
(say -h and watch -h tell their options)""")
    parser.add_argument("--socket", metavar="PATH", help=f"the daemon's socket (default: {default_socket_path()})")
    parser.add_argument("--timeout", type=float, default=30.0, metavar="SECONDS", help="how long to wait for each answer (default 30)")
    parser.add_argument("method", metavar="METHOD", help="a method of docs/daemon.md, or say, or watch")
    parser.add_argument("arguments", metavar="ARGS", nargs=argparse.REMAINDER, help="JSON-PARAMS for a method; the texts and options of say and watch")
    options = parser.parse_args(argv)

    # Everything is checked before connecting.
    try:
        if options.method == "say":
            command = _say_parser().parse_args(options.arguments)
            run = lambda client: _say(client, command)
        elif options.method == "watch":
            command = _watch_parser().parse_args(options.arguments)
            if command.count is not None and command.count < 1:
                raise _UsageError("--count takes a number, 1 or more")
            run = lambda client: _watch(client, command)
        else:
            params = _method_params(options.method, options.arguments)
            run = lambda client: _print_json(client.call(options.method, **params))
    except _UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return EX_USAGE

    path = options.socket or default_socket_path()
    try:
        client = Client(path, timeout=options.timeout)
    except OSError as error:
        print(f"error: cannot connect to cometcald at {path}: {error.strerror or error}; is it running? (--socket PATH)", file=sys.stderr)
        return EX_UNAVAILABLE
    try:
        with client:
            return run(client) or 0
    except RPCError as error:
        print(f"error {error.code}: {error.message}", file=sys.stderr)
        return EX_RPC_ERROR
    except TimeoutError as error:
        print(f"error: {error}", file=sys.stderr)
        return EX_TEMPFAIL
    except (ConnectionError, ProtocolError) as error:
        print(f"error: {error}", file=sys.stderr)
        return EX_UNAVAILABLE
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
