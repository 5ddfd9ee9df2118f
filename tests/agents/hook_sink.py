#!/usr/bin/env python3
"""hook_sink.py - a stand-in for agtmuxd's socket that records what `agtmux hook` sends.

The lab's hooks variant (harness.py record --hooks) installs the agent's hooks with the
real `agtmux setup <agent>` and points AGTMUX_SOCKET here. The real `agtmux hook`
then delivers every event as it would to agtmuxd: `POST /v1/events` with the event's
JSON. The sink answers `GET /v1/health` and accepts every event (HTTP 200), and keeps
each with the lab's monotonic clock (time.monotonic(), CLOCK_MONOTONIC, the clock of
every other lab log) at the moment it arrived. Anything else is answered 404.

    sink = HookSink(path); sink.start(); ...; sink.stop(); sink.events  # [(mono, dict)]

Standard library only.
"""
import json
import os
import socketserver
import threading
import time
from http.server import BaseHTTPRequestHandler


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def _answer(self, status, obj):
        body = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):  # noqa: N802 (http.server's naming)
        if self.path.split("?")[0] == "/v1/health":
            self._answer(200, {"ok": True, "lab": "hook_sink"})
        else:
            self._answer(404, {"error": {"code": "not_found", "message": self.path}})

    def do_POST(self):  # noqa: N802
        mono = time.monotonic()
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n > 0 else b""
        if self.path.split("?")[0] != "/v1/events":
            self._answer(404, {"error": {"code": "not_found", "message": self.path}})
            return
        try:
            ev = json.loads(raw.decode("utf-8"))
        except ValueError as e:
            self.server.sink.errors.append("bad JSON (%s): %r" % (e, raw[:200]))
            self._answer(400, {"error": {"code": "payload_invalid", "message": str(e)}})
            return
        with self.server.sink.lock:
            self.server.sink.events.append((mono, ev))
        self._answer(200, {"accepted": 1})

    def log_message(self, fmt, *args):  # quiet
        pass


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


class HookSink:
    def __init__(self, path):
        self.path = path
        self.events = []  # (mono, event dict), in arrival order
        self.errors = []
        self.lock = threading.Lock()
        self._srv = None
        self._thread = None

    def start(self):
        if os.path.exists(self.path):
            os.unlink(self.path)
        self._srv = _Server(self.path, _Handler)
        self._srv.sink = self
        self._thread = threading.Thread(target=self._srv.serve_forever, daemon=True)
        self._thread.start()

    def stop(self):
        if self._srv:
            self._srv.shutdown()
            self._srv.server_close()
            self._srv = None
        if os.path.exists(self.path):
            os.unlink(self.path)
