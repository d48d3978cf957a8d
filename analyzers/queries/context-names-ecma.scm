; The names a TypeScript or JavaScript file uses, for the context manifests' forbidden
; symbols (analyzers/context.py): identifiers, property names (`config.retryCount`,
; `{ retryCount: 3 }`), shorthand properties and type names; never the text of a string,
; a template's literal parts or a comment.
;
; Captures:
;   name   one identifier or property name
[
  (identifier)
  (property_identifier)
  (shorthand_property_identifier)
  (shorthand_property_identifier_pattern)
] @name
