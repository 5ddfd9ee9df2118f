#!/usr/bin/env python3
"""model_server.py - a scripted model server on 127.0.0.1 for the agent recording lab.

Python 3 standard library only (http.server.ThreadingHTTPServer).

It speaks, with server-sent events:
  * Anthropic Messages API  POST /v1/messages[?beta=true]           (Claude Code)
  * OpenAI Responses API    POST /v1/responses                      (Codex CLI)
  * Gemini API              POST /v1beta/models/<m>:streamGenerateContent?alt=sse
                            POST /v1beta/models/<m>:generateContent  (Gemini CLI)

What the "model" answers comes from a scenario file (JSON), see README.md. In short:

  {"turns": [                       # one entry per user prompt, in order
     [ITEM, ITEM, ...],             # main-conversation responses of that turn, in order
     ...],
   "side_text": "..."}              # optional answer to side requests (title etc.)

  ITEM = {"text": "...", "chunk": 16, "delay": 0.05, "first_delay": 0.2}
       | {"tool": {"name": "Bash", "input": {...}}, "text": "optional preface"}
       | {"tool": {"name": "apply_patch", "custom_input": "*** Begin Patch ..."}}  (codex)
       | {"error": {"status": 529, "repeat": 1, "message": "Overloaded"}}
         ("body": the whole error body instead of the API's format; "headers": extra
         response headers, e.g. a rate-limit reset time)

A request is "main" when it belongs to the conversation (Anthropic/OpenAI: it carries
tools, other than Codex 0.150.0's lone `skills` tool of its title request; Gemini:
streamGenerateContent), else "side" (title, classifier, ...) and is
answered at once. A main request whose last input is a new user message starts the next
turn; one whose last input is a tool result (the CLI's follow-up after a tool ran, was
denied or answered) takes the next item of the current turn; one identical to the
previous main request is a retry and also takes the next item (an error item with
"repeat": n answers n such requests). When a turn has no items left the answer is a
short final text ("Done.").

Every request, response start and response end is logged (JSONL, --log) with
"mono" (time.monotonic(), CLOCK_MONOTONIC) and "wall" (time.time()) timestamps.
"""
import argparse
import hashlib
import json
import os
import re
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlparse, parse_qs


def now():
    return time.monotonic(), time.time()


class Log:
    def __init__(self, path):
        self.lock = threading.Lock()
        self.f = open(path, "a", encoding="utf-8") if path else None

    def write(self, ev, **kw):
        mono, wall = now()
        rec = {"ev": ev, "mono": round(mono, 6), "wall": round(wall, 6)}
        rec.update(kw)
        line = json.dumps(rec, ensure_ascii=False)
        with self.lock:
            if self.f:
                self.f.write(line + "\n")
                self.f.flush()
            else:
                print(line, file=sys.stderr, flush=True)
        return rec


class Script:
    """The scenario's model answers and the position in them."""

    def __init__(self, scenario):
        self.turns = scenario.get("turns", [])
        self.side_text = scenario.get("side_text")
        self.default_text = scenario.get("default_text", "Done.")
        self.lock = threading.Lock()
        self.turn = -1          # index of the current turn
        self.pos = 0            # next item index in the current turn
        self.repeat_left = 0    # remaining repeats of the current error item
        self.last_fp = None
        self.last_error = False  # the last main request got an error item
        self.last_ask = None     # (message count, last text, tool result) of that request

    def next_item(self, fingerprint, new_prompt, ask=None):
        """Returns (turn, item_index, item, how) for a main request. A retry is a
        request identical to the previous one, or, after an error, one that asks the
        same (same messages count, last text and tool result): Claude Code 2.1.330 tries
        a rejected request again with another tool list."""
        with self.lock:
            retry = fingerprint == self.last_fp or (
                self.last_error and ask is not None and ask == self.last_ask)
            self.last_fp = fingerprint
            self.last_ask = ask
            if new_prompt and not retry:
                self.turn += 1
                self.pos = 0
                self.repeat_left = 0
                how = "new_prompt"
            else:
                how = "retry" if retry else "followup"
            items = self.turns[self.turn] if 0 <= self.turn < len(self.turns) else []
            # an error item answers "repeat" consecutive requests
            self.last_error = False
            if self.repeat_left > 0:
                self.repeat_left -= 1
                idx = self.pos - 1
                self.last_error = True
                return self.turn, idx, items[idx], how
            if self.pos < len(items):
                idx = self.pos
                item = items[idx]
                self.pos += 1
                if "error" in item:
                    self.repeat_left = int(item["error"].get("repeat", 1)) - 1
                    self.last_error = True
                return self.turn, idx, item, how
            return self.turn, None, {"text": self.default_text, "delay": 0.02}, how


