"""Checks FCM v1 request bodies against Google's discovery document of the API, strictly: every
member must be a field of its message type (snake_case or lowerCamelCase, as the proto JSON mapping
accepts both), of the right JSON type, an enum value the document lists, a duration or timestamp
where the document says so, and map values of the right type.

Also checks each topic subscription request Herald made (`*.subscription-request.json`:
{"method", "target", "body"}, written by TopicSubscriptionsV1Tests) against the document's
`projects.registrations.topicSubscriptions` methods: the HTTP method, the path against the
method's path template and its parameters' patterns, every query parameter one the method
declares with the right type, and the body against the method's request schema (none where the
method takes none).

Usage: python fcm-discovery.py <fcm.v1.json> <folder of {"message": …} bodies>
Prints one line per problem and a summary; exits non-zero when any body breaks the document."""
import json
import os
import re
import sys
from urllib.parse import parse_qsl, unquote

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


SUBSCRIPTION_SUFFIX = ".subscription-request.json"
# The topicSubscriptions methods Herald makes; get and patch are exported too, so every method is checked.
SUBSCRIPTION_METHODS = ("create", "delete", "list", "get", "patch")


def subscription_methods(document):
    return document["resources"]["projects"]["resources"]["registrations"]["resources"]["topicSubscriptions"]["methods"]


def match_subscription(document, method, path):
    """The topicSubscriptions method whose HTTP method and path template fit, with the path's parameters."""
    for name, spec in subscription_methods(document).items():
        if spec["httpMethod"] != method:
            continue
        # "v1/{+parent}/topicSubscriptions": the {+name} parameter holds slashes; each segment of
        # it is percent-decoded, then the whole checked against the parameter's pattern (so an
        # escaped slash in a token or topic breaks the pattern, as it would break the resource name).
        template = spec["path"]
        pattern = "^/" + re.sub(r"\{\+?(\w+)\}", lambda m: f"(?P<{m.group(1)}>.+?)", template) + "$"
        found = re.match(pattern, path)
        if not found:
            continue
        values = {key: "/".join(unquote(part) for part in value.split("/")) for key, value in found.groupdict().items()}
        if all(re.match(spec["parameters"][key].get("pattern", ".*"), value) for key, value in values.items()):
            return name, spec, values
    return None, None, None


def check_subscription(checker, document, record, label):
    method, target, body = record.get("method"), record.get("target", ""), record.get("body")
    path, _, query = target.partition("?")
    name, spec, values = match_subscription(document, method, path)
    if spec is None:
        checker.report(label, f"{method} {path} is no method of projects.registrations.topicSubscriptions")
        return None
    for key, value in parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query)):
        parameter = spec["parameters"].get(key)
        if parameter is None or parameter.get("location") != "query":
            checker.report(f"{label}?{key}", f"not a query parameter of {spec['id']}")
            continue
        kind = parameter.get("type")
        if kind == "boolean" and value not in ("true", "false"):
            checker.report(f"{label}?{key}", f"{value!r} is not true or false")
        if kind == "integer" and not re.match(r"^-?\d+$", value):
            checker.report(f"{label}?{key}", f"{value!r} is not a whole number")
    # A query parameter the description requires (create's topicName is "Required." though not marked so).
    for key, parameter in spec["parameters"].items():
        if parameter.get("location") == "query" and parameter.get("description", "").startswith("Required.") and key + "=" not in query:
            checker.report(label, f"{spec['id']} requires the query parameter {key}")
    if "request" in spec:
        if body is None:
            checker.report(label, f"{spec['id']} takes a {spec['request']['$ref']} body; none was sent")
        else:
            checker.check(body, spec["request"], f"{label}.body")
    elif body is not None:
        checker.report(label, f"{spec['id']} takes no body")
    return name


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
    if "registrations" not in document["resources"]["projects"].get("resources", {}):
        print(f"the discovery document (revision {document.get('revision')}) has no topicSubscriptions: upgrade google-api-python-client")
        sys.exit(1)
    subscription_names = sorted(n for n in os.listdir(folder) if n.endswith(SUBSCRIPTION_SUFFIX))
    subscription_kinds = {}
    for name in subscription_names:
        kind = check_subscription(checker, document, json.load(open(os.path.join(folder, name))), name)
        if kind:
            subscription_kinds[kind] = subscription_kinds.get(kind, 0) + 1
    names = sorted(n for n in os.listdir(folder) if n.endswith(".json") and not n.endswith(SUBSCRIPTION_SUFFIX))
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
    print(f"{len(subscription_names)} topic subscription requests checked against projects.registrations.topicSubscriptions; by method: "
          + ", ".join(f"{k} {v}" for k, v in sorted(subscription_kinds.items())))
    if not names:
        print("no bodies to check: were the renderer tests run with HERALD_FCM_BODIES_DIR set?")
        sys.exit(1)
    missing_methods = [m for m in SUBSCRIPTION_METHODS if m not in subscription_kinds]
    if missing_methods:
        print("no subscription request of the method " + ", ".join(missing_methods) + ": TopicSubscriptionsV1Tests no longer covers it")
        sys.exit(1)
    # Every kind of target Herald sends must have been seen, the FID one included.
    missing = [t for t in ("token", "fid", "topic", "condition") if t not in targets]
    if missing:
        print("no body with the target " + ", ".join(missing) + ": the renderer tests no longer cover it")
        sys.exit(1)
    sys.exit(1 if checker.problems else 0)


if __name__ == "__main__":
    main()
