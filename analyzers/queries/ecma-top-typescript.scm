; Module-level TypeScript/TSX-only patterns. Run by analyzers/extract/ecma.py with max start
; depth 1, like ecma-top.scm; capture names shared with that file mean the same.
;
; Captures (captures starting with "_" only serve predicates):
;   enum.name            name of an enum                       (enum E { A = '/a' })
;   enum.member          name of a member with an initializer
;   enum.value           its initializer
;   definition.enum      name of a top-level enum (a "variable" definition)
;   definition.class     name of a top-level abstract class
;   import.default / import.namespace / import.name / import.alias / import.source, and
;   import.type          the `type` keyword of `import type ...` / `import {type a}`
;   require.local        binding of `import x = require('m')`
;   require.source       its module string
;   require.call         the import_require_clause
;   export.declaration   name of an exported enum / abstract class / interface / type alias /
;                        namespace / `declare` declaration / overload signature / import alias
;   export.statement     the whole export statement
;   export.name / export.alias / export.specifier / export.source (export clauses), and
;   export.type          the `type` keyword of `export type {a}` / `export {type a}`
;   export.assign        the expression of `export = x`
;   export.global        the name of `export as namespace X` (a UMD global)
;   declared.module      the name string of `declare module 'x'` (an ambient module)
;   class / class.name   an abstract class declaration and its name
;   method.class         name of the class declaring a method or arrow-valued field
;   method.name          the method / field name
;   method               the method_definition / arrow function / function expression
;   angular.class        class holding an Angular HttpClient
;   angular.name         the property holding it: constructor parameter property
;                        (private http: HttpClient), typed field (http: HttpClient) or
;                        injected field (http = inject(HttpClient))

; ---------------------------------------------------------------- enums
[
  (enum_declaration
    name: (_) @enum.name
    body: (enum_body (enum_assignment name: (_) @enum.member value: (_) @enum.value)))
  (export_statement
    declaration: (enum_declaration
      name: (_) @enum.name
      body: (enum_body (enum_assignment name: (_) @enum.member value: (_) @enum.value))))
]

[
  (enum_declaration name: (_) @definition.enum)
  (abstract_class_declaration name: (_) @definition.class)
  (export_statement
    declaration: [
      (enum_declaration name: (_) @definition.enum)
      (abstract_class_declaration name: (_) @definition.class)
    ])
]

(export_statement
  declaration: [
    (enum_declaration name: (_) @export.declaration)
    (abstract_class_declaration name: (_) @export.declaration)
    (interface_declaration name: (_) @export.declaration)
    (type_alias_declaration name: (_) @export.declaration)
    (internal_module name: (_) @export.declaration)
    (module name: (identifier) @export.declaration)
    (function_signature name: (_) @export.declaration)
    (import_alias . (identifier) @export.declaration)
    (ambient_declaration
      [
        (function_signature name: (_) @export.declaration)
        (lexical_declaration (variable_declarator name: (identifier) @export.declaration))
        (variable_declaration (variable_declarator name: (identifier) @export.declaration))
        (class_declaration name: (_) @export.declaration)
        (abstract_class_declaration name: (_) @export.declaration)
        (enum_declaration name: (_) @export.declaration)
        (interface_declaration name: (_) @export.declaration)
        (type_alias_declaration name: (_) @export.declaration)
        (internal_module name: (_) @export.declaration)
        (module name: (identifier) @export.declaration)
      ])
  ]) @export.statement

(export_statement "=" . (_) @export.assign)

(export_statement "as" "namespace" (identifier) @export.global)

; ---------------------------------------------------------------- ambient modules
(ambient_declaration (module name: (string) @declared.module))

; ---------------------------------------------------------------- imports and export clauses
; names and aliases are `_` (any node): `default` in `{ default as x }` / `{ x as default }` is an
; anonymous node in the JavaScript grammar
(import_statement
  "type"? @import.type
  (import_clause (identifier) @import.default)
  source: (string) @import.source)

(import_statement
  "type"? @import.type
  (import_clause (namespace_import (identifier) @import.namespace))
  source: (string) @import.source)

(import_statement
  "type"? @import.type
  (import_clause
    (named_imports
      (import_specifier "type"? @import.type name: _ @import.name alias: _? @import.alias)))
  source: (string) @import.source)