def chunks_of(text, n):
    n = max(1, int(n))
    return [text[i:i + n] for i in range(0, len(text), n)] or [""]


def fp(obj):
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()[:16]


def excerpt(s, n=200):
    s = s if isinstance(s, str) else json.dumps(s, ensure_ascii=False)
    return s if len(s) <= n else s[:n] + "…"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "agtmux-lab-model/1"
    counter = 0
    counter_lock = threading.Lock()

    # ---- plumbing -------------------------------------------------------------------
    def log_message(self, fmt, *args):  # silence the default stderr access log
        pass

    def new_id(self):
        with Handler.counter_lock:
            Handler.counter += 1
            return Handler.counter

    def read_body(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        if self.headers.get("Content-Encoding", "") in ("gzip",):
            import gzip
            raw = gzip.decompress(raw)
        elif self.headers.get("Content-Encoding", "") == "zstd":
            return raw, None
        try:
            return raw, json.loads(raw.decode("utf-8")) if raw else {}
        except Exception:
            return raw, None

    def start_stream(self, rid, ctype="text/event-stream", status=200):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("request-id", "req_lab_%d" % rid)
        self.send_header("x-request-id", "req_lab_%d" % rid)
        self.end_headers()

    def write_chunk(self, data):
        if isinstance(data, str):
            data = data.encode("utf-8")
        if not data:
            return
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def end_stream(self):
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def send_json(self, rid, status, obj, headers=None):
        body = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("request-id", "req_lab_%d" % rid)
        self.send_header("x-request-id", "req_lab_%d" % rid)
        headers = dict(headers or {})
        if status in (429, 529, 503):
            headers.setdefault("retry-after", "1")
        for k, v in headers.items():
            self.send_header(k, str(v))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    # ---- dispatch -------------------------------------------------------------------
    def do_GET(self):
        rid = self.new_id()
        u = urlparse(self.path)
        self.server.log.write("request", id=rid, method="GET", path=self.path, kind="other")
        if u.path.rstrip("/").endswith("/models"):
            obj = {"object": "list", "data": [], "models": []}
            self.send_json(rid, 200, obj)
            self.server.log.write("response_end", id=rid, status=200, kind="other")
            return
        self.send_json(rid, 404, {"error": {"message": "not found: " + u.path}})
        self.server.log.write("response_end", id=rid, status=404, kind="other")

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        rid = self.new_id()
        raw, body = self.read_body()
        u = urlparse(self.path)
        path = u.path
        if self.server.body_log is not None:
            with self.server.log.lock:
                self.server.body_log.write(json.dumps({"id": rid, "path": self.path, "body": body if body is not None else raw.decode("utf-8", "replace")}, ensure_ascii=False) + "\n")
                self.server.body_log.flush()
        try:
            if path.endswith("/messages/count_tokens"):
                self.server.log.write("request", id=rid, method="POST", path=self.path, proto="anthropic", kind="other")
                self.send_json(rid, 200, {"input_tokens": 100})
                self.server.log.write("response_end", id=rid, status=200, kind="other")
            elif path.endswith("/messages"):
                self.anthropic(rid, body or {})
            elif path.endswith("/responses"):
                self.openai(rid, body or {})
            elif ":streamGenerateContent" in path or ":generateContent" in path:
                self.gemini(rid, body or {}, stream=":streamGenerateContent" in path)
            elif ":countTokens" in path:
                self.server.log.write("request", id=rid, method="POST", path=self.path, proto="gemini", kind="other")
                self.send_json(rid, 200, {"totalTokens": 100})
                self.server.log.write("response_end", id=rid, status=200, kind="other")
            else:
                self.server.log.write("request", id=rid, method="POST", path=self.path, kind="other")
                self.send_json(rid, 404, {"error": {"message": "not found: " + path}})
                self.server.log.write("response_end", id=rid, status=404, kind="other")
        except (BrokenPipeError, ConnectionResetError) as e:
            self.server.log.write("client_disconnect", id=rid, error=type(e).__name__)
            self.close_connection = True

    # ---- common main-request handling --------------------------------------------------
    def pick(self, rid, proto, body, new_prompt, fingerprint, summary):
        ask = (summary.get("n_messages"), summary.get("last_text"), summary.get("tool_result"))
        turn, idx, item, how = self.server.script.next_item(fingerprint, new_prompt, ask)
        kind = "error" if "error" in item else ("tool" if "tool" in item else "text")
        self.server.log.write("request", id=rid, method="POST", path=self.path, proto=proto,
                              kind="main", how=how, turn=turn, item=idx, item_kind=kind,
                              **summary)
        return turn, idx, item, kind

    def send_error_item(self, rid, proto, item, turn, idx):
        err = item["error"]
        status = int(err.get("status", 500))
        msg = err.get("message", "Lab scripted error %d" % status)
        if proto == "anthropic":
            etype = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
                     404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error",
                     500: "api_error", 529: "overloaded_error"}.get(status, "api_error")
            obj = {"type": "error", "error": {"type": etype, "message": msg}}
        elif proto == "openai":
            obj = {"error": {"message": msg, "type": "invalid_request_error" if status < 500 else "server_error",
                             "param": None, "code": err.get("code")}}
        else:
            st = {400: "INVALID_ARGUMENT", 403: "PERMISSION_DENIED", 404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED",
                  500: "INTERNAL", 503: "UNAVAILABLE"}.get(status, "UNKNOWN")
            obj = {"error": {"code": status, "message": msg, "status": st}}
        if "body" in err:  # the vendor's own error body (a usage-limit error, ...)
            obj = err["body"]
        self.server.log.write("response_start", id=rid, status=status, kind="error", turn=turn, item=idx)
        self.send_json(rid, status, obj, err.get("headers"))
        self.server.log.write("response_end", id=rid, status=status, kind="error", turn=turn, item=idx)

    # ---- Anthropic Messages ----------------------------------------------------------------
    def anthropic(self, rid, body):
        model = body.get("model", "claude-lab")
        tools = body.get("tools") or []
        msgs = body.get("messages") or []
        stream = bool(body.get("stream"))
        # Claude Code appends role "system" messages after the user's; look at the last user one
        users = [m for m in msgs if isinstance(m, dict) and m.get("role") == "user"]
        last = users[-1] if users else {}
        content = last.get("content")
        is_tool_result = isinstance(content, list) and any(
            isinstance(b, dict) and b.get("type") == "tool_result" for b in content)
        last_text = ""
        if isinstance(content, str):
            last_text = content
        elif isinstance(content, list):
            texts = [b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"]
            plain = [t for t in texts if not t.lstrip().startswith("<system-reminder>")]
            last_text = (plain or texts or [""])[-1]
        summary = {"model": model, "n_messages": len(msgs), "n_tools": len(tools), "stream": stream,
                   "last_role": (msgs[-1].get("role") if msgs and isinstance(msgs[-1], dict) else None), "last_text": excerpt(last_text),
                   "tool_result": is_tool_result}
        if is_tool_result:
            summary["tool_results"] = [excerpt(b.get("content", ""), 300) for b in content
                                       if isinstance(b, dict) and b.get("type") == "tool_result"]
            summary["tool_result_is_error"] = any(b.get("is_error") for b in content
                                                  if isinstance(b, dict) and b.get("type") == "tool_result")
        if not tools:
            text = self.side_answer_anthropic(body)
            self.server.log.write("request", id=rid, method="POST", path=self.path, proto="anthropic",
                                  kind="side", side_answer=excerpt(text), system=excerpt(self.system_text(body), 160), **summary)
            self.anthropic_reply(rid, model, stream, {"text": text, "delay": 0, "chunk": 1000}, None, None, side=True)
            return
        turn, idx, item, kind = self.pick(rid, "anthropic", body, not is_tool_result,
                                          fp(msgs), summary)
        if kind == "error":
            self.send_error_item(rid, "anthropic", item, turn, idx)
            return
        self.anthropic_reply(rid, model, stream, item, turn, idx)

    @staticmethod
    def system_text(body):
        s = body.get("system")
        if isinstance(s, list):
            return " ".join(b.get("text", "") for b in s if isinstance(b, dict))
        return s or ""

    def side_answer_anthropic(self, body):
        if self.server.script.side_text is not None:
            return self.server.script.side_text
        sys_t = self.system_text(body).lower()
        if "title" in sys_t and "json" in sys_t:
            return '{"title": "Lab session"}'
        if "title" in sys_t:
            return "Lab session"
        return "OK"

    def anthropic_reply(self, rid, model, stream, item, turn, idx, side=False):
        msg_id = "msg_lab_%d" % rid
        blocks = []
        if item.get("text") is not None:
            blocks.append(("text", item["text"]))
        if "tool" in item:
            blocks.append(("tool", item["tool"]))
        stop = "tool_use" if "tool" in item else "end_turn"
        kind = "side" if side else ("tool" if "tool" in item else "text")
        if not stream:
            content = []
            for bt, b in blocks:
                if bt == "text":
                    content.append({"type": "text", "text": b})
                else:
                    content.append({"type": "tool_use", "id": "toolu_lab_%d" % rid, "name": b["name"],
                                    "input": b.get("input", {})})
            self.server.log.write("response_start", id=rid, status=200, kind=kind, turn=turn, item=idx)
            self.send_json(rid, 200, {"id": msg_id, "type": "message", "role": "assistant", "model": model,
                                      "content": content, "stop_reason": stop, "stop_sequence": None,
                                      "usage": {"input_tokens": 100, "output_tokens": 20}})
            self.server.log.write("response_end", id=rid, status=200, kind=kind, turn=turn, item=idx, stop=stop)
            return

        def ev(name, obj):
            self.write_chunk("event: %s\ndata: %s\n\n" % (name, json.dumps(obj, ensure_ascii=False)))

        self.start_stream(rid)
        self.server.log.write("response_start", id=rid, status=200, kind=kind, turn=turn, item=idx)
        ev("message_start", {"type": "message_start", "message": {
            "id": msg_id, "type": "message", "role": "assistant", "model": model, "content": [],
            "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 100, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
                      "output_tokens": 1}}})
        ev("ping", {"type": "ping"})
        time.sleep(float(item.get("first_delay", 0.1 if not side else 0)))
        out_tokens = 1
        for i, (bt, b) in enumerate(blocks):
            if bt == "text":
                ev("content_block_start", {"type": "content_block_start", "index": i,
                                           "content_block": {"type": "text", "text": ""}})
                for c in chunks_of(b, item.get("chunk", 16)):
                    ev("content_block_delta", {"type": "content_block_delta", "index": i,
                                               "delta": {"type": "text_delta", "text": c}})
                    out_tokens += 4
                    time.sleep(float(item.get("delay", 0.03)))
            else:
                ev("content_block_start", {"type": "content_block_start", "index": i,
                                           "content_block": {"type": "tool_use", "id": "toolu_lab_%d" % rid,
                                                             "name": b["name"], "input": {}}})
                js = json.dumps(b.get("input", {}), ensure_ascii=False)
                for c in chunks_of(js, 40):
                    ev("content_block_delta", {"type": "content_block_delta", "index": i,
                                               "delta": {"type": "input_json_delta", "partial_json": c}})
                    out_tokens += 10
                    time.sleep(0.01)
            ev("content_block_stop", {"type": "content_block_stop", "index": i})
        ev("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                             "usage": {"output_tokens": out_tokens}})
        ev("message_stop", {"type": "message_stop"})
        self.end_stream()
        self.server.log.write("response_end", id=rid, status=200, kind=kind, turn=turn, item=idx, stop=stop)

    # ---- OpenAI Responses ------------------------------------------------------------------
    def openai(self, rid, body):
        model = body.get("model", "gpt-lab")
        tools = body.get("tools") or []
        inp = body.get("input") or []
        if isinstance(inp, str):
            inp = [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": inp}]}]
        last = inp[-1] if inp else {}
        ltype = last.get("type") or ("message" if "role" in last else "")
        is_tool_result = ltype in ("function_call_output", "custom_tool_call_output", "local_shell_call_output",
                                   "tool_search_output", "mcp_tool_call_output")
        last_text = ""
        if ltype == "message":
            c = last.get("content")
            if isinstance(c, str):
                last_text = c
            elif isinstance(c, list):
                last_text = " ".join(p.get("text", "") for p in c if isinstance(p, dict))
        summary = {"model": model, "n_input": len(inp), "n_tools": len(tools), "stream": bool(body.get("stream")),
                   "last_type": ltype, "last_role": last.get("role"), "last_text": excerpt(last_text),
                   "tool_result": is_tool_result}
        if is_tool_result:
            summary["tool_results"] = [excerpt(x.get("output", ""), 300) for x in inp[-3:]
                                       if isinstance(x, dict) and x.get("type", "").endswith("_output")]
        # Codex 0.150.0 sends its task-title request with a lone `skills` tool and a JSON
        # schema output format ({"title": ...}); 0.160.0 and later send it without tools. A
        # request whose tools are only `skills` is no conversation request.
        side_tools = {"skills"}
        if not tools or all(isinstance(t, dict) and t.get("name") in side_tools for t in tools):
            text = self.server.script.side_text
            if text is None:
                instr = (body.get("instructions") or "").lower()
                if not tools:  # (unchanged for every CLI that sends side requests without tools)
                    text = '{"title": "Lab session"}' if ("title" in instr and "json" in instr) else "Lab session"
                else:  # 0.150.0's title request: answer its JSON schema
                    fmt = (body.get("text") or {}).get("format") or {}
                    props = ((fmt.get("schema") or {}).get("properties") or {}) if isinstance(fmt, dict) else {}
                    text = '{"title": "Lab session"}' if "title" in props else "Lab session"
            self.server.log.write("request", id=rid, method="POST", path=self.path, proto="openai", kind="side",
                                  side_answer=excerpt(text), instructions=excerpt(body.get("instructions") or "", 160),
                                  **summary)
            self.openai_reply(rid, model, {"text": text, "delay": 0, "chunk": 1000, "first_delay": 0},
                              None, None, side=True)
            return
        # the conversation without the instructions: a retry repeats it exactly
        turn, idx, item, kind = self.pick(rid, "openai", body, not is_tool_result and ltype == "message",
                                          fp(inp), summary)
        if kind == "error":
            self.send_error_item(rid, "openai", item, turn, idx)
            return
        self.openai_reply(rid, model, item, turn, idx)

    def openai_reply(self, rid, model, item, turn, idx, side=False):
        seq = [0]
        resp_id = "resp_lab_%d" % rid
        created = int(time.time())

        def ev(obj):
            obj["sequence_number"] = seq[0]
            seq[0] += 1
            self.write_chunk("event: %s\ndata: %s\n\n" % (obj["type"], json.dumps(obj, ensure_ascii=False)))

        def resp(status, output):
            r = {"id": resp_id, "object": "response", "created_at": created, "status": status, "model": model,
                 "output": output, "parallel_tool_calls": False, "tool_choice": "auto", "tools": []}
            if status == "completed":
                r["usage"] = {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 0},
                              "output_tokens": 20, "output_tokens_details": {"reasoning_tokens": 0},
                              "total_tokens": 120}
            return r

        kind = "side" if side else ("tool" if "tool" in item else "text")
        self.start_stream(rid)
        self.server.log.write("response_start", id=rid, status=200, kind=kind, turn=turn, item=idx)
        ev({"type": "response.created", "response": resp("in_progress", [])})
        ev({"type": "response.in_progress", "response": resp("in_progress", [])})
        time.sleep(float(item.get("first_delay", 0.1)))
        output = []
        oi = 0
        if item.get("text") is not None:
            mid = "msg_lab_%d_%d" % (rid, oi)
            ev({"type": "response.output_item.added", "output_index": oi,
                "item": {"id": mid, "type": "message", "status": "in_progress", "role": "assistant", "content": []}})
            ev({"type": "response.content_part.added", "item_id": mid, "output_index": oi, "content_index": 0,
                "part": {"type": "output_text", "text": "", "annotations": []}})
            for c in chunks_of(item["text"], item.get("chunk", 16)):
                ev({"type": "response.output_text.delta", "item_id": mid, "output_index": oi, "content_index": 0,
                    "delta": c, "logprobs": []})
                time.sleep(float(item.get("delay", 0.03)))
            part = {"type": "output_text", "text": item["text"], "annotations": []}
            ev({"type": "response.output_text.done", "item_id": mid, "output_index": oi, "content_index": 0,
                "text": item["text"], "logprobs": []})
            ev({"type": "response.content_part.done", "item_id": mid, "output_index": oi, "content_index": 0,
                "part": part})
            done = {"id": mid, "type": "message", "status": "completed", "role": "assistant", "content": [part]}
            ev({"type": "response.output_item.done", "output_index": oi, "item": done})
            output.append(done)
            oi += 1
        if "tool" in item:
            t = item["tool"]
            call_id = "call_lab_%d" % rid
            if "custom_input" in t:
                iid = "ctc_lab_%d" % rid
                added = {"id": iid, "type": "custom_tool_call", "status": "in_progress", "call_id": call_id,
                         "name": t["name"], "input": ""}
                ev({"type": "response.output_item.added", "output_index": oi, "item": added})
                for c in chunks_of(t["custom_input"], 40):
                    ev({"type": "response.custom_tool_call_input.delta", "item_id": iid, "output_index": oi,
                        "delta": c})
                    time.sleep(0.01)
                ev({"type": "response.custom_tool_call_input.done", "item_id": iid, "output_index": oi,
                    "input": t["custom_input"]})
                done = dict(added, status="completed", input=t["custom_input"])
            else:
                iid = "fc_lab_%d" % rid
                args = json.dumps(t.get("input", {}), ensure_ascii=False)
                added = {"id": iid, "type": "function_call", "status": "in_progress", "call_id": call_id,
                         "name": t["name"], "arguments": ""}
                ev({"type": "response.output_item.added", "output_index": oi, "item": added})
                for c in chunks_of(args, 40):
                    ev({"type": "response.function_call_arguments.delta", "item_id": iid, "output_index": oi,
                        "delta": c})
                    time.sleep(0.01)
                ev({"type": "response.function_call_arguments.done", "item_id": iid, "output_index": oi,
                    "arguments": args})
                done = dict(added, status="completed", arguments=args)
            ev({"type": "response.output_item.done", "output_index": oi, "item": done})
            output.append(done)
        ev({"type": "response.completed", "response": resp("completed", output)})
        self.end_stream()
        self.server.log.write("response_end", id=rid, status=200, kind=kind, turn=turn, item=idx,
                              stop="tool_call" if "tool" in item else "completed")

    # ---- Gemini ----------------------------------------------------------------------------
    def gemini(self, rid, body, stream):
        m = re.search(r"/models/([^:/]+):", self.path)
        model = m.group(1) if m else "gemini-lab"
        contents = body.get("contents") or []
        last = contents[-1] if contents else {}
        parts = last.get("parts") or []
        is_tool_result = any(isinstance(p, dict) and "functionResponse" in p for p in parts)
        last_text = " ".join(p.get("text", "") for p in parts if isinstance(p, dict) and "text" in p)
        summary = {"model": model, "n_contents": len(contents), "stream": stream, "last_role": last.get("role"),
                   "last_text": excerpt(last_text), "tool_result": is_tool_result}
        if is_tool_result:
            summary["tool_results"] = [excerpt(p["functionResponse"].get("response", {}), 300) for p in parts
                                       if isinstance(p, dict) and "functionResponse" in p]
        if not stream:
            text = self.server.script.side_text
            if text is None:
                text = json.dumps({"reasoning": "Simple request.", "model_choice": "flash",
                                   "next_speaker": "user", "complexity_reasoning": "Simple request.",
                                   "complexity_score": 1})
            sysi = body.get("systemInstruction") or body.get("system_instruction") or {}
            stext = " ".join(p.get("text", "") for p in (sysi.get("parts") or []) if isinstance(p, dict))
            self.server.log.write("request", id=rid, method="POST", path=self.path, proto="gemini", kind="side",
                                  side_answer=excerpt(text), system=excerpt(stext, 160), **summary)
            self.server.log.write("response_start", id=rid, status=200, kind="side")
            self.send_json(rid, 200, {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]},
                                                      "finishReason": "STOP", "index": 0}],
                                      "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 10,
                                                        "totalTokenCount": 110},
                                      "modelVersion": model})
            self.server.log.write("response_end", id=rid, status=200, kind="side")
            return
        turn, idx, item, kind = self.pick(rid, "gemini", body, not is_tool_result and last.get("role") == "user",
                                          fp(contents), summary)
        if kind == "error":
            self.send_error_item(rid, "gemini", item, turn, idx)
            return

        def ev(parts_, finish=None):
            cand = {"content": {"role": "model", "parts": parts_}, "index": 0}
            if finish:
                cand["finishReason"] = finish
            obj = {"candidates": [cand], "modelVersion": model, "responseId": "lab%d" % rid,
                   "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110}}
            self.write_chunk("data: %s\r\n\r\n" % json.dumps(obj, ensure_ascii=False))

        self.start_stream(rid)
        self.server.log.write("response_start", id=rid, status=200, kind=kind, turn=turn, item=idx)
        time.sleep(float(item.get("first_delay", 0.1)))
        if item.get("text") is not None:
            cs = chunks_of(item["text"], item.get("chunk", 16))
            for i, c in enumerate(cs):
                last_one = i == len(cs) - 1 and "tool" not in item
                ev([{"text": c}], "STOP" if last_one else None)
                if not last_one:
                    time.sleep(float(item.get("delay", 0.03)))
        if "tool" in item:
            t = item["tool"]
            ev([{"functionCall": {"name": t["name"], "args": t.get("input", {})}}], "STOP")
        self.end_stream()
        self.server.log.write("response_end", id=rid, status=200, kind=kind, turn=turn, item=idx,
                              stop="tool_call" if "tool" in item else "STOP")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scenario", required=True, help="scenario JSON (uses its 'turns' and 'side_text')")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file", help="write the chosen port here")
    ap.add_argument("--log", help="JSONL log of requests and responses (default: stderr)")
    ap.add_argument("--body-log", help="optional JSONL file with full request bodies (debugging; large)")
    a = ap.parse_args()
    with open(a.scenario, encoding="utf-8") as f:
        scenario = json.load(f)
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    srv.daemon_threads = True
    srv.log = Log(a.log)
    srv.body_log = open(a.body_log, "a", encoding="utf-8") if a.body_log else None
    srv.script = Script(scenario)
    port = srv.server_address[1]
    srv.log.write("server_start", port=port, pid=os.getpid(), scenario=scenario.get("name"))
    if a.port_file:
        with open(a.port_file + ".tmp", "w") as f:
            f.write("%d\n" % port)
        os.replace(a.port_file + ".tmp", a.port_file)
    print(port, flush=True)
    try:
        srv.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        srv.log.write("server_stop")


if __name__ == "__main__":
    import signal
    signal.signal(signal.SIGTERM, lambda s, f: (_ for _ in ()).throw(KeyboardInterrupt()))
    main()
