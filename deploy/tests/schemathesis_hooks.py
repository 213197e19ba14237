"""Schemathesis's positive-data check, as Herald's document states it: a request the OpenAPI
document allows is not refused for its shape. Some of Herald's rules go past what a schema can
say (a message within FCM's bytes once rendered, a condition's grammar, a time zone in the IANA
database, a cursor or version this server issued, a campaign the event names). The document lists
those rules by problem code (`x-rules-past-the-schema`, for every operation or for one), and a refusal of schema-valid data must
name only such codes. Any other refusal means the document and the server disagree: a failure.
Loaded by deploy/tests/check-schemathesis through SCHEMATHESIS_HOOKS."""
import json
import re
import os

import schemathesis
from schemathesis.specs.openapi.checks import is_unexpected_http_status_case

DOCUMENT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Public", "openapi.json")
with open(DOCUMENT, encoding="utf-8") as file:
    SPEC = json.load(file)


def rules(operation):
    """The rules past the schema for an operation: the document's own, and the operation's."""
    own = SPEC["paths"].get(operation.path, {}).get(operation.method.lower(), {})
    return {**SPEC["x-rules-past-the-schema"], **own.get("x-rules-past-the-schema", {})}

# Answers that say nothing about the request's shape: who asks, what exists, what state it is in.
NOT_ABOUT_SHAPE = {401, 403, 404, 409, 429}


@schemathesis.check
def schema_valid_requests_are_refused_only_by_documented_rules(ctx, response, case):
    meta = case.meta
    if meta is None or is_unexpected_http_status_case(case) or not meta.generation.mode.is_positive:
        return None
    status = response.status_code
    if status < 400 or status >= 500 or status in NOT_ABOUT_SHAPE:
        return None
    try:
        problem = json.loads(response.content)
    except ValueError:
        raise AssertionError(f"a request the document allows was refused ({status}) without a problem document")
    errors = problem.get("errors") or [{"code": problem.get("code"), "path": ""}]
    allowed = rules(case.operation)
    # A rule is a problem code, or "path:" and the start of the paths it covers (a block the
    # document hands to another schema, such as FCM's own for platform overrides); "[*]" in it
    # stands for any index ("steps[*].message.options.overrides.").
    prefixes = [re.compile(re.escape(key[len("path:"):]).replace(re.escape("[*]"), r"\[[0-9]+\]"))
                for key in allowed if key.startswith("path:")]
    unnamed = sorted({f'{error.get("code")} at {error.get("path")!r}' for error in errors
                      if error.get("code") not in allowed and not any(p.match(str(error.get("path", ""))) for p in prefixes)})
    if unnamed:
        raise AssertionError(f"a request the document allows was refused ({status}, {', '.join(unnamed)}): "
                             f"{problem.get('detail')}. Say it in the document, or list the rule in x-rules-past-the-schema.")
    return None
