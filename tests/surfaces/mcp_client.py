"""The official MCP Python SDK (mcp 2.x) as a stdio client of `git majordomus mcp`.

usage: python mcp_client.py <cwd> <mode> <calls.json> <uri,uri,...> -- <server command...>

<mode> is the SDK's connect mode: `legacy` (the initialize handshake), `auto` (the SDK's
default: probe `server/discover`, fall back to initialize) or a modern revision such as
`2026-07-28` (adopted without a probe). <calls.json> is a JSON object: label -> {"tool": name,
"arguments": {...}}.

Prints one JSON document: the server's name, the negotiated protocol version, the tool and
resource lists (each tool's input and output schema), each call's structured content and parsed
text content, and each resource's parsed text. The SDK validates every result against its
revision's wire schema and every tool result against the tool's `outputSchema` (a mismatch
raises, and this script fails).
"""
import asyncio
import json
import os
import sys

from mcp import Client, StdioServerParameters


async def main(cwd, mode, calls, uris, cmd):
    env = {k: v for k, v in os.environ.items() if k.startswith(("MAJORDOMUS_", "GIT_", "XDG_", "HOME", "TZ", "LC_"))}
    params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=env, cwd=cwd)
    out = {"calls": {}, "reads": {}}
    async with Client(params, mode=mode) as c:
        out["server"] = c.server_info.name if c.server_info else None
        out["protocol_version"] = c.protocol_version
        out["era"] = "legacy" if c.session.initialize_result is not None else "modern"
        listed = (await c.list_tools()).tools
        out["tools"] = {t.name: {"input": t.input_schema, "output": t.output_schema} for t in listed}
        out["resources"] = [str(r.uri) for r in (await c.list_resources()).resources]
        for label, call in calls.items():
            r = await c.call_tool(call["tool"], call.get("arguments", {}))
            texts = [b.text for b in r.content if b.type == "text"]
            out["calls"][label] = {
                "is_error": r.is_error,
                "structured": r.structured_content,
                "text": json.loads(texts[0]) if texts else None,
            }
        for uri in uris:
            rr = await c.read_resource(uri)
            out["reads"][uri] = json.loads(rr.contents[0].text)
    print(json.dumps(out))


if __name__ == "__main__":
    sep = sys.argv.index("--")
    cwd, mode, calls, uris = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4]
    asyncio.run(main(cwd, mode, calls, [u for u in uris.split(",") if u], sys.argv[sep + 1:]))
