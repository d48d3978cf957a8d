; Route facts of a Python file beyond decorators, mounts and calls (those are in
; python-facts.scm): `urlpatterns += router.urls`, and the classes and functions routes may
; name as their views (Django, Django REST framework, Flask MethodView). Read by
; analyzers/extract/python_routes.py, run once per file after python-facts.scm and
; dispatched on each pattern's `kind` setting; what a query cannot say (what a decorator's
; arguments are) is read from the captured nodes. The extractor runs it with a start depth
; of 0 (a second full traversal of the file would cost about a third of the first): on the
; module, for the module-level patterns (only when the file names `.urls`, `api_view` or
; `require_`), and on each module-level class with bases, for the class patterns.
;
; Captures (captures starting with "_" only serve predicates):
;   urls              a module-level `name += value` or `name = a + b`: where a DRF router's
;                     patterns (`router.urls`) are added to a list of patterns
;   urls.owner        the name
;   urls.value        the value (`router.urls`, `[...] + router.urls`)
;   view              the class (a view may be one)
;   view.name         its name
;   view.bases        its superclasses (an argument_list)
;   view.member       a method of the class (plain or decorated) or a class attribute
;   view.method       the method's name
;   view.attr         the attribute's name (only those that shape routes)
;   view.value        the attribute's value
;   view.function     the name of a decorated module-level function (a function view)
;   view.decorated    its decorated_definition (the decorators are its children)

; ---------------------------------------------------------------- DRF router patterns
; `urlpatterns += router.urls`, `urlpatterns = [...] + router.urls`, module-level statements
; (the extractor reads the `+` operands; Django's `path(...)` patterns are calls, read from
; python-facts.scm's call matches: see its `django` setting)
((module (expression_statement (augmented_assignment left: (identifier) @urls.owner right: (_) @urls.value) @urls))
 (#set! kind "urls"))

((module (expression_statement (assignment left: (identifier) @urls.owner right: (binary_operator) @urls.value) @urls))
 (#set! kind "urls"))

; ---------------------------------------------------------------- function views
; a module-level function with a method decorator (`@api_view([...])`, `@require_POST`)
((module (decorated_definition
           (decorator) @_decorator
           definition: (function_definition name: (identifier) @view.function)) @view.decorated)
 (#match? @_decorator "api_view|require_")
 (#set! kind "view.function"))

; ---------------------------------------------------------------- view classes
; Run on each module-level class with bases (the class is the root of these matches).
((class_definition name: (identifier) @view.name superclasses: (argument_list) @view.bases) @view
 (#set! kind "view"))

; the view methods it defines: HTTP methods, DRF's actions (decorated or not), and the
; methods decorated with `@action(...)` or `@<action>.mapping.<verb>`
((class_definition
   body: (block [(function_definition name: (identifier) @view.method)
                 (decorated_definition definition: (function_definition name: (identifier) @view.method))] @view.member))
 (#any-of? @view.method "get" "post" "put" "patch" "delete" "head" "options" "trace"
                        "list" "create" "retrieve" "update" "partial_update" "destroy")
 (#set! kind "view.method"))

((class_definition
   body: (block (decorated_definition
                  (decorator) @_decorator
                  definition: (function_definition name: (identifier) @view.method)) @view.member))
 (#match? @_decorator "^@[ \t]*([A-Za-z_][A-Za-z_0-9]*[.])*action[ \t]*[(]|^@[ \t]*[A-Za-z_][A-Za-z_0-9]*[.]mapping[.]")
 (#not-any-of? @view.method "get" "post" "put" "patch" "delete" "head" "options" "trace"
                            "list" "create" "retrieve" "update" "partial_update" "destroy")
 (#set! kind "view.method"))

; its class attributes that shape its routes
((class_definition
   body: (block (expression_statement
                  (assignment left: (identifier) @view.attr right: (_) @view.value)) @view.member))
 (#any-of? @view.attr "methods" "http_method_names" "lookup_field" "lookup_url_kwarg")
 (#set! kind "view.attr"))
