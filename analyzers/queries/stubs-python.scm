; What the stub check (analyzers/stages/stubs.py) reads of a Python file: functions and
; their bodies, the body shapes that do nothing, comments, and logging calls with a
; literal first argument. The host joins a function's body with a shape by node, applies
; the exemptions (@abstractmethod, @overload, Protocol and ABC classes, .pyi files) and
; reads the texts (TODO markers, "not implemented" phrases).
;
; Captures (captures starting with "_" only serve predicates):
;   function          a def / async def (methods too), with
;   function.name     its name and
;   function.body     its block
;   shape.pass        a block that is only `pass` (after an optional docstring)
;   shape.ellipsis    a block that is only `...` (after an optional docstring)
;   shape.raise       a block that is only `raise NotImplementedError` or `raise NotImplementedError(...)`
;   shape.return      a block that is only `return None`, `return {}` or `return []`, with
;   shape.value       the returned value (the host keeps an empty dict or list only)
;   comment           a comment
;   log.message       the literal first argument of print(...) or of a logging-style call
;                     (`logging.info`, `logger.warning`, `log.error`, ...)

(function_definition
  name: (identifier) @function.name
  body: (block) @function.body) @function

((block . (expression_statement (string))? . (pass_statement) .) @shape.pass)

((block . (expression_statement (string))? . (expression_statement (ellipsis)) .) @shape.ellipsis)

((block . (expression_statement (string))? .
   (raise_statement [(identifier) @_error (call function: (identifier) @_error)]) .) @shape.raise
 (#eq? @_error "NotImplementedError"))

((block . (expression_statement (string))? .
   (return_statement [(none) (dictionary) (list)] @shape.value) .) @shape.return)

(comment) @comment

((call
   function: (identifier) @_fn
   arguments: (argument_list . (string) @log.message))
 (#eq? @_fn "print"))

((call
   function: (attribute attribute: (identifier) @_fn)
   arguments: (argument_list . (string) @log.message))
 (#any-of? @_fn "debug" "info" "warning" "warn" "error" "critical" "exception" "log"))
