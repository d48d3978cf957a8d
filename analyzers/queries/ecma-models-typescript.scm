; Module-level data classes of TypeScript and TSX files: what may declare the fields of a
; request or response body (model.DataModel). Run by analyzers/extract/ecma_models.py with
; max start depth 1 (patterns rooted at children of `program`), like ecma-top*.scm; the
; members of each body are read in Python.
;
; Captures:
;   model.class         a class declaration (abstract or not), exported or not
;   model.interface     an interface declaration
;   model.alias         a type alias whose value is an object type or an intersection
;   model.name          its name
;   model.heritage      a class's heritage (extends / implements clauses)
;   model.extends       an interface's extends clause
;   model.body          the class body, interface body or object type
;   model.intersection  the intersection type of `type X = A & { ... }`

[
  (class_declaration name: (_) @model.name (class_heritage)? @model.heritage body: (class_body) @model.body)
  (abstract_class_declaration name: (_) @model.name (class_heritage)? @model.heritage body: (class_body) @model.body)
  (export_statement
    declaration: [
      (class_declaration name: (_) @model.name (class_heritage)? @model.heritage body: (class_body) @model.body)
      (abstract_class_declaration name: (_) @model.name (class_heritage)? @model.heritage
        body: (class_body) @model.body)
    ])
] @model.class

[
  (interface_declaration name: (_) @model.name (extends_type_clause)? @model.extends body: (_) @model.body)
  (export_statement
    declaration: (interface_declaration name: (_) @model.name (extends_type_clause)? @model.extends
      body: (_) @model.body))
] @model.interface

[
  (type_alias_declaration name: (_) @model.name value: (object_type) @model.body)
  (type_alias_declaration name: (_) @model.name value: (intersection_type) @model.intersection)
  (export_statement
    declaration: [
      (type_alias_declaration name: (_) @model.name value: (object_type) @model.body)
      (type_alias_declaration name: (_) @model.name value: (intersection_type) @model.intersection)
    ])
] @model.alias
