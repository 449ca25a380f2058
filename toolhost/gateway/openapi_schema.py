"""OpenAPI schema objects -> JSON Schema 2020-12 inputSchemas.

OpenAPI 3.1 schemas are JSON Schema already; 3.0 ones differ in a few keywords, rewritten
here: ``nullable: true`` adds ``"null"`` to the type, boolean ``exclusiveMinimum`` /
``exclusiveMaximum`` become numbers, ``example`` becomes ``examples``; OpenAPI-only keywords
(``discriminator``, ``xml``, ``externalDocs``, ``x-*``) are dropped; a discriminator's value
for each ``$ref`` branch of its ``oneOf``/``anyOf`` is written into that branch as a required
``const`` (the defaults of the branch a body names are filled in and judged).

Every schema converted here describes a request (a parameter or a request body), so a
property marked ``readOnly: true`` (on itself, or on the component its ``$ref`` names) is left
out, and out of ``required``: OpenAPI says such a property is not sent in a request and that
its being required applies to responses only (a ``Pet`` with a required read-only ``id``
made the model invent an id, and an MCP client sending only ``name`` was refused).

References stay references: ``#/components/schemas/Pet`` becomes ``#/$defs/Pet`` and the
schemas a tool reaches are copied into its ``$defs`` once each, so a recursive schema works
and a document whose schemas refer to each other many times over cannot blow up in size.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["SchemaConverter"]

_DROP = frozenset({"discriminator", "xml", "externalDocs", "nullable", "example"})
_PREFIX = "#/components/schemas/"
# deeper nesting in one schema (each component counted on its own) is cut: nothing is
# accepted there (fail closed), and the description says why
MAX_DEPTH = 64
_CUT = {"not": {}, "description": f"(nested deeper than {MAX_DEPTH} levels: toolhost cannot "
        "check a value here, so none is accepted)"}


class SchemaConverter:
    """Converts the schemas of one document; ``defs`` collects what they refer to."""

    def __init__(self, components: Mapping[str, Any], *, openapi_30: bool) -> None:
        self.components = components
        self.openapi_30 = openapi_30
        self.defs: dict[str, Any] = {}
        self._pending: list[str] = []  # components referred to, not converted yet
        self.missing: list[str] = []  # refs that point nowhere (the document check names them)

    def convert(self, node: Any) -> Any:
        """One schema object as JSON Schema 2020-12, its references into ``defs``.

        Each component it reaches is converted on its own, from depth 0, after it: nested
        inside the schema that refers to it, a chain of 25 components (`properties` and
        `allOf`) passed the depth cut, and a `maxLength` at its end was cut to "anything"
        (the model's value unchecked), or an `allOf` list to a mapping (refused)."""
        out = self._node(node, 0)
        while self._pending:
            name = self._pending.pop()
            self.defs[name] = self._node(self.components[name], 0)
        return out

    def take_defs(self) -> dict[str, Any]:
        """The ``$defs`` gathered since the last call (one tool's worth)."""
        defs, self.defs = self.defs, {}
        return defs

    def _node(self, node: Any, depth: int) -> Any:
        if depth > MAX_DEPTH:  # a list stays one (allOf, required): its schemas are cut
            if isinstance(node, list):
                return [dict(_CUT) if isinstance(item, (Mapping, list)) else item
                        for item in node]
            return dict(_CUT) if isinstance(node, Mapping) else node
        if isinstance(node, list):
            return [self._node(item, depth + 1) for item in node]
        if not isinstance(node, Mapping):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str):
            return self._ref(ref, node, depth)
        out: dict[str, Any] = {}
        for key, value in node.items():
            if not isinstance(key, str) or key in _DROP or key.startswith("x-"):
                continue
            if key in ("properties", "patternProperties", "$defs", "definitions",
                       "dependentSchemas"):
                if isinstance(value, Mapping):
                    out[key] = {str(k): self._node(v, depth + 1) for k, v in value.items()}
                continue
            if key in ("enum", "const", "default", "examples"):
                out[key] = value  # data, not schemas
                continue
            out[key] = self._node(value, depth + 1)
        if self.openapi_30:
            self._from_30(node, out)
        if isinstance(node.get("discriminator"), Mapping):
            _named_branches(node["discriminator"], out)
        props = node.get("properties")
        if isinstance(props, Mapping) and isinstance(out.get("properties"), dict):
            self._without_read_only(props, out)
        return out

    def _without_read_only(self, props: Mapping[Any, Any], out: dict[str, Any]) -> None:
        """Leave the read-only ``props`` out of ``out`` (see the module)."""
        gone = {str(k) for k, v in props.items() if self._read_only(v)}
        if not gone:
            return
        out["properties"] = {k: v for k, v in out["properties"].items() if k not in gone}
        required = out.get("required")
        if isinstance(required, list):
            out["required"] = [r for r in required if r not in gone]
            if not out["required"]:
                del out["required"]

    def _read_only(self, node: Any) -> bool:
        for _ in range(8):  # a $ref to a $ref ...: a few steps (a cycle is refused elsewhere)
            if not isinstance(node, Mapping):
                return False
            if node.get("readOnly") is True:
                return True
            ref = node.get("$ref")
            if not isinstance(ref, str) or not ref.startswith(_PREFIX):
                return False
            node = self.components.get(ref[len(_PREFIX):].replace("~1", "/")
                                       .replace("~0", "~"))
        return False

    def _from_30(self, node: Mapping[str, Any], out: dict[str, Any]) -> None:
        if node.get("nullable") is True:
            kind = out.get("type")
            if isinstance(kind, str):
                out["type"] = [kind, "null"]
            elif "enum" in out and None not in out["enum"]:
                out["enum"] = [*out["enum"], None]
        for word, bound in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
            flag = node.get(word)
            if isinstance(flag, bool):
                out.pop(word, None)
                if flag and bound in out:
                    out[word] = out.pop(bound)
        if "example" in node and "examples" not in out:
            out["examples"] = [node["example"]]

    def _ref(self, ref: str, node: Mapping[str, Any], depth: int) -> Any:
        if not ref.startswith(_PREFIX):
            return {}  # refs elsewhere were refused when the document was read
        name = ref[len(_PREFIX):].replace("~1", "/").replace("~0", "~")
        target = self.components.get(name)
        if target is None:
            self.missing.append(ref)
            return {}
        if name not in self.defs:
            self.defs[name] = {}  # placed first: a schema that refers to itself stops here
            self._pending.append(name)  # converted by ``convert``, from depth 0
        pointer = f"#/$defs/{_pointer_token(name)}"
        if self.openapi_30:  # 3.0: a Reference Object's other keys SHALL be ignored
            return {"$ref": pointer,
                    **{k: v for k, v in node.items() if k in ("description", "title")}}
        # 3.1 (JSON Schema 2020-12): keywords beside a $ref apply with it. Dropped, a
        # `{$ref: Name, maxLength: 5}` or a `pattern` beside one let the model send what the
        # document refuses, and toolhost's check passed it
        rest = self._node({k: v for k, v in node.items() if k != "$ref"}, depth + 1)
        return {"$ref": pointer, **(rest if isinstance(rest, Mapping) else {})}


