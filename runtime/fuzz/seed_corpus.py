#!/usr/bin/env python3
"""Writes the committed seed corpora (runtime/fuzz/corpus/<target>/) from
schema/examples/ plus a few hand-made fault inputs (the fake-gortex fault
list and the hostile inputs of docs/reliability.md). Re-run after the examples change:
    python3 runtime/fuzz/seed_corpus.py
Each file's layout is the one its target's module doc describes."""

import json
import os
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "schema" / "examples"
OUT = ROOT / "runtime" / "fuzz" / "corpus"
SEP = b"\xff"


def examples(type_name, kind="valid"):
    folder = EXAMPLES / type_name / kind
    for path in sorted(folder.glob("*.json")):
        yield path.stem, json.loads(path.read_text())


def compact(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def write(target, name, data):
    folder = OUT / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data)


GARBAGE = [b"", b"   ", b"not json", b"[1,2]", b'{"jsonrpc":"2.0"}',
           b'{"jsonrpc":"2.0","id":999,"result":{}}', b"\xff\xfe{\"id\":1}", b"null"]


def messages():
    lines = [compact(value) for _, value in examples("JsonRpcMessage")]
    for type_name in ("InitializeResult", "ListToolsResult", "CallToolResult"):
        for index, (_, value) in enumerate(examples(type_name), start=1):
            lines.append(compact({"jsonrpc": "2.0", "id": index, "result": value}))
    return lines


def framing():
    lines = messages()
    stream = b"\n".join(lines[:6]) + b"\n"
    write("framing", "messages-real-cap", b"\x80\x01\x00" + stream)
    write("framing", "messages-small-cap", b"\x30\x07\x00" + stream)
    write("framing", "garbage-between", b"\x80\x02\x00" + b"\n".join(GARBAGE + lines[:2]) + b"\n")
    crlf = "\r\n".join(['{"id":1,"result":{"t":"é✓😀"}}', '{"id":2,"result":{}}']) + "\r\n"
    write("framing", "crlf-utf8", b"\x80\x03\x00" + crlf.encode())
    write("framing", "unterminated-tail", b"\x05\x04\x00" + b'{"id":1}\n{"id":2,"result":')
    write("framing", "blank-lines", b"\x80\x05\x00" + b"\n\n \n\t\r\n{}\n")


def mcp_frame():
    for index, line in enumerate(messages()):
        write("mcp_frame", f"message-{index:02}", line + b"\n")
    write("mcp_frame", "garbage", b"\n".join(GARBAGE) + b"\n")
    write("mcp_frame", "server-ping", b'{"jsonrpc":"2.0","id":"srv-1","method":"ping"}\n')
    write("mcp_frame", "server-request-object-id", b'{"id":{"a":[1]},"method":"roots/list"}\n')
    write("mcp_frame", "error-without-message", b'{"jsonrpc":"2.0","id":3,"error":{"code":-32000}}\n')
    write("mcp_frame", "paged-tools", compact({"id": 4, "result": {
        "tools": [{"name": "read", "inputSchema": 5}, {"name": ""}, {"name": "search",
                  "description": "  "}, {"name": "read"}], "nextCursor": "page-2"}}) + b"\n")


def call_result():
    for name, value in examples("CallToolResult"):
        write("call_result", f"example-{name}", compact(value))
    # A lone surrogate before an escaped backslash (valid JSON), once a panic of the fast path.
    write("call_result", "lone-surrogate-then-backslash",
          b'{"content":[{"type":"text","text":"\\ud800abcde\\\\"}]}')
    write("call_result", "lone-low-surrogate-and-pair",
          b'{"content":[{"type":"text","text":"\\udc00x\\ud800\\ud83d\\ude00"}],"isError":true}')
    write("call_result", "escaped-type-and-array-block",
          b'{"content":[["text","no"],{"type":"te\\u0078t","text":"a\\n\\"b\\u00e9"}]}')
    write("call_result", "structured-fallback", b'{"content":[],"structuredContent":{"k":[1,2.5e3]}}')
    write("call_result", "truncated-escape", b'{"content":[{"type":"text","text":"\\u12"}]}')


