"""The official MCP Python SDK (mcp 2.x) as a stdio client of `git majordomus mcp`.

usage: python mcp_client.py <cwd> <tool,tool,...> <uri,uri,...> -- <server command...>

Prints one JSON document: the server's name and negotiated protocol version, the tool and
resource lists (with each tool's input schema), each tool call's structured content and parsed
text content, and each resource's parsed text.
"""
import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters, stdio_client


async def main(cwd, tools, uris, cmd):
    env = {k: v for k, v in os.environ.items() if k.startswith(("MAJORDOMUS_", "GIT_", "XDG_", "HOME", "TZ", "LC_"))}
    params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=env, cwd=cwd)
    out = {"calls": {}, "reads": {}}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            init = await s.initialize()
            out["server"] = init.server_info.name
            out["protocol_version"] = init.protocol_version
            listed = (await s.list_tools()).tools
            out["tools"] = {t.name: t.input_schema for t in listed}
            out["resources"] = [str(r.uri) for r in (await s.list_resources()).resources]
            for name in tools:
                r = await s.call_tool(name, {})
                texts = [c.text for c in r.content if c.type == "text"]
                out["calls"][name] = {
                    "is_error": r.is_error,
                    "structured": r.structured_content,
                    "text": json.loads(texts[0]) if texts else None,
                }
            for uri in uris:
                rr = await s.read_resource(uri)
                out["reads"][uri] = json.loads(rr.contents[0].text)
    print(json.dumps(out))


if __name__ == "__main__":
    sep = sys.argv.index("--")
    cwd, tools, uris = sys.argv[1], sys.argv[2], sys.argv[3]
    asyncio.run(main(cwd, [t for t in tools.split(",") if t], [u for u in uris.split(",") if u], sys.argv[sep + 1:]))
