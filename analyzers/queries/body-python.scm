; What the body rules (`pure`, `no-hardcoded-config`) read of a Python file: its functions,
; their decorators, docstrings and calls; the literals inside functions and the places
; where a literal is no setting; a config module's module-level values. Read by
; analyzers/body_rules.py, which compiles this file once per purpose: each pattern's `use`
; setting (#set! use ...) says which ("named" and "pure": the pure rule; "scope" and
; "literal": the hard-coded config rule; "config": reading a config module).
;
; Captures (captures starting with "_" only serve predicates):
;   function            a named function (def / async def, decorated or not, methods too)
;   function.name       its name
;   function.decorated  a decorated function, with
;   function.decorator  one of its decorators (one match per decorator)
;   function.documented a function with a docstring, with
;   function.doc        that docstring (the string of the body's first statement)
;   method              a function defined directly in a class body, with
;   method.class        the class's name
;   call                a call whose callee is a name or an attribute chain, with
;   call.callee         that callee (`print`, `requests.get`, `self._log`)
;   scope               any function, lambdas included (a literal inside one may be judged)
;   literal.number      an integer or float literal
;   literal.string      a string literal (f-strings and bytes are left out by the host)
;   literal.negative    `-` applied to a number literal (one literal: `-5`)
;   skip                a region whose literals are no settings: annotations, dictionary
;                       keys, subscripts, bare string statements (docstrings), implicitly
;                       concatenated strings, imports and `__import__`/`importlib.import_module`
;                       arguments
;   config.name         a module-level `NAME = value` (annotated or not), or an attribute
;                       of a module-level class (`class Settings: retries = 3`), with
;   config.value        its value, and
;   config.object       for a class attribute, the class's name

; ---------------------------------------------------------------- functions (pure)
((function_definition name: (identifier) @function.name) @function
 (#set! use "named"))

((decorated_definition
   (decorator) @function.decorator
   definition: (function_definition) @function.decorated)
 (#set! use "pure"))

((function_definition
   body: (block . (expression_statement . (string) @function.doc .))) @function.documented
 (#set! use "pure"))

((class_definition
   name: (identifier) @method.class
   body: (block [(function_definition) @method
                 (decorated_definition definition: (function_definition) @method)]))
 (#set! use "pure"))

((call function: [(identifier) (attribute)] @call.callee) @call
 (#set! use "pure"))

; ---------------------------------------------------------------- literals (no-hardcoded-config)
((function_definition) @scope (#set! use "scope"))
((lambda) @scope (#set! use "scope"))

((integer) @literal.number (#set! use "literal"))
((float) @literal.number (#set! use "literal"))
((string) @literal.string (#set! use "literal"))
((unary_operator operator: "-" argument: [(integer) (float)]) @literal.negative (#set! use "literal"))

((type) @skip (#set! use "literal"))
((pair key: (_) @skip) (#set! use "literal"))
((subscript subscript: (_) @skip) (#set! use "literal"))
((expression_statement . (string) @skip .) (#set! use "literal"))
((concatenated_string) @skip (#set! use "literal"))
((import_statement) @skip (#set! use "literal"))
((import_from_statement) @skip (#set! use "literal"))
((future_import_statement) @skip (#set! use "literal"))
((call function: (identifier) @_f arguments: (argument_list) @skip)
 (#eq? @_f "__import__")
 (#set! use "literal"))
((call function: (attribute object: (identifier) @_m attribute: (identifier) @_f) arguments: (argument_list) @skip)
 (#eq? @_m "importlib")
 (#eq? @_f "import_module")
 (#set! use "literal"))

; ---------------------------------------------------------------- a config module's values
((module (expression_statement (assignment left: (identifier) @config.name right: (_) @config.value)))
 (#set! use "config"))

((module
   (class_definition
     name: (identifier) @config.object
     body: (block (expression_statement (assignment left: (identifier) @config.name right: (_) @config.value)))))
 (#set! use "config"))

((module
   (decorated_definition
     definition: (class_definition
       name: (identifier) @config.object
       body: (block (expression_statement (assignment left: (identifier) @config.name right: (_) @config.value))))))
 (#set! use "config"))