def hook_decision():
    for kind in ("valid", "invalid"):
        for stem, value in examples("HookDecision", kind):
            write("hook_decision", f"{kind}-{stem}", compact(value))
    for stem, value in examples("HookEvent"):
        if isinstance(value.get("tool_input"), dict):
            write("hook_decision", f"tool-input-{stem}", compact(value["tool_input"]))
    for name, data in {"not-json": b"not json", "null": b"null", "array": b"[]",
                       "block-yes": b'{"block":"yes"}', "reason-number": b'{"reason":5}',
                       "empty": b"", "whitespace": b" \n\t",
                       "block-empty-reason": b'{"block":true,"reason":""}',
                       "pi-inputs": b'{"path":"a.go","glob":"*.ts","cmd":"cat a.go","file_path":7}'
                       }.items():
        write("hook_decision", f"fault-{name}", data)


def sidecar_config():
    env = b"GORTEX_HOOK_MODE= \nGORTEX_ENFORCE=maybe\nGORTEX_TOOLS=nav"
    for kind in ("valid", "invalid"):
        for stem, value in examples("SidecarConfig", kind):
            write("sidecar_config", f"{kind}-{stem}", env + SEP + compact(value) + SEP + compact(value))
    hostile = compact({"bin": "./evil.sh", "hook_mode": "enrich"})
    write("sidecar_config", "hostile-project-bin", b"" + SEP + hostile + SEP + b'{"bin":" /opt/gortex "}')
    write("sidecar_config", "broken-json", b"GORTEX_BIN=/x" + SEP + b'{"bin":' + SEP + b"[1]")
    write("sidecar_config", "wrong-types", SEP + b'{"enforce":"false","hook_mode":5,"tools_preset":null}'
          + SEP + b'{"native_mcp":1,"prompt_context":"true"}')
    write("sidecar_config", "env-booleans",
          b"GORTEX_ENFORCE= Off \nGORTEX_NATIVE_MCP=YES\nGORTEX_PROMPT_CONTEXT=1\nPI_CODING_AGENT_DIR=~/x"
          + SEP + b"null" + SEP + b'"str"')


def edit_paths():
    tools = ["edit", "edit_file", "write_file", "edit_symbol", "batch_edit", "read", "refactor"]
    for stem, value in examples("CallToolRequestParams"):
        if "arguments" in value:
            index = tools.index(value["name"]) if value["name"] in tools else 0
            write("edit_paths", f"call-{stem}", bytes([index]) + compact(value["arguments"]))
    calls = {
        "batch-string": (0, {"changes": '[{"path":"a.ts"},{"id":"repo/sub/b.ts::f"}]'}),
        "legacy-edit": (1, {"path": "sub/a.ts", "old_string": "a", "new_string": "b"}),
        "symbol": (0, {"target": {"symbol": "repo/sub/a.ts::a"}, "match": "1", "replacement": "2"}),
        "dry-run": (0, {"operation": "file", "target": {"file": "a.ts"}, "options": {"dry_run": True}}),
        "batch-edits": (4, {"edits": [{"file_path": "../sub/a.ts"}, {"destination": "x/y.ts"}, 3]}),
        "operation-not-string": (0, {"operation": 5, "target": {"file": "a.ts"}}),
    }
    for name, (index, args) in calls.items():
        write("edit_paths", f"call-{name}", bytes([index]) + compact(args))
    for name, raw in {"dotdot": "../../../etc/passwd", "symlink-out": "escape/etc/passwd",
                      "absolute-outside": "/etc/shadow", "repo-prefixed": "repo/sub/a.ts",
                      "backslashes": "sub\\a.ts", "absolute-inside-dotdot": "/tmp/../etc/x"}.items():
        write("edit_paths", f"raw-{name}", bytes([0x80]) + raw.encode())


def diff_engine():
    twenty = "".join(f"l{i}\n" for i in range(1, 21))
    pairs = {
        "one-line": (b"a\nb\n", b"a\nc\n"),
        "twenty-lines": (twenty.encode(), twenty.replace("l10\n", "X\n").encode()),
        "crlf-to-lf": (b"a\r\nb\r\n", b"a\nb\n"),
        "bom-added": (b"a\n", b"\xef\xbb\xbfa\n"),
        "binary": (b"a\x00b", b"a\x00c"),
        "not-utf8": (b"a\n", b"\xff\xfe\n"),
        "no-final-newline": (b"a\nb", b"a\nb\nc"),
        "new-file": (b"", b"x\ny\n"),
        "emptied": (b"x\ny\n", b""),
    }
    for name, (old, new) in pairs.items():
        cut = len(old)
        write("diff_engine", name, cut.to_bytes(2, "little") + old + new)


for build in (framing, mcp_frame, call_result, hook_decision, sidecar_config, edit_paths, diff_engine):
    build()
print("corpus written to", OUT.relative_to(ROOT))
