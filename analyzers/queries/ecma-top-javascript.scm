; Module-level JavaScript-only patterns (class fields are `field_definition` in this
; grammar). Run by analyzers/extract/ecma.py with max start depth 1, like ecma-top.scm.
;
; Captures:
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
