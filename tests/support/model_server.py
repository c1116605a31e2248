#!/usr/bin/env python3
"""A scripted model server for the real-host tests (tests/cli/test_real_hosts.rs).

Bound to 127.0.0.1, it answers the four model APIs the agent host CLIs speak — Anthropic
Messages (Claude Code), OpenAI Responses (Codex) and Chat Completions (Copilot CLI), Gemini
`generateContent` / `streamGenerateContent` (Gemini CLI) — streaming where the request asks for
it, and appends every request it receives, as one JSON line, to the record file.

What it answers comes from the script file (JSON), read at each request so that a test can
change it between runs: `{"replies": [<reply>, ...]}`, one reply taken per model request in
order, the last one repeated. A reply is `{"text": "..."}`; or `{"shell": "<command>", "then":
"<text>"}`: the model calls the host's shell tool with the command; or `{"tool": "<part of a
tool's name>", "input": {...}, "then": "<text>"}`: the model calls the first tool the request
offers whose name holds that part (an MCP tool). When a request carries the called tool's
result, the `then` text answers it, and the next reply is taken only after that. A reply's `"usage": N` reports N input tokens for
it (a host that compacts on reported usage, Codex, then compacts).

Usage: model_server.py RECORD_FILE SCRIPT_FILE  (prints the port on its first line)
Standard library only.
"""

import json
import sys
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

RECORD, SCRIPT = sys.argv[1], sys.argv[2]
LOCK = threading.Lock()
STATE = {"next": 0}

# The shell tool of each host, as its request lists it.
SHELL_TOOLS = ("Bash", "exec_command", "shell", "run_shell_command", "bash")


def record(path, body):
    with LOCK, open(RECORD, "a", encoding="utf-8") as f:
        f.write(json.dumps({"path": path, "body": body}) + "\n")


def script():
    try:
        with open(SCRIPT, encoding="utf-8") as f:
            return json.load(f).get("replies") or [{"text": "OK."}]
    except (OSError, ValueError):
        return [{"text": "OK."}]


def has_tool_result(body):
    """Whether the request's last turn carries a tool's result (the call was made)."""
    def types(content):
        return [c.get("type") for c in content if isinstance(c, dict)] if isinstance(content, list) else []
    msgs = body.get("messages")
    if isinstance(msgs, list) and msgs:
        last = msgs[-1]
        if last.get("role") == "tool" or "tool_result" in types(last.get("content")):
            return True
    items = body.get("input")
    if isinstance(items, list):
        for it in reversed(items):
            if not isinstance(it, dict):
                continue
            if it.get("type") == "function_call_output":
                return True
            if it.get("role") == "user":
                break
    contents = body.get("contents")
    if isinstance(contents, list) and contents:
        parts = contents[-1].get("parts") or []
        if any(isinstance(p, dict) and "functionResponse" in p for p in parts):
            return True
    return False


def tool_names(body):
    """The names of the tools the request offers (any of the four APIs); a tool inside a
    namespace (Codex's MCP servers) as `<namespace>/<name>`."""
    names = []
    for t in body.get("tools") or []:
        if isinstance(t, dict):
            if t.get("type") == "namespace":
                names.extend(f"{t.get('name')}/{x.get('name')}" for x in t.get("tools") or [] if isinstance(x, dict))
                continue
            names.append(t.get("name") or (t.get("function") or {}).get("name"))
            for d in t.get("functionDeclarations") or []:
                names.append(d.get("name"))
    return [n for n in names if n]


def wanted_tool(body, reply):
    """(name, input) of the tool call `reply` asks for, when the request offers that tool."""
    names = tool_names(body)
    if "shell" in reply:
        name = next((n for n in SHELL_TOOLS if n in names), None)
        return (name, {"command": reply["shell"], "description": "run it"}) if name else None
    if "tool" in reply:
        name = next((n for n in names if reply["tool"] in n), None)
        return (name, reply.get("input") or {}) if name else None
    return None


