; What the stub check (analyzers/stages/stubs.py) reads of a TypeScript, TSX or JavaScript
; file: named functions and methods with a block body, the body shapes that do nothing,
; comments, and logging calls with a literal first argument. The host joins a function's
; body with a shape by node, judges an empty body itself (a block without any statement or
; comment), applies the exemptions (constructors, Angular lifecycle hooks, `noop`s,
; declaration files) and reads the texts (TODO markers, "not implemented" phrases).
;
; Functions are only the named ones: function declarations, class and object methods,
; and arrow functions or function expressions bound by a top-level or exported
; `const`/`let`. A callback written in place (`() => {}` as an argument, a default
; parameter, a JSX attribute, a class field) is never one. Interface members, abstract
; methods and overload signatures have no body and are not matched.
;
; Captures (captures starting with "_" only serve predicates):
;   function          a named function or method, with
;   function.name     its name and
;   function.body     its block
;   shape.return      a block that is only `return null`, `return undefined`, `return {}` or
;                     `return []`, with
;   shape.value       the returned value (the host keeps an empty object or array only)
;   shape.throw       a block that is only `throw new Error("...")`, with
;   shape.message     the message (the host keeps "not implemented"-like ones)
;   comment           a comment
;   log.message       the literal first argument of `console.log(...)` or any `x.log`,
;                     `x.info`, `x.warn`, `x.debug`, `x.error`, `x.trace` call

(function_declaration
  name: (identifier) @function.name
  body: (statement_block) @function.body) @function

(generator_function_declaration
  name: (identifier) @function.name
  body: (statement_block) @function.body) @function

(method_definition
  name: (_) @function.name
  body: (statement_block) @function.body) @function

(program
  (lexical_declaration
    (variable_declarator
      name: (identifier) @function.name
      value: [(arrow_function body: (statement_block) @function.body)
              (function_expression body: (statement_block) @function.body)]) @function))

(export_statement
  declaration: (lexical_declaration
    (variable_declarator
      name: (identifier) @function.name
      value: [(arrow_function body: (statement_block) @function.body)
              (function_expression body: (statement_block) @function.body)]) @function))

((statement_block . (return_statement [(null) (undefined) (object) (array)] @shape.value) .) @shape.return)

((statement_block .
   (throw_statement
     (new_expression
       constructor: (identifier) @_error
       arguments: (arguments . [(string) (template_string)] @shape.message))) .) @shape.throw
 (#eq? @_error "Error"))

(comment) @comment

((call_expression
   function: (member_expression property: (property_identifier) @_fn)
   arguments: (arguments . [(string) (template_string)] @log.message))
 (#any-of? @_fn "log" "info" "warn" "debug" "error" "trace"))
