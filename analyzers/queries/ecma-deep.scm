; Facts found anywhere in a JavaScript, TypeScript or TSX tree (compiles for all three
; grammars). Run by analyzers/extract/ecma.py over the whole tree, once per file; module-level
; patterns live in ecma-top*.scm, members of object-literal roots in ecma-members.scm.
;
; Captures (captures starting with "_" only serve predicates):
;   call               any call expression with an argument list
;   call.function      its callee expression
;   call.arguments     its arguments node
;   scope              any function-like node (parameters, locals, enclosing-function lookup)
;   function           a named function node (declaration, arrow, function expression)
;   function.name      its binding identifier                  (function f / const f = () => ...)
;   function.member    left side of `obj.prop = (url) => ...`
;   local.kind         const / let keyword of a declaration (absent for var)
;   local.name         declared identifier (any nesting level)
;   local.value        its initializer
;   local.pattern      an object pattern declared with an initializer (`const { a, b: c, ...r } = v`)
;   return.value       the expression of a `return` statement, when it may be a URL, an object
;                      (a URL builder, a memoized options object, an SWR key function) or a
;                      call (a factory returning `axios.create(...)`)
;   assigned           identifier assigned after its declaration (x = ..., x += ...)
;   client             a client creation (its span)
;   client.name        the binding (identifier, or `this.x` member expression)
;   client.library     receiver of .create()/.extend() (axios, ky, ofetch, $fetch, an alias)
;   client.arguments   the arguments of .create()/.extend()
;   this.field         `this.x` assigned in a method (`this.baseUrl = environment.apiUrl`)
;   this.value         the value assigned

(call_expression
  function: (_) @call.function
  arguments: (arguments) @call.arguments) @call

[
  (function_declaration)
  (generator_function_declaration)
  (function_expression)
  (generator_function)
  (arrow_function)
  (method_definition)
] @scope

(function_declaration name: (_) @function.name) @function
(generator_function_declaration name: (_) @function.name) @function

(variable_declarator
  name: (identifier) @function.name
  value: [(arrow_function) (function_expression) (generator_function)] @function)

(assignment_expression
  left: (member_expression) @function.member
  right: [(arrow_function) (function_expression)] @function)

(lexical_declaration
  kind: _ @local.kind
  (variable_declarator name: (identifier) @local.name value: (_) @local.value))

(variable_declaration
  (variable_declarator name: (identifier) @local.name value: (_) @local.value))

(lexical_declaration
  kind: _ @local.kind
  (variable_declarator name: (object_pattern) @local.pattern value: (_) @local.value))

(variable_declaration
  (variable_declarator name: (object_pattern) @local.pattern value: (_) @local.value))

(return_statement
  [(string) (template_string) (binary_expression) (identifier) (member_expression)
   (ternary_expression) (object) (parenthesized_expression) (call_expression)] @return.value)

(assignment_expression left: (identifier) @assigned)
(augmented_assignment_expression left: (identifier) @assigned)

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

(assignment_expression
  left: (member_expression object: (this)) @this.field
  right: (_) @this.value)