def decide(body, raw):
    """(`text`, `call`) for this request: a tool call (name, input), or text."""
    replies = script()
    with LOCK:
        i = min(STATE["next"], len(replies) - 1)
        reply = replies[i]
        STATE["usage"] = int(reply.get("usage", 100))
        calls = "shell" in reply or "tool" in reply
        if calls and (has_tool_result(body) or STATE.get("calls", 0) >= 3):
            STATE["calls"] = 0
            STATE["next"] += 1
            return reply.get("then", "Done."), None
        call = wanted_tool(body, reply) if calls else None
        if call:
            STATE["calls"] = STATE.get("calls", 0) + 1
            return None, call
        STATE["next"] += 1
        return reply.get("text", "OK."), None


def fill(schema):
    """A value of the JSON schema `schema` (the smallest one)."""
    kind = str(schema.get("type", "OBJECT")).upper()
    if kind == "OBJECT":
        return {k: fill(v) for k, v in (schema.get("properties") or {}).items()}
    if kind == "ARRAY":
        return []
    if kind in ("INTEGER", "NUMBER"):
        return 1
    if kind == "BOOLEAN":
        return False
    return "x"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n).decode("utf-8", "replace") if n else ""
        try:
            return json.loads(raw), raw
        except ValueError:
            return {}, raw

    def send(self, code, obj):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def sse(self, events):
        data = "".join(events).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        record(self.path, None)
        if self.path.startswith("/v1/models") or "models" in self.path:
            return self.send(200, {"data": [{"id": "test-model", "object": "model"}], "models": []})
        self.send(404, {"error": {"message": "not here"}})

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        body, raw = self.body()
        record(self.path, body if body else raw)
        path = self.path.split("?")[0]
        if path.endswith("/count_tokens") or path.endswith(":countTokens"):
            return self.send(200, {"input_tokens": 100, "totalTokens": 100})
        if path.endswith("/v1/messages"):
            return self.anthropic(body, raw)
        if path.endswith("/responses"):
            return self.openai_responses(body, raw)
        if path.endswith("/chat/completions"):
            return self.chat(body, raw)
        if ":generateContent" in path or ":streamGenerateContent" in path:
            return self.gemini(body, raw, ":streamGenerateContent" in path)
        self.send(404, {"error": {"message": "not here"}})

    # Anthropic Messages.
    def anthropic(self, body, raw):
        text, call = decide(body, raw)
        mid = "msg_" + uuid.uuid4().hex[:20]
        if call:
            block = {"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:20], "name": call[0], "input": call[1]}
            stop = "tool_use"
        else:
            block = {"type": "text", "text": text}
            stop = "end_turn"
        usage = {"input_tokens": 100, "output_tokens": 10}
        msg = {"id": mid, "type": "message", "role": "assistant", "model": body.get("model", "test-model"),
               "content": [block], "stop_reason": stop, "stop_sequence": None, "usage": usage}
        if not body.get("stream"):
            return self.send(200, msg)
        ev = lambda name, obj: f"event: {name}\ndata: {json.dumps(obj)}\n\n"
        start = dict(msg, content=[], stop_reason=None)
        out = [ev("message_start", {"type": "message_start", "message": start})]
        if call:
            out.append(ev("content_block_start", {"type": "content_block_start", "index": 0,
                                                  "content_block": dict(block, input={})}))
            out.append(ev("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                  "delta": {"type": "input_json_delta",
                                                            "partial_json": json.dumps(block["input"])}}))
        else:
            out.append(ev("content_block_start", {"type": "content_block_start", "index": 0,
                                                  "content_block": {"type": "text", "text": ""}}))
            out.append(ev("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                  "delta": {"type": "text_delta", "text": text}}))
        out.append(ev("content_block_stop", {"type": "content_block_stop", "index": 0}))
        out.append(ev("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                        "usage": {"output_tokens": 10}}))
        out.append(ev("message_stop", {"type": "message_stop"}))
        self.sse(out)

    # OpenAI Responses.
    def openai_responses(self, body, raw):
        text, call = decide(body, raw)
        rid = "resp_" + uuid.uuid4().hex[:20]
        if call:
            args = dict(call[1])
            if "command" in args and call[0] in SHELL_TOOLS:
                args = {"cmd": args["command"], "command": ["bash", "-lc", args["command"]], "login": False}
            ns, _, name = call[0].rpartition("/")
            item = {"type": "function_call", "id": "fc_" + uuid.uuid4().hex[:12], "call_id": "call_" + uuid.uuid4().hex[:12],
                    "name": name, "arguments": json.dumps(args), "status": "completed"}
            if ns:
                item["namespace"] = ns
        else:
            item = {"type": "message", "id": "msg_" + uuid.uuid4().hex[:12], "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": text, "annotations": []}]}
        usage = {"input_tokens": STATE["usage"], "output_tokens": 10, "total_tokens": STATE["usage"] + 10,
                 "input_tokens_details": {"cached_tokens": 0}, "output_tokens_details": {"reasoning_tokens": 0}}
        resp = {"id": rid, "object": "response", "status": "completed", "model": body.get("model", "test-model"),
                "output": [item], "usage": usage}
        ev = lambda obj: f"event: {obj['type']}\ndata: {json.dumps(obj)}\n\n"
        out = [ev({"type": "response.created", "response": dict(resp, status="in_progress", output=[])}),
               ev({"type": "response.output_item.added", "output_index": 0, "item": item})]
        if not call:
            out.append(ev({"type": "response.output_text.delta", "output_index": 0, "content_index": 0,
                           "item_id": item["id"], "delta": text}))
        out.append(ev({"type": "response.output_item.done", "output_index": 0, "item": item}))
        out.append(ev({"type": "response.completed", "response": resp}))
        self.sse(out)

    # OpenAI Chat Completions.
    def chat(self, body, raw):
        text, call = decide(body, raw)
        cid = "chatcmpl-" + uuid.uuid4().hex[:20]
        model = body.get("model", "test-model")
        if call:
            tc = {"index": 0, "id": "call_" + uuid.uuid4().hex[:12], "type": "function",
                  "function": {"name": call[0], "arguments": json.dumps(call[1])}}
            delta, finish, message = {"role": "assistant", "tool_calls": [tc]}, "tool_calls", \
                {"role": "assistant", "content": None, "tool_calls": [dict(tc)]}
        else:
            delta, finish, message = {"role": "assistant", "content": text}, "stop", {"role": "assistant", "content": text}
        usage = {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
        if not body.get("stream"):
            return self.send(200, {"id": cid, "object": "chat.completion", "model": model, "created": 0,
                                   "choices": [{"index": 0, "message": message, "finish_reason": finish}], "usage": usage})
        chunk = lambda d, f: "data: " + json.dumps({"id": cid, "object": "chat.completion.chunk", "model": model, "created": 0,
                                                    "choices": [{"index": 0, "delta": d, "finish_reason": f}]}) + "\n\n"
        out = [chunk(delta, None), chunk({}, finish),
               "data: " + json.dumps({"id": cid, "object": "chat.completion.chunk", "model": model, "created": 0,
                                      "choices": [], "usage": usage}) + "\n\n", "data: [DONE]\n\n"]
        self.sse(out)

    # Gemini generateContent.
    def gemini(self, body, raw, stream):
        config = body.get("generationConfig") or {}
        schema = config.get("responseJsonSchema") or config.get("responseSchema")
        if config.get("responseMimeType") == "application/json" and schema:
            # A host's own side request (Gemini CLI's model router): an answer of the asked
            # shape, never a scripted reply.
            text, call = json.dumps(fill(schema)), None
        else:
            text, call = decide(body, raw)
        if call:
            part = {"functionCall": {"name": call[0], "args": call[1]}}
        else:
            part = {"text": text}
        resp = {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
                "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110},
                "modelVersion": "test-model"}
        if not stream:
            return self.send(200, resp)
        self.sse(["data: " + json.dumps(resp) + "\n\n"])


def main():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(srv.server_address[1], flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
