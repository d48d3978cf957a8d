; Module-level JavaScript-only patterns (class fields are `field_definition` in this
; grammar). Run by analyzers/extract/ecma.py with max start depth 1, like ecma-top.scm.
;
; Captures (imports and export clauses: as in ecma-top.scm):
;   import.default / import.namespace / import.name / import.alias / import.source
;   export.name / export.alias / export.specifier / export.source
;   method.class   name of the class declaring an arrow/function-valued field
;   method.name    the field name                        (class A { get = (url) => ... })
;   method         the arrow function / function expression

[
  (class_declaration
    name: (_) @method.class
    body: (class_body
      (field_definition
        property: (_) @method.name
        value: [(arrow_function) (function_expression)] @method)))
  (export_statement
    declaration: (class_declaration
      name: (_) @method.class
      body: (class_body
        (field_definition
          property: (_) @method.name
          value: [(arrow_function) (function_expression)] @method))))
]

; class fields with a value (`private baseUrl = environment.apiUrl`, `api = new ApiClient()`):
;   field.class, field.name, field.value
[
  (class_declaration
    name: (_) @field.class
    body: (class_body
      (field_definition
        property: (_) @field.name
        value: (_) @field.value)))
  (export_statement
    declaration: (class_declaration
      name: (_) @field.class
      body: (class_body
        (field_definition
          property: (_) @field.name
          value: (_) @field.value))))
]

; ---------------------------------------------------------------- imports and export clauses
; names and aliases are `_` (any node): `default` in `{ default as x }` / `{ x as default }` is an
; anonymous node in the JavaScript grammar
(import_statement
  (import_clause (identifier) @import.default)
  source: (string) @import.source)

(import_statement
  (import_clause (namespace_import (identifier) @import.namespace))
  source: (string) @import.source)

(import_statement
  (import_clause
    (named_imports
      (import_specifier name: _ @import.name alias: _? @import.alias)))
  source: (string) @import.source)

(export_statement
  (export_clause
    (export_specifier name: _ @export.name alias: _? @export.alias) @export.specifier)
  source: (string)? @export.source)
