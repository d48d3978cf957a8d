; Per-file facts for JavaScript, TypeScript and TSX (compiles for all three grammars).
; Read by analyzers/extract/ecma.py; grammar-specific patterns live in
; ecma-javascript.scm and ecma-typescript.scm. Each pattern has one "primary" capture
; (the first listed below for its group) that the extractor dispatches on.
;
; Captures (captures starting with "_" only serve predicates):
;   import.default     local name of a default import            (import x from 'm')
;   import.namespace   local name of a namespace import          (import * as ns from 'm')
;   import.name        imported name of a named import           (import {a as b} from 'm')
;   import.alias       local alias of a named import, if any
;   import.source      the module string of an import
;   require.local      binding of `const x = require('m')`
;   require.name       key destructured from require             (const {a, b: c} = require('m'))
;   require.alias      local binding of a renamed key (c above)
;   require.source     the module string of require(...)
;   export.declaration name of an exported declaration           (export const X / function f / class C)
;   export.statement   the whole export statement (checked for the `default` keyword)
;   export.value       expression of `export default <expression>`
;   export.name        name in an export clause                  (export { a as b })
;   export.alias       alias in an export clause
;   export.specifier   one export_specifier (its span)
;   export.source      module string of a re-export              (export {a} from './m', export * as ns from './m')
;   export.star        module string of `export * from './m'`
;   export.namespace   name of `export * as ns from './m'`
;   commonjs           a CommonJS export assignment (its span)
;   commonjs.default   right-hand side of `module.exports = x`
;   commonjs.name      property of `module.exports.foo = x` / `exports.foo = x`
;   commonjs.value     right-hand side of the two above
;   definition.function  name of a top-level function declaration
;   definition.class     name of a top-level class declaration
;   definition.variable  name of a top-level variable declarator
;   definition.kind      the declaration keyword (const / let), absent for `var`
;   definition.value     initializer of a top-level variable (roots of object constants)
;   method.class       name of the class declaring a method or an arrow-valued field
;   method.name        name of the method / field
;   method             the method_definition / function node
;   function           a named function node (declaration, arrow, function expression)
;   function.name      its binding identifier                    (function f / const f = () => ...)
;   function.member    left side of `obj.prop = (url) => ...`
;   function.default   anonymous `export default function () {}` / arrow
;   member.object      an object literal
;   member.key         key of one of its pairs or methods
;   member.value       value of the pair (or the method_definition itself)
;   scope              any function-like node (for parameters, locals and scopes)
;   local.kind         const / let keyword of a declaration
;   local.name         declared identifier (any nesting level)
;   local.value        its initializer
;   assigned           identifier assigned after its declaration (x = ..., x += ...)
;   client             a client creation (its span)
;   client.name        the binding (identifier, or `this.x` member expression)
;   client.library     receiver of .create()/.extend() (axios, ky, ofetch, $fetch, an alias)
;   client.arguments   the arguments of .create()/.extend()
;   class              a class declaration
;   class.name         its name
;   call               any call expression with an argument list
;   call.function      its callee expression
;   call.arguments     its arguments node
;   server.name        variable bound to express() / express.Router() / Router() / fastify()
;   server.factory     the factory callee

; ---------------------------------------------------------------- imports
(import_statement
  (import_clause (identifier) @import.default)
  source: (string) @import.source)

(import_statement
  (import_clause (namespace_import (identifier) @import.namespace))
  source: (string) @import.source)

(import_statement
  (import_clause
    (named_imports
      (import_specifier name: (_) @import.name alias: (_)? @import.alias)))
  source: (string) @import.source)

