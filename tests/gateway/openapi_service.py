"""A small HTTP service described by an OpenAPI document, for importing (a real server).

    with PetService() as service:      # listens on 127.0.0.1, a free port
        service.url, service.requests  # what arrived: method, path, query, headers, body
        governed_config(tmp_path, service)  # a config importing it behind a rule
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import parse_qsl, urlsplit

DOCUMENT = """\
openapi: 3.0.3
info: {title: Pets, version: "1.0"}
servers: [{url: "http://127.0.0.1:{port}/v1", variables: {port: {default: "PORT"}}}]
components:
  securitySchemes:
    bearerAuth: {type: http, scheme: bearer}
    apiKey: {type: apiKey, in: query, name: api_key}
  schemas:
    Pet:
      type: object
      required: [name]
      properties:
        name: {type: string, maxLength: 20}
        tag: {type: string, nullable: true}
        friends: {type: array, items: {$ref: '#/components/schemas/Pet'}}
  parameters:
    Limit: {name: limit, in: query, schema: {type: integer, minimum: 1, maximum: 50}}
paths:
  /pets:
    get:
      operationId: listPets
      summary: List the pets
      tags: [pets]
      parameters:
        - $ref: '#/components/parameters/Limit'
        - {name: X-Request-Id, in: header, schema: {type: string}}
        - {name: "filter[kind]", in: query, schema: {type: string, enum: [cat, dog]}}
        - {name: dry_run, in: query, schema: {type: boolean}}
      responses: {"200": {description: ok}}
    post:
      operationId: createPet
      tags: [pets]
      requestBody:
        required: true
        content: {application/json: {schema: {$ref: '#/components/schemas/Pet'}}}
      responses: {"201": {description: created}}
  /pets/{petId}:
    parameters:
      - {name: petId, in: path, required: true, schema: {type: string}}
    get:
      operationId: showPetById
      tags: [pets]
      responses: {"200": {description: ok}}
    delete:
      operationId: deletePet
      tags: [admin]
      responses: {"204": {description: gone}}
  /pets/{petId}/photo:
    put:
      operationId: uploadPhoto
      parameters: [{name: petId, in: path, required: true, schema: {type: string}}]
      requestBody:
        required: true
        content: {image/png: {schema: {type: string, format: binary}}}
      responses: {"200": {description: ok}}
"""


class PetService:
    """The service of ``DOCUMENT``: answers every operation, records every request."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.fetched = 0  # times the document was fetched
        service = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                parts = urlsplit(self.path)
                if parts.path == "/openapi.yaml":  # the document itself, for 'url:'
                    service.fetched += 1
                    text = service.document().encode()
                    self.send_response(200)
                    self.send_header("content-length", str(len(text)))
                    self.end_headers()
                    self.wfile.write(text)
                    return
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                service.requests.append({
                    "method": self.command, "path": parts.path,
                    "query": parse_qsl(parts.query, keep_blank_values=True),
                    "headers": {k.lower(): v for k, v in self.headers.items()},
                    "body": json.loads(raw) if raw else None})
                body = json.dumps({"ok": True, "method": self.command, "path": parts.path})
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body.encode())

            do_GET = do_POST = do_PUT = do_DELETE = _answer

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/v1"
        # shutdown() waits for serve_forever's next poll: 0.5 s by default, per service
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,),
                                        daemon=True)

    def document(self) -> str:
        """The document, its server URL pointing at this service."""
        return DOCUMENT.replace("PORT", str(self.port))

    def __enter__(self) -> PetService:
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._server.shutdown()
        self._server.server_close()


GOVERNED = """\
toolhost: 1
servers:
  pets:
    openapi: {spec: pets.yaml, security: {bearerAuth: "${PETS_TOKEN}"}}
    exclude: ["tag:admin"]
    tools:
      listPets: {name: list_pets, fixed: {dry_run: true}}
permissions:
  default: allow
  deny:
    - tool: mcp__pets__showPetById
      when: {petId: {regex: "(?i)admin.*"}}
      message: Not the admin pet.
"""


def governed_config(directory: Path, service: PetService) -> Path:
    """The service's document beside a config that imports it: the admin operations left
    out, ``dry_run`` fixed, the admin pet denied by a rule, a bearer token from
    ``$PETS_TOKEN``."""
    (directory / "pets.yaml").write_text(service.document())
    config = directory / "toolhost.yaml"
    config.write_text(GOVERNED)
    return config
