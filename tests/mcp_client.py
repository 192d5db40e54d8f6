"""A real MCP client for `dsh-session mcp`, driven by tests/mcp.rs.

It uses the official MCP Python SDK (`pip install mcp`): `stdio_client` starts the server,
`ClientSession` initializes the connection, lists the tools and calls them in order. The
only argument is a JSON object:

    {"command": "...", "args": [...], "env": {...},
     "calls": [["tool", {arguments}], ["messages", {"next_of": 3}], ...]}

A call whose arguments are {"next_of": i} asks `messages` for the `next` range of call i's
answer (same session and max_bytes). Two pseudo-calls change a log between calls, keeping
its inode: `["_edit", {"file", "after", "length"}]` overwrites with `Z` the `length` bytes
after the last occurrence of `after` and puts the modification time back (the log's
revision, its size and time, stays the same); `["_touch", {"file"}]` moves its
modification time a second on. It prints one JSON object on standard output: the
server's name and instructions, the tools (name, description, input schema), and per call
`isError`, the text of its content and its `structuredContent` (which the SDK has checked
against the tool's `outputSchema`). The test asserts on those; this script asserts nothing
but that the protocol worked.
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def wire(model):
    """A result as it went over the wire (camelCase names), whichever SDK version."""
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


def change_log(name, arguments):
    """Carries out a pseudo-call `_edit` or `_touch` on arguments["file"]."""
    path = arguments["file"]
    before = os.stat(path)
    if name == "_edit":
        with open(path, "r+b") as f:
            data = f.read()
            at = data.rindex(arguments["after"].encode()) + len(arguments["after"])
            f.seek(at)
            f.write(b"Z" * arguments["length"])
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    elif name == "_touch":
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
    else:
        raise ValueError(f"unknown pseudo-call {name}")


async def main():
    spec = json.loads(sys.argv[1])
    params = StdioServerParameters(
        command=spec["command"], args=spec["args"], env=spec.get("env")
    )
    out = {"calls": []}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = wire(await session.initialize())
            out["server"] = init["serverInfo"]
            out["instructions"] = init.get("instructions")
            tools = wire(await session.list_tools())
            out["tools"] = tools["tools"]
            asked = []
            for name, arguments in spec["calls"]:
                if name.startswith("_"):
                    change_log(name, arguments)
                    asked.append(arguments)
                    out["calls"].append({"isError": False, "text": "", "structured": None})
                    continue
                if "next_of" in arguments:
                    earlier = asked[arguments["next_of"]]
                    was = out["calls"][arguments["next_of"]]
                    answer = {} if was["isError"] else json.loads(was["text"])
                    if "next" not in answer:
                        asked.append(arguments)
                        out["calls"].append(
                            {"isError": True, "text": "the answer has no next range"}
                        )
                        continue
                    arguments = {
                        "session": earlier["session"],
                        **answer["next"],
                    }
                    if "max_bytes" in earlier:
                        arguments["max_bytes"] = earlier["max_bytes"]
                asked.append(arguments)
                result = wire(await session.call_tool(name, arguments))
                text = "".join(
                    c.get("text", "") for c in result["content"] if c["type"] == "text"
                )
                out["calls"].append(
                    {
                        "isError": result.get("isError", False),
                        "text": text,
                        "structured": result.get("structuredContent"),
                    }
                )
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main())
