; JavaScript-only patterns (class fields are `field_definition` in this grammar).
; Read by analyzers/extract/ecma.py after ecma-common.scm; capture names mean the same.
;
; Captures:
;   method.class   name of the class declaring an arrow/function-valued field
;   method.name    the field name                        (class A { get = (url) => ... })
;   method         the arrow function / function expression

(class_declaration
  name: (_) @method.class
  body: (class_body
    (field_definition
      property: (_) @method.name
      value: [(arrow_function) (function_expression)] @method)))