(import_statement
  (import_require_clause (identifier) @require.local source: (string) @require.source) @require.call)

(export_statement
  "type"? @export.type
  (export_clause
    (export_specifier "type"? @export.type name: _ @export.name alias: _? @export.alias) @export.specifier)
  source: (string)? @export.source)

; ---------------------------------------------------------------- classes
[
  (abstract_class_declaration name: (_) @class.name) @class
  (export_statement declaration: (abstract_class_declaration name: (_) @class.name) @class)
]

[
  (abstract_class_declaration
    name: (_) @method.class
    body: (class_body (method_definition name: (_) @method.name) @method))
  (export_statement
    declaration: (abstract_class_declaration
      name: (_) @method.class
      body: (class_body (method_definition name: (_) @method.name) @method)))
]

[
  (class_declaration
    name: (_) @method.class
    body: (class_body
      (public_field_definition
        name: (_) @method.name
        value: [(arrow_function) (function_expression)] @method)))
  (abstract_class_declaration
    name: (_) @method.class
    body: (class_body
      (public_field_definition
        name: (_) @method.name
        value: [(arrow_function) (function_expression)] @method)))
  (export_statement
    declaration: [
      (class_declaration
        name: (_) @method.class
        body: (class_body
          (public_field_definition
            name: (_) @method.name
            value: [(arrow_function) (function_expression)] @method)))
      (abstract_class_declaration
        name: (_) @method.class
        body: (class_body
          (public_field_definition
            name: (_) @method.name
            value: [(arrow_function) (function_expression)] @method)))
    ])
]

; ---------------------------------------------------------------- Angular HttpClient
; the three ways a class holds one, each top-level or exported
([
  (class_declaration
    name: (_) @angular.class
    body: (class_body
      (method_definition
        name: (_) @_ctor
        parameters: (formal_parameters
          (required_parameter
            [(accessibility_modifier) "readonly"]
            pattern: (identifier) @angular.name
            type: (type_annotation (type_identifier) @_type))))))
  (export_statement
    declaration: (class_declaration
      name: (_) @angular.class
      body: (class_body
        (method_definition
          name: (_) @_ctor
          parameters: (formal_parameters
            (required_parameter
              [(accessibility_modifier) "readonly"]
              pattern: (identifier) @angular.name
              type: (type_annotation (type_identifier) @_type)))))))
 ]
  (#eq? @_ctor "constructor")
  (#eq? @_type "HttpClient"))

([
  (class_declaration
    name: (_) @angular.class
    body: (class_body
      (public_field_definition
        name: (_) @angular.name
        type: (type_annotation (type_identifier) @_type))))
  (export_statement
    declaration: (class_declaration
      name: (_) @angular.class
      body: (class_body
        (public_field_definition
          name: (_) @angular.name
          type: (type_annotation (type_identifier) @_type)))))
 ]
  (#eq? @_type "HttpClient"))

([
  (class_declaration
    name: (_) @angular.class
    body: (class_body
      (public_field_definition
        name: (_) @angular.name
        value: (call_expression
          function: (identifier) @_inject
          arguments: (arguments . (identifier) @_type)))))
  (export_statement
    declaration: (class_declaration
      name: (_) @angular.class
      body: (class_body
        (public_field_definition
          name: (_) @angular.name
          value: (call_expression
            function: (identifier) @_inject
            arguments: (arguments . (identifier) @_type))))))
 ]
  (#eq? @_inject "inject")
  (#eq? @_type "HttpClient"))

; class fields with a value (`private baseUrl = environment.apiUrl`, `api = new ApiClient()`):
;   field.class, field.name, field.value
[
  (class_declaration
    name: (_) @field.class
    body: (class_body
      (public_field_definition
        name: (_) @field.name
        value: (_) @field.value)))
  (export_statement
    declaration: (class_declaration
      name: (_) @field.class
      body: (class_body
        (public_field_definition
          name: (_) @field.name
          value: (_) @field.value))))
  (abstract_class_declaration
    name: (_) @field.class
    body: (class_body
      (public_field_definition
        name: (_) @field.name
        value: (_) @field.value)))
  (export_statement
    declaration: (abstract_class_declaration
      name: (_) @field.class
      body: (class_body
        (public_field_definition
          name: (_) @field.name
          value: (_) @field.value))))
]
