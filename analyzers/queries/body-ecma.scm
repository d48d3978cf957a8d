; What the body rules (`pure`, `no-hardcoded-config`) read of a JavaScript, TypeScript or
; TSX file (a Vue or Svelte `<script>` block too): its functions, their JSDoc and calls; the
; literals inside functions and the places where a literal is no setting; a config module's
; module-level values. Compiles for the three grammars; body-typescript.scm (TypeScript and
; TSX) and body-javascript.scm (JavaScript) add what only their grammar has. Read by
; analyzers/body_rules.py, which compiles these files once per purpose: each pattern's `use`
; setting (#set! use ...) says which ("named" and "pure": the pure rule; "scope" and
; "literal": the hard-coded config rule; "config": reading a config module).
;
; Captures (captures starting with "_" only serve predicates):
;   function            a named function: a declaration, a method, a function or arrow
;                       function bound to a variable or an object key, an `export default`
;                       function (named `default` when anonymous)
;   function.name       its name (absent for an anonymous default export)
;   function.decorated  a decorated method, with
;   function.decorator  one of its decorators
;   function.documented a function right after a comment (its JSDoc), with
;   function.doc        that comment
;   method              a method of a class, with
;   method.class        the class's name
;   call                a call (or `new`) whose callee is a name or a member chain, with
;   call.callee         that callee (`fetch`, `console.log`, `this.log`, `fs.promises.readFile`)
;   scope               any function, arrow functions included (a literal inside one may be judged)
;   literal.number      a number literal
;   literal.string      a string literal, or a template string (those with substitutions
;                       are left out by the host)
;   literal.negative    `-` applied to a number literal (one literal: `-5`)
;   skip                a region whose literals are no settings: imports and re-exports,
;                       `require()`/`import()` arguments, object keys, subscripts, directive
;                       strings (`'use strict'`); in TypeScript also types
;   config.name         a module-level `const`/`let`/`var` binding (exported or not), with
;   config.value        its value
;   config.default      the value of `export default ...` or `module.exports = ...`

; ---------------------------------------------------------------- functions (pure)
((function_declaration name: (identifier) @function.name) @function (#set! use "named"))
((generator_function_declaration name: (identifier) @function.name) @function (#set! use "named"))
((method_definition name: (_) @function.name) @function (#set! use "named"))
((variable_declarator
   name: (identifier) @function.name
   value: [(arrow_function) (function_expression)] @function)
 (#set! use "named"))
((pair
   key: (property_identifier) @function.name
   value: [(arrow_function) (function_expression)] @function)
 (#set! use "named"))
((export_statement value: [(arrow_function) (function_expression)] @function) (#set! use "named"))

((comment) @function.doc
 .
 [(function_declaration) (generator_function_declaration) (method_definition)] @function.documented
 (#set! use "pure"))
((comment) @function.doc
 .
 (export_statement
   [(function_declaration) (generator_function_declaration)] @function.documented)
 (#set! use "pure"))
((comment) @function.doc
 .
 (export_statement value: [(arrow_function) (function_expression)] @function.documented)
 (#set! use "pure"))
((comment) @function.doc
 .
 [(lexical_declaration (variable_declarator value: [(arrow_function) (function_expression)] @function.documented))
  (variable_declaration (variable_declarator value: [(arrow_function) (function_expression)] @function.documented))]
 (#set! use "pure"))
((comment) @function.doc
 .
 (export_statement
   declaration: [(lexical_declaration
                   (variable_declarator value: [(arrow_function) (function_expression)] @function.documented))
                 (variable_declaration
                   (variable_declarator value: [(arrow_function) (function_expression)] @function.documented))])
 (#set! use "pure"))

([(class_declaration name: (_) @method.class body: (class_body (method_definition) @method))
  (class name: (_) @method.class body: (class_body (method_definition) @method))]
 (#set! use "pure"))

((call_expression function: [(identifier) (member_expression)] @call.callee) @call (#set! use "pure"))
((new_expression constructor: [(identifier) (member_expression)] @call.callee) @call (#set! use "pure"))

; ---------------------------------------------------------------- literals (no-hardcoded-config)
([(function_declaration) (generator_function_declaration) (function_expression) (arrow_function)
  (method_definition)] @scope
 (#set! use "scope"))

((number) @literal.number (#set! use "literal"))
((string) @literal.string (#set! use "literal"))
((template_string) @literal.string (#set! use "literal"))
((unary_expression operator: "-" argument: (number)) @literal.negative (#set! use "literal"))

((import_statement) @skip (#set! use "literal"))
((export_statement source: (_) @skip) (#set! use "literal"))
((pair key: (_) @skip) (#set! use "literal"))
((subscript_expression index: (_) @skip) (#set! use "literal"))
((expression_statement . (string) @skip .) (#set! use "literal"))
((call_expression function: (identifier) @_f arguments: (arguments) @skip)
 (#eq? @_f "require")
 (#set! use "literal"))
((call_expression function: (import) arguments: (arguments) @skip) (#set! use "literal"))

; ---------------------------------------------------------------- a config module's values
((program
   [(lexical_declaration (variable_declarator name: (identifier) @config.name value: (_) @config.value))
    (variable_declaration (variable_declarator name: (identifier) @config.name value: (_) @config.value))])
 (#set! use "config"))
((program
   (export_statement
     declaration: [(lexical_declaration
                     (variable_declarator name: (identifier) @config.name value: (_) @config.value))
                   (variable_declaration
                     (variable_declarator name: (identifier) @config.name value: (_) @config.value))]))
 (#set! use "config"))
((program (export_statement value: (_) @config.default)) (#set! use "config"))
((program
   (expression_statement
     (assignment_expression
       left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
       right: (_) @config.default)))
 (#eq? @_module "module")
 (#eq? @_exports "exports")
 (#set! use "config"))