def _named_branches(discriminator: Mapping[str, Any], out: dict[str, Any]) -> None:
    """Each ``$ref`` branch of ``out``'s ``oneOf``/``anyOf`` with the discriminator's value
    that names it written in (a required ``const``): the discriminator itself is dropped, and
    without it a branch's defaults could not be told from another's (an object that fits
    both was refused: ``toolhost.compile.defaults``), though the service picks by it."""
    prop = discriminator.get("propertyName")
    mapping = discriminator.get("mapping")
    mapping = mapping if isinstance(mapping, Mapping) else {}
    if not isinstance(prop, str):
        return
    for key in ("oneOf", "anyOf"):
        branches = out.get(key)
        if not isinstance(branches, list):
            continue
        for index, branch in enumerate(branches):
            ref = branch.get("$ref") if isinstance(branch, Mapping) else None
            if not isinstance(ref, str) or not ref.startswith("#/$defs/"):
                continue
            name = ref[len("#/$defs/"):].replace("~1", "/").replace("~0", "~")
            names = [str(k) for k, v in mapping.items() if v in (name, _PREFIX + name)] \
                or [name]  # (OpenAPI: a schema not in the mapping goes by its own name)
            if len(names) == 1:
                branches[index] = {"allOf": [branch], "properties": {prop: {"const": names[0]}},
                                   "required": [prop]}


def _pointer_token(name: str) -> str:
    # '/' and '~' escaped the way a JSON pointer reads them back
    return name.replace("~", "~0").replace("/", "~1")
