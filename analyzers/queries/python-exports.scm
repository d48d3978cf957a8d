; What a Python module says about its own names: `__all__` and a module-level `__getattr__`.
; Read by analyzers/extract/python.py, which runs this query only on text naming `__all__` or
; `__getattr__` (patterns rooted at `module` keep a query state alive over the whole tree:
; every other file skips them), and dispatches on each pattern's `kind` setting.
;
; Captures (captures starting with "_" only serve predicates):
;   all               a binding of `__all__`: `__all__ = v` (all.value), `__all__ += v`
;                     (all.extend), `__all__.extend(...)` / `.append(...)` (all.method,
;                     all.args)
;   all.top           the same node, when it is a module-level statement (kind "all.top")
;   getattr           a module-level `def __getattr__` (the module's names are open)

((assignment left: (identifier) @_all right: (_) @all.value) @all
 (#eq? @_all "__all__")
 (#set! kind "all"))

((augmented_assignment left: (identifier) @_all operator: "+=" right: (_) @all.extend) @all
 (#eq? @_all "__all__")
 (#set! kind "all"))

((call
   function: (attribute object: (identifier) @_all attribute: (identifier) @all.method)
   arguments: (argument_list) @all.args) @all
 (#eq? @_all "__all__")
 (#set! kind "all"))

((module
   (expression_statement
     [(assignment left: (identifier) @_all)
      (augmented_assignment left: (identifier) @_all)
      (call function: (attribute object: (identifier) @_all))] @all.top))
 (#eq? @_all "__all__")
 (#set! kind "all.top"))

((module (function_definition name: (identifier) @_name) @getattr)
 (#eq? @_name "__getattr__")
 (#set! kind "getattr"))

