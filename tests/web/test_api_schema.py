"""The API's OpenAPI schema says what the server does: the bodies it takes,
the answers and errors it gives (each a finding of the schema-driven
fuzzer, tests/web/test_api_fuzz.py, kept here as a plain test)."""

from __future__ import annotations

from typing import Any

import jsonschema_rs
import pytest
from fastapi.testclient import TestClient

from outflank.web.app import create_app


@pytest.fixture(scope="module")
def schema(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return create_app(str(tmp_path_factory.mktemp("schema") / "s.db")).openapi()


def _component(schema: dict[str, Any], name: str) -> Any:
    """A validator of one component schema (its $refs resolved in the document)."""
    document = {**schema["components"]["schemas"][name], "components": schema["components"]}
    return jsonschema_rs.validator_for(document)


def test_an_undeclared_method_is_answered_405_with_allow(client: TestClient) -> None:
    """RFC 9110: a 405 lists the methods the resource takes. The app's error
    handler used to drop the Allow header of Starlette's 405."""
    for method, path, allowed in (
        ("TRACE", "/api/info", {"GET"}),
        ("PUT", "/api/games", {"GET", "POST"}),
        ("DELETE", "/api/games/x/moves", {"POST"}),
        # the most specific path: not GET /api/puzzles/{puzzle_id}
        ("OPTIONS", "/api/puzzles/solvers", {"POST"}),
        ("PUT", "/", {"GET", "HEAD"}),  # the page, not in the API's schema
    ):
        answer = client.request(method, path)
        assert answer.status_code == 405
        assert answer.json() == {"error": "Method Not Allowed"}
        assert set(answer.headers["allow"].split(", ")) == allowed


def test_the_player_schema_takes_what_the_server_takes(
    schema: dict[str, Any], client: TestClient
) -> None:
    """A human with AI settings is refused (422); the schema used to let any
    player carry them, so a schema-valid request was refused."""
    player = _component(schema, "PlayerSpec")
    cases = [
        ({}, True),
        ({"kind": "human"}, True),
        ({"kind": "human", "level": 3}, False),
        ({"kind": "human", "ai": None}, False),
        ({"kind": "ai", "ai": "level", "level": 5}, True),
        ({"kind": "ai", "ai": "level", "level": None}, True),
        ({"kind": "ai", "ai": "regions", "corner": 50, "lookahead": 2}, True),
        ({"kind": "ai"}, False),
        ({"ai": "greedy"}, False),
        ({"kind": "ai", "ai": "level", "level": 21}, False),
        ({"kind": "ai", "ai": "greedy", "colour": "red"}, False),
        # JSON Schema counts 30.0 an integer; the strict model refused it
        ({"kind": "ai", "ai": "regions", "corner": -30.0, "lookahead": 6.0}, True),
        ({"kind": "ai", "ai": "level", "level": 5.5}, False),
        ({"kind": "ai", "ai": "level", "level": "5"}, False),
        ({"kind": "ai", "ai": "level", "level": True}, False),
    ]
    for spec, valid in cases:
        assert player.is_valid(spec) == valid, spec
        answer = client.post("/api/games", json={"black": spec, "white": {"kind": "human"}})
        assert answer.status_code == (201 if valid else 422), (spec, answer.text)


def test_every_operation_documents_its_errors(schema: dict[str, Any]) -> None:
    """Each operation lists 422 and 503 and every status it can answer, with
    the body {"error": ...}; a game's operations answer 404 for a game that
    does not exist."""
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            answers = operation["responses"]
            assert {"422", "503"} <= set(answers), (method, path)
            for status, answer in answers.items():
                if status.startswith(("4", "5")):
                    body = answer["content"]["application/json"]["schema"]
                    assert body == {"$ref": "#/components/schemas/ErrorBody"}, (status, path)
            if "{game_id}" in path:
                assert "404" in answers, (method, path)
            if "requestBody" in operation:
                assert "413" in answers, (method, path)
    assert schema["components"]["schemas"]["ErrorBody"]["required"] == ["error"]
