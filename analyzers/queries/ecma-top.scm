; Module-level facts for JavaScript, TypeScript and TSX (compiles for all three grammars).
; Run by analyzers/extract/ecma.py with QueryCursor.set_max_start_depth(1): every pattern
; is rooted at a child of `program`, so the cursor never walks function bodies for these.
; Grammar-specific module-level patterns: ecma-top-javascript.scm / ecma-top-typescript.scm.
; Patterns anywhere in the tree: ecma-deep.scm.
;
; Captures (captures starting with "_" only serve predicates):
;   import.default       local name of a default import        (import x from 'm')
;   import.namespace     local name of a namespace import      (import * as ns from 'm')
;   import.name          imported name of a named import       (import {a as b} from 'm')
;   import.alias         local alias of a named import, if any
;   import.type          the `type` keyword of `import type ...` / `import {type a}` (TS)
;   import.source        module string of an import (alone: `import './app.css'`)
;   (the patterns of import clauses are in ecma-top-javascript.scm / ecma-top-typescript.scm,
;   TypeScript's with `type`; require() is found anywhere by ecma-loading.scm)
;   export.declaration   name of an exported declaration       (export const X / function f / class C)
;   export.pattern       a destructuring pattern exported      (export const {a, b: c} = o / [x, y] = a)
;   export.statement     the whole export statement (checked for the `default` keyword)
;   export.value         expression of `export default <expression>`
;   export.name          name in an export clause              (export { a as b })
;   export.alias         alias in an export clause
;   export.type          the `type` keyword of `export type {a}` / `export {type a}` (TS)
;   export.specifier     one export_specifier (its span)
;   export.source        module string of a re-export          (export {a} from './m', export * as ns from './m')
;   (export clauses are matched in ecma-top-javascript.scm / ecma-top-typescript.scm)
;   export.star          module string of `export * from './m'`
;   export.namespace     name of `export * as ns from './m'`
;   commonjs             a CommonJS export assignment (its span; ecma-loading.scm's commonjs.any
;                        captures the same node, and every other one makes the exports open)
;   commonjs.default     right-hand side of `module.exports = x`
;   commonjs.name        property of `module.exports.foo = x` / `exports.foo = x`
;   commonjs.value       right-hand side of the two above
;   definition.function  name of a top-level function declaration
;   definition.class     name of a top-level class declaration
;   definition.variable  name of a top-level variable declarator
;   definition.kind      the declaration keyword (const / let), absent for `var`
;   definition.value     initializer of a top-level variable (constants, object-literal roots)
;   class                a top-level class declaration
;   class.name           its name
;   method.class         name of the class declaring a method
;   method.name          the method name
;   method               the method_definition node
;   function.default     anonymous `export default function () {}` / `export default () => ...`
;   (apps and routers bound to variables, `server.*`, are found anywhere by ecma-deep.scm)

; ---------------------------------------------------------------- imports
; an import only for its effect: the source is the statement's first named child
(import_statement . source: (string) @import.source)

; ---------------------------------------------------------------- exports
(export_statement
  declaration: [
    (lexical_declaration (variable_declarator name: (identifier) @export.declaration))
    (variable_declaration (variable_declarator name: (identifier) @export.declaration))
    (function_declaration name: (_) @export.declaration)
    (generator_function_declaration name: (_) @export.declaration)
    (class_declaration name: (_) @export.declaration)
  ]) @export.statement

(export_statement
  declaration: [
    (lexical_declaration (variable_declarator name: [(object_pattern) (array_pattern)] @export.pattern))
    (variable_declaration (variable_declarator name: [(object_pattern) (array_pattern)] @export.pattern))
  ]) @export.statement

(export_statement value: (_) @export.value) @export.statement

(export_statement "*" source: (string) @export.star)

(export_statement
  (namespace_export (_) @export.namespace)
  source: (string) @export.source)

(export_statement value: [(arrow_function) (function_expression)] @function.default)

(expression_statement
  (assignment_expression
    left: (member_expression
      object: (identifier) @_module
      property: (property_identifier) @_exports)
    right: (_) @commonjs.default) @commonjs
  (#eq? @_module "module")
  (#eq? @_exports "exports"))

(expression_statement
  (assignment_expression
    left: (member_expression
      object: (member_expression
        object: (identifier) @_module
        property: (property_identifier) @_exports)
      property: (property_identifier) @commonjs.name)
    right: (_) @commonjs.value) @commonjs
  (#eq? @_module "module")
  (#eq? @_exports "exports"))

(expression_statement
  (assignment_expression
    left: (member_expression
      object: (identifier) @_exports
      property: (property_identifier) @commonjs.name)
    right: (_) @commonjs.value) @commonjs
  (#eq? @_exports "exports"))

; ---------------------------------------------------------------- top-level definitions
[
  (function_declaration name: (_) @definition.function)
  (generator_function_declaration name: (_) @definition.function)
  (class_declaration name: (_) @definition.class)
  (lexical_declaration
    kind: _ @definition.kind
    (variable_declarator name: (identifier) @definition.variable value: (_)? @definition.value))
  (variable_declaration
    (variable_declarator name: (identifier) @definition.variable value: (_)? @definition.value))
  (export_statement
    declaration: [
      (function_declaration name: (_) @definition.function)
      (generator_function_declaration name: (_) @definition.function)
      (class_declaration name: (_) @definition.class)
      (lexical_declaration
        kind: _ @definition.kind
        (variable_declarator name: (identifier) @definition.variable value: (_)? @definition.value))
      (variable_declaration
        (variable_declarator name: (identifier) @definition.variable value: (_)? @definition.value))
    ])
]

; ---------------------------------------------------------------- classes and methods
[
  (class_declaration name: (_) @class.name) @class
  (export_statement declaration: (class_declaration name: (_) @class.name) @class)
]

[
  (class_declaration
    name: (_) @method.class
    body: (class_body (method_definition name: (_) @method.name) @method))
  (export_statement
    declaration: (class_declaration
      name: (_) @method.class
      body: (class_body (method_definition name: (_) @method.name) @method)))
]
