"""The config-schema invariant on documents of each kind: errors at the offending key."""

from __future__ import annotations

from specward.analyzers.config_schema import check_document, schema_problem

SCHEMA = {"type": "object", "required": ["retryCount"], "additionalProperties": False,
          "properties": {"retryCount": {"type": "integer"}, "hosts": {"type": "array", "items": {"type": "string"}},
                         "limits": {"type": "object", "properties": {"burst": {"type": "integer", "maximum": 10}}}}}


def found(path: str, text: str) -> list[tuple[str, str]]:
    """(the text at each finding, its message without the rule id)."""
    data = text.encode()
    return [(data[f.span.start:f.span.end].decode(), f.message.removeprefix("[cfg] "))
            for f in check_document(path, text, SCHEMA, "cfg")]


def test_json_yaml_and_toml_errors_are_placed_at_the_key_or_the_item():
    assert found("config/app.json", '{\n  "retryCount": "3",\n  "hosts": ["a", 2],\n  "limits": {"burst": 50},\n'
                                    '  "colour": "red"\n}\n') == [
        ('"retryCount"', "retryCount: '3' is not of type 'integer'"),
        ("2", "hosts/1: 2 is not of type 'string'"),
        ('"burst"', "limits/burst: 50 is greater than the maximum of 10"),
        ('"colour"', "colour: the schema does not allow this key (Additional properties are not allowed "
                     "('colour' was unexpected))"),
    ]
    assert found("deploy/prod.yaml", "retryCount: 2\nlimits:\n  burst: 11\n") == [
        ("burst", "limits/burst: 11 is greater than the maximum of 10")]
    assert found("config/dev.toml", 'hosts = ["x"]\n\n[limits]\nburst = "many"\n') == [
        ("", "the document: 'retryCount' is a required property"),
        ("burst", "limits/burst: 'many' is not of type 'integer'")]


def test_a_document_that_cannot_be_read_and_a_schema_that_is_not_one():
    [f] = check_document("config/app.json", '{"retryCount": ', SCHEMA, "cfg")
    assert f.message.startswith("[cfg] config/app.json cannot be read as JSON: ")
    assert schema_problem({"type": "objekt"}) and schema_problem([1]) and schema_problem(SCHEMA) is None
