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
;   server.name        a variable bound to a backend app or router, at any level (module-level ones
;                      are the file's routers, the others a factory's): express(), express.Router(),
;                      Router(), fastify() / Fastify(), require('express')(), require('fastify')(...),
;                      require('express').Router(), new Router() / new KoaRouter() (koa-router),
;                      new Koa(), new Hono(), new Hono().basePath('/api')
;   server.factory     the callee of the factory call (`express.Router`)
;   server.class       the class of `new X(...)` (Router, KoaRouter, Koa, Hono, OpenAPIHono)
;   server.arguments   the arguments of the factory, of the constructor or of `basePath(...)`
;   server.base        `basePath` of `new Hono().basePath('/api')` (the arguments are its prefix)
;   mount              `X.use(...)`, `X.register(...)`, `X.route(...)` on an identifier: Express and
;                      Koa mounts, Fastify plugins, Hono sub-apps, and the head of Express's
;                      `X.route('/x').get(h).post(h2)` chains and Fastify's `X.route({ ... })`
;   mount.receiver     X
;   mount.method       use / register / route
;   mount.arguments    the call's arguments

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

; ---------------------------------------------------------------- backend apps and routers
(variable_declarator
  name: (identifier) @server.name
  value: (call_expression
    function: [(identifier) (member_expression) (call_expression)] @server.factory
    arguments: (arguments) @server.arguments)
  (#match? @server.factory "^(express|express\\.Router|Router|[Ff]astify|require\\(['\"](express|fastify)['\"]\\)|require\\(['\"]express['\"]\\)\\.Router)$"))

(variable_declarator
  name: (identifier) @server.name
  value: (new_expression
    constructor: (identifier) @server.class
    arguments: (arguments)? @server.arguments)
  (#any-of? @server.class "Router" "KoaRouter" "Koa" "Hono" "OpenAPIHono"))

(variable_declarator
  name: (identifier) @server.name
  value: (call_expression
    function: (member_expression
      object: (new_expression constructor: (identifier) @server.class)
      property: (property_identifier) @server.base)
    arguments: (arguments) @server.arguments)
  (#eq? @server.base "basePath")
  (#any-of? @server.class "Hono" "OpenAPIHono"))

(call_expression
  function: (member_expression
    object: (identifier) @mount.receiver
    property: (property_identifier) @mount.method)
  arguments: (arguments) @mount.arguments
  (#any-of? @mount.method "use" "register" "route")) @mount
