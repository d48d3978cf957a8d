; Module loading outside import statements and CommonJS exports, anywhere in a JavaScript,
; TypeScript or TSX tree (compiles for all three grammars). analyzers/extract/ecma.py adds
; these patterns to ecma-deep.scm's (one query, one traversal) for text that may have such
; facts (it names `require`, `exports`, `import.meta` or has an `import(`): other files never
; pay for them (their predicates are evaluated on calls and member assignments).
;
; Captures (captures starting with "_" only serve predicates):
;   require.source     the literal specifier of `require('m')` (a string, or a template without
;                      substitutions), wherever the call is
;   require.call       that call
;   require.local      binding of `const x = require('m')`
;   require.name       key destructured from require            (const {a, b: c} = require('m'))
;   require.alias      local binding of a renamed key (c above)
;   require.effect     the call is a statement of its own        (require('./polyfill');)
;   dynamic.source     the literal specifier of `import('m')`
;   glob.source        a literal pattern of `import.meta.glob('./pages/*.ts')` (each string of
;                      an array of patterns)
;   guard              the block of a `try` statement (what is imported in it is guarded)
;   commonjs.any       an assignment to `module.exports`, `module.exports.x`, `exports.x`,
;                      `exports[...]` anywhere: those the module-level patterns of ecma-top.scm
;                      do not also capture make the module's exports open
;   exports.open       `Object.assign(module.exports, ...)` / `Object.assign(exports, ...)`,
;                      `Object.defineProperty(exports, 'x', ...)` (but `__esModule`), a
;                      statement `__exportStar(..., exports)` (tsc's `export *`): exports made
;                      at run time

; ---------------------------------------------------------------- module loading
; require(): bound, destructured, a statement of its own, or any (the last matches them all;
; the extractor keeps it for the calls no other pattern captured)
((variable_declarator
   name: (identifier) @require.local
   value: (call_expression
     function: (identifier) @_require
     arguments: (arguments . [(string) (template_string)] @require.source .)) @require.call)
 (#eq? @_require "require"))

((variable_declarator
   name: (object_pattern
     [(shorthand_property_identifier_pattern) @require.name
      (object_assignment_pattern left: (shorthand_property_identifier_pattern) @require.name)])
   value: (call_expression
     function: (identifier) @_require
     arguments: (arguments . [(string) (template_string)] @require.source .)) @require.call)
 (#eq? @_require "require"))

((variable_declarator
   name: (object_pattern
     (pair_pattern key: (_) @require.name value: (identifier) @require.alias))
   value: (call_expression
     function: (identifier) @_require
     arguments: (arguments . [(string) (template_string)] @require.source .)) @require.call)
 (#eq? @_require "require"))

((expression_statement
   (call_expression
     function: (identifier) @_require
     arguments: (arguments . [(string) (template_string)] @require.source .)) @require.call @require.effect)
 (#eq? @_require "require"))

((call_expression
   function: (identifier) @_require
   arguments: (arguments . [(string) (template_string)] @require.source .)) @require.call
 (#eq? @_require "require"))

(call_expression
  function: (import)
  arguments: (arguments . [(string) (template_string)] @dynamic.source))

((call_expression
   function: (member_expression object: (meta_property) property: (property_identifier) @_glob)
   arguments: (arguments . [(string) (template_string)] @glob.source))
 (#any-of? @_glob "glob" "globEager"))

((call_expression
   function: (member_expression object: (meta_property) property: (property_identifier) @_glob)
   arguments: (arguments . (array [(string) (template_string)] @glob.source)))
 (#any-of? @_glob "glob" "globEager"))

(try_statement body: (statement_block) @guard)

; ---------------------------------------------------------------- CommonJS exports anywhere
((assignment_expression
   left: (member_expression
     object: (identifier) @_module
     property: (property_identifier) @_exports)) @commonjs.any
 (#eq? @_module "module")
 (#eq? @_exports "exports"))

((assignment_expression
   left: [(member_expression
           object: (member_expression
             object: (identifier) @_module
             property: (property_identifier) @_exports))
          (subscript_expression
           object: (member_expression
             object: (identifier) @_module
             property: (property_identifier) @_exports))]) @commonjs.any
 (#eq? @_module "module")
 (#eq? @_exports "exports"))

((assignment_expression
   left: [(member_expression object: (identifier) @_exports)
          (subscript_expression object: (identifier) @_exports)]) @commonjs.any
 (#eq? @_exports "exports"))

((call_expression
   function: (member_expression object: (identifier) @_object property: (property_identifier) @_assign)
   arguments: (arguments . [(identifier) @_exports
                            (member_expression object: (identifier) property: (property_identifier) @_exports)]
                         . (_))) @exports.open
 (#eq? @_assign "assign")
 (#eq? @_object "Object")
 (#eq? @_exports "exports"))

((call_expression
   function: (member_expression object: (identifier) @_object property: (property_identifier) @_define)
   arguments: (arguments . (identifier) @_exports . (string) @_key)) @exports.open
 (#eq? @_object "Object")
 (#eq? @_define "defineProperty")
 (#eq? @_exports "exports")
 (#not-match? @_key "^.__esModule.$"))

((expression_statement
   (call_expression
     function: [(identifier) @_star (member_expression property: (property_identifier) @_star)]
     arguments: (arguments (identifier) @_exports .)) @exports.open)
 (#eq? @_star "__exportStar")
 (#eq? @_exports "exports"))
