; NestJS declarations (JavaScript, TypeScript, TSX). Run by analyzers/extract/ecma_nest.py
; over the dispatched statements, only in a file that imports from `@nestjs/...`.
;
; Captures (captures starting with "_" only serve predicates):
;   nest.class           a class decorated `@Controller(...)` or `@Module(...)`
;   nest.class.name      its name
;   nest.decorator       Controller / Module
;   nest.arguments       the decorator's arguments
;   nest.route           a method decorator `@Get(...)`, `@Post(...)`, ... or `@Version(...)`
;                        (TypeScript: a child of the class body before the method;
;                        JavaScript: inside the method_definition)
;   nest.verb            Get / Post / Put / Patch / Delete / All / Head / Options / Search / Version
;   nest.route.arguments the decorator's arguments
;   nest.factory         `NestFactory.create(Root, ...)` (createMicroservice and
;                        createApplicationContext serve no HTTP routes: left out)
;   nest.root            its first argument
;   nest.prefix          `x.setGlobalPrefix(...)`
;   nest.prefix.receiver x
;   nest.prefix.arguments its arguments
;   nest.table           a variable bound to an array literal (a RouterModule `Routes` table when its
;                        elements say so; decided in Python)
;   nest.table.value     the array

(class_declaration
  decorator: (decorator
    (call_expression
      function: (identifier) @nest.decorator
      arguments: (arguments) @nest.arguments))
  name: (_) @nest.class.name
  (#any-of? @nest.decorator "Controller" "Module")) @nest.class

(export_statement
  decorator: (decorator
    (call_expression
      function: (identifier) @nest.decorator
      arguments: (arguments) @nest.arguments))
  declaration: (class_declaration name: (_) @nest.class.name) @nest.class
  (#any-of? @nest.decorator "Controller" "Module"))

(decorator
  (call_expression
    function: (identifier) @nest.verb
    arguments: (arguments) @nest.route.arguments)
  (#any-of? @nest.verb "Get" "Post" "Put" "Patch" "Delete" "All" "Head" "Options" "Search" "Version")) @nest.route

(call_expression
  function: [
    (member_expression object: (identifier) @_factory property: (property_identifier) @_create)
    (await_expression (member_expression object: (identifier) @_factory property: (property_identifier) @_create))
  ]
  arguments: (arguments . (_) @nest.root)
  (#eq? @_factory "NestFactory")
  (#eq? @_create "create")) @nest.factory

(call_expression
  function: (member_expression
    object: (identifier) @nest.prefix.receiver
    property: (property_identifier) @_method)
  arguments: (arguments) @nest.prefix.arguments
  (#eq? @_method "setGlobalPrefix")) @nest.prefix

(variable_declarator
  name: (identifier) @nest.table
  value: (array) @nest.table.value)