(variable_declarator
  name: (identifier) @require.local
  value: (call_expression
    function: (identifier) @_require
    arguments: (arguments . (string) @require.source .))
  (#eq? @_require "require"))

(variable_declarator
  name: (object_pattern (shorthand_property_identifier_pattern) @require.name)
  value: (call_expression
    function: (identifier) @_require
    arguments: (arguments . (string) @require.source .))
  (#eq? @_require "require"))

(variable_declarator
  name: (object_pattern
    (pair_pattern key: (_) @require.name value: (identifier) @require.alias))
  value: (call_expression
    function: (identifier) @_require
    arguments: (arguments . (string) @require.source .))
  (#eq? @_require "require"))

; ---------------------------------------------------------------- exports
(export_statement
  declaration: [
    (lexical_declaration (variable_declarator name: (identifier) @export.declaration))
    (variable_declaration (variable_declarator name: (identifier) @export.declaration))
    (function_declaration name: (_) @export.declaration)
    (generator_function_declaration name: (_) @export.declaration)
    (class_declaration name: (_) @export.declaration)
  ]) @export.statement

(export_statement value: (_) @export.value) @export.statement

(export_statement
  (export_clause
    (export_specifier name: (_) @export.name alias: (_)? @export.alias) @export.specifier)
  source: (string)? @export.source)

(export_statement "*" source: (string) @export.star)

(export_statement
  (namespace_export (_) @export.namespace)
  source: (string) @export.source)

(assignment_expression
  left: (member_expression
    object: (identifier) @_module
    property: (property_identifier) @_exports)
  right: (_) @commonjs.default
  (#eq? @_module "module")
  (#eq? @_exports "exports")) @commonjs

(assignment_expression
  left: (member_expression
    object: (member_expression
      object: (identifier) @_module
      property: (property_identifier) @_exports)
    property: (property_identifier) @commonjs.name)
  right: (_) @commonjs.value
  (#eq? @_module "module")
  (#eq? @_exports "exports")) @commonjs

(assignment_expression
  left: (member_expression
    object: (identifier) @_exports
    property: (property_identifier) @commonjs.name)
  right: (_) @commonjs.value
  (#eq? @_exports "exports")) @commonjs

; ---------------------------------------------------------------- top-level definitions
(program
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
  ])

; ---------------------------------------------------------------- classes and methods
(class_declaration name: (_) @class.name) @class

(class_declaration
  name: (_) @method.class
  body: (class_body (method_definition name: (_) @method.name) @method))

; ---------------------------------------------------------------- named functions
(function_declaration name: (_) @function.name) @function
(generator_function_declaration name: (_) @function.name) @function

(variable_declarator
  name: (identifier) @function.name
  value: [(arrow_function) (function_expression) (generator_function)] @function)

(assignment_expression
  left: (member_expression) @function.member
  right: [(arrow_function) (function_expression)] @function)

(export_statement value: [(arrow_function) (function_expression)] @function.default)

; ---------------------------------------------------------------- object literal members
(object
  [
    (pair key: (_) @member.key value: (_) @member.value)
    (method_definition name: (_) @member.key) @member.value
  ]) @member.object

; ---------------------------------------------------------------- scopes, locals
[
  (function_declaration)
  (generator_function_declaration)
  (function_expression)
  (generator_function)
  (arrow_function)
  (method_definition)
] @scope

(lexical_declaration
  kind: _ @local.kind
  (variable_declarator name: (identifier) @local.name value: (_) @local.value))

(variable_declaration
  (variable_declarator name: (identifier) @local.name value: (_) @local.value))

(assignment_expression left: (identifier) @assigned)
(augmented_assignment_expression left: (identifier) @assigned)

; ---------------------------------------------------------------- HTTP clients
(variable_declarator
  name: (identifier) @client.name
  value: (call_expression
    function: (member_expression
      object: (_) @client.library
      property: (property_identifier) @_factory)
    arguments: (arguments) @client.arguments)
  (#any-of? @_factory "create" "extend")) @client

(export_statement
  value: (call_expression
    function: (member_expression
      object: (_) @client.library
      property: (property_identifier) @_factory)
    arguments: (arguments) @client.arguments)
  (#any-of? @_factory "create" "extend")) @client

(assignment_expression
  left: (member_expression object: (this)) @client.name
  right: (call_expression
    function: (member_expression
      object: (_) @client.library
      property: (property_identifier) @_factory)
    arguments: (arguments) @client.arguments)
  (#any-of? @_factory "create" "extend")) @client

; ---------------------------------------------------------------- calls
(call_expression
  function: (_) @call.function
  arguments: (arguments) @call.arguments) @call

; ---------------------------------------------------------------- backend servers (Express / Fastify)
(variable_declarator
  name: (identifier) @server.name
  value: (call_expression function: (_) @server.factory)
  (#match? @server.factory "^(express|express\\.Router|Router|[Ff]astify)$"))
