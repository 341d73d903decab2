"""Writes a copy of one of etcd's .proto files without its Go-only options.

etcd's protos (Debian's golang-etcd-server-dev) import gogoproto and
google/api/annotations, whose options steer Go code generation and the JSON
gateway; none of them changes the wire format. Removing them lets Debian's
protoc compile the files with no other proto package installed.

Usage: strip_etcd_proto.py IN.proto OUT.proto
"""
import pathlib
import re
import sys

DROPPED_IMPORTS = ('"gogoproto/gogo.proto"', '"google/api/annotations.proto"')


def drop_braced_option(text, opener):
    """Removes every `option (google.api.http) = { ... };` block."""
    out, pos = [], 0
    while True:
        start = text.find(opener, pos)
        if start < 0:
            out.append(text[pos:])
            return "".join(out)
        out.append(text[pos:start])
        depth, i = 0, text.index("{", start)
        while True:
            if text[i] == "{":
                depth += 1
            elif text[i] == "}":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        end = text.index(";", i) + 1
        pos = end


def strip(text):
    lines = [l for l in text.splitlines(keepends=True)
             if not (l.strip().startswith("import") and
                     any(d in l for d in DROPPED_IMPORTS))]
    text = "".join(lines)
    text = re.sub(r"^\s*option \(gogoproto\.[^;]*;\s*\n", "", text, flags=re.M)
    text = drop_braced_option(text, "option (google.api.http)")
    # Field options: [(gogoproto.a) = x, (gogoproto.b) = "y"]
    text = re.sub(r"\s*\[\s*\(gogoproto\.[^\]]*\]", "", text)
    # An rpc whose body held only the http option: `{ }` stays valid.
    return text


def main():
    source, target = map(pathlib.Path, sys.argv[1:3])
    stripped = strip(source.read_text())
    if "gogoproto" in stripped or "google.api" in stripped:
        sys.exit(f"{source}: options left after stripping")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(stripped)


if __name__ == "__main__":
    main()
