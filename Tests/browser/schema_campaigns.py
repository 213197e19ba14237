"""Campaigns generated from the campaign schema Herald publishes (the OpenAPI document's
CampaignInput, which a Swift test keeps equal to the domain's own schema): every property, nested,
at a boundary value where the schema gives one. The same rules as the Swift generator
(Tests/HeraldWebTests/Support/SchemaCampaigns.swift), with the same samples file, so a property
added to the schema later reaches the browser's round trip (JavaScript on) without editing this."""
import copy
import json
import os

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
FIXTURE = json.load(open(os.path.join(ROOT, "Tests", "Fixtures", "campaign-schema-samples.json"), encoding="utf-8"))
SCHEMA = json.load(open(os.path.join(ROOT, "Public", "openapi.json"), encoding="utf-8"))["components"]["schemas"]["CampaignInput"]


class Unsampled(Exception):
    def __init__(self, path):
        super().__init__(f"the campaign schema's {path} needs a sample value in Tests/Fixtures/campaign-schema-samples.json")


def join(path, key):
    return key if not path else f"{path}.{key}"


def audiences():
    return [option["required"][0] for option in SCHEMA.get("oneOf", [])]


def value(schema, path, turn, segment):
    if path == "segment":
        return segment
    if path in FIXTURE["samples"]:
        return copy.deepcopy(FIXTURE["samples"][path])
    if schema.get("enum"):
        return schema["enum"][turn % len(schema["enum"])]
    kind = schema.get("type")
    if kind == "object":
        properties = schema.get("properties")
        if not properties:
            raise Unsampled(path)
        return {key: value(properties[key], join(path, key), turn, segment) for key in sorted(properties)}
    if kind == "array":
        items = schema.get("items")
        if items is None:
            raise Unsampled(path)
        choices = items.get("enum") or []
        if len(choices) > 1:
            return [choices[turn % len(choices)], choices[(turn + 1) % len(choices)]]
        generated = []
        for index in range(2):
            item = value(items, path + "[]", turn + index, segment)
            if isinstance(item, dict) and isinstance(item.get("key"), str):
                item["key"] += str(index)
            generated.append(item)
        return generated
    if kind == "integer":
        return schema.get("maximum", schema.get("minimum", 1))
    if kind == "boolean":
        return True
    if kind == "string":
        if "pattern" in schema and schema.get("format") != "uri":
            raise Unsampled(path)
        if schema.get("format") == "uri":
            return f"https://cdn.example.com/{path.replace('[]', '')}.png"
        if "format" not in schema:
            return f"{path.split('.')[-1]} {turn}"
    raise Unsampled(path)


def campaign(index, audience, segment):
    """Campaign `index`, for `audience`: every property but the other audiences'."""
    generated = value(SCHEMA, "", index, segment)
    for other in audiences():
        if other != audience:
            generated.pop(other, None)
    for alternatives in FIXTURE["alternatives"]:
        for position, path in enumerate(alternatives):
            if position != index % len(alternatives):
                remove(generated, path)
    return generated


def remove(document, path):
    """Removes the value at an error's path ("variants[1].notification.title"); False when absent."""
    head, _, rest = path.partition(".")
    name, index = head, None
    if head.endswith("]") and "[" in head:
        name, _, number = head[:-1].partition("[")
        index = int(number)
    if not isinstance(document, dict) or name not in document:
        return False
    if index is not None:
        items = document[name]
        if not isinstance(items, list) or index >= len(items):
            return False
        if rest:
            return remove(items[index], rest)
        del items[index]
        return True
    if rest:
        return remove(document[name], rest)
    del document[name]
    return True


def leaves(schema=SCHEMA, path=""):
    """The paths of the schema's values: what the accepted campaigns must hold between them."""
    if schema.get("properties"):
        return [leaf for key in sorted(schema["properties"]) for leaf in leaves(schema["properties"][key], join(path, key))]
    items = schema.get("items")
    if schema.get("type") == "array" and items and items.get("properties"):
        return leaves(items, path + "[]")
    return [path]


def values_at(document, path):
    current = [document]
    for part in path.split("."):
        name = part[:-2] if part.endswith("[]") else part
        current = [item[name] for item in current if isinstance(item, dict) and name in item]
        if part.endswith("[]"):
            current = [element for item in current if isinstance(item, list) for element in item]
    return [item for item in current if item is not None]
