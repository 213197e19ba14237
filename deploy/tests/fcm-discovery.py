"""Checks FCM v1 request bodies against Google's discovery document of the API, strictly: every
member must be a field of its message type (snake_case or lowerCamelCase, as the proto JSON mapping
accepts both), of the right JSON type, an enum value the document lists, a duration or timestamp
where the document says so, and map values of the right type.

Usage: python fcm-discovery.py <fcm.v1.json> <folder of {"message": …} bodies>
Prints one line per problem and a summary; exits non-zero when any body breaks the document."""
import json
import os
import re
import sys

DURATION = re.compile(r"^-?\d+(\.\d{1,9})?s$")
TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$")


def camel(name):
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


class Checker:
    def __init__(self, document):
        self.schemas = document["schemas"]
        self.problems = []

    def report(self, path, text):
        self.problems.append(f"{path}: {text}")

    def check(self, value, schema, path):
        if "$ref" in schema:
            schema = self.schemas[schema["$ref"]]
        kind = schema.get("type")
        if kind == "object" or "properties" in schema:
            if not isinstance(value, dict):
                return self.report(path, f"expected an object, found {json.dumps(value)[:60]}")
            properties = schema.get("properties", {})
            additional = schema.get("additionalProperties")
            for key, member in value.items():
                child = f"{path}.{key}"
                if properties:
                    field = properties.get(key) or properties.get(camel(key))
                    if field is None:
                        self.report(child, "not a field of " + schema.get("id", "this object"))
                    else:
                        self.check(member, field, child)
                elif additional is not None:
                    self.check(member, additional, child)
                # An object with neither (google.protobuf.Struct, e.g. apns.payload) takes any JSON.
        elif kind == "string":
            if not isinstance(value, str):
                return self.report(path, f"expected a string, found {json.dumps(value)[:60]}")
            if "enum" in schema and value not in schema["enum"]:
                self.report(path, f"{value!r} is not one of {schema['enum']}")
            fmt = schema.get("format")
            if fmt == "google-duration" and not DURATION.match(value):
                self.report(path, f"{value!r} is not a duration such as \"3.5s\"")
            if fmt == "google-datetime" and not TIMESTAMP.match(value):
                self.report(path, f"{value!r} is not an RFC 3339 timestamp")
            if fmt in ("int64", "uint64") and not re.match(r"^-?\d+$", value):
                self.report(path, f"{value!r} is not a whole number")
        elif kind == "integer":
            if isinstance(value, bool) or not (isinstance(value, int) or (isinstance(value, str) and re.match(r"^-?\d+$", value))):
                self.report(path, f"expected a whole number, found {json.dumps(value)[:60]}")
        elif kind == "number":
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                self.report(path, f"expected a number, found {json.dumps(value)[:60]}")
        elif kind == "boolean":
            if not isinstance(value, bool):
                self.report(path, f"expected true or false, found {json.dumps(value)[:60]}")
        elif kind == "array":
            if not isinstance(value, list):
                return self.report(path, "expected an array")
            for index, item in enumerate(value):
                self.check(item, schema["items"], f"{path}[{index}]")
        elif kind == "any":
            pass


def main():
    document = json.load(open(sys.argv[1]))
    folder = sys.argv[2]
    checker = Checker(document)
    request = document["schemas"]["SendMessageRequest"]
    # Herald sends to devices registered by Firebase installation ID with the `fid` target: a
    # document from before it (revision 20261023 has it) would refuse every such body.
    if "fid" not in document["schemas"]["Message"].get("properties", {}):
        print(f"the discovery document (revision {document.get('revision')}) has no Message.fid: upgrade google-api-python-client")
        sys.exit(1)
    names = sorted(n for n in os.listdir(folder) if n.endswith(".json"))
    targets = {}
    for name in names:
        body = json.load(open(os.path.join(folder, name)))
        checker.check(body, request, name)
        message = body.get("message") if isinstance(body, dict) else None
        for target in ("token", "fid", "topic", "condition"):
            if isinstance(message, dict) and target in message:
                targets[target] = targets.get(target, 0) + 1
    for problem in checker.problems:
        print(problem)
    print(f"{len(names)} bodies checked against the FCM v1 discovery document (revision {document.get('revision')}): "
          f"{len(checker.problems)} problems; by target: " + ", ".join(f"{k} {v}" for k, v in sorted(targets.items())))
    if not names:
        print("no bodies to check: were the renderer tests run with HERALD_FCM_BODIES_DIR set?")
        sys.exit(1)
    # Every kind of target Herald sends must have been seen, the FID one included.
    missing = [t for t in ("token", "fid", "topic", "condition") if t not in targets]
    if missing:
        print("no body with the target " + ", ".join(missing) + ": the renderer tests no longer cover it")
        sys.exit(1)
    sys.exit(1 if checker.problems else 0)


if __name__ == "__main__":
    main()
