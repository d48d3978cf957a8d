; Per-file facts of a Python file: scopes, imports, bindings, call sites, route
; decorators and router mounts. Read by analyzers/extract/python.py, which runs this query
; once per file (one tree traversal) and dispatches each match on its pattern's `kind` setting
; (#set! kind ...), then on the captures below. The settings of the "call" pattern say
; which calls may be HTTP calls; the extractor confirms the "arg" candidates after
; resolving names.
;
; Captures (captures starting with "_" only serve predicates):
;   function          a function_definition (def / async def, decorated or not)
;   function.name     its name identifier
;   function.params   its parameters node (positional names are read from its children)
;   class             a class_definition
;   class.name        its name identifier
;   import.item       one element of `import a.b, c as d` (its span is the Import's span)
;   import.module     the dotted module name of that element
;   import.alias      the `as` name, when present
;   from.item         one element of `from m import x, y as z` / the `*` of `from m import *`
;   from.module       m (dotted_name or relative_import: `.`, `..x`)
;   from.name         the imported name (absent for `*`)
;   from.alias        the `as` name, when present
;   guard             a block whose imports are guarded: the body of a `try:` with a handler
;                     for ImportError / ModuleNotFoundError / Exception / BaseException (also
;                     in a tuple, with `as e`) or a bare `except:`; the block of `if
;                     TYPE_CHECKING:` / `if typing.TYPE_CHECKING:`
;   assign            an assignment to a plain name (annotated or not; `x = y = v` is two);
;                     in a class body also a data class's field or `model_config`
;   assign.name       the target identifier
;   assign.value      the right-hand side
;   member            an assignment `self.x = <call>` (client attributes)
;   member.target     the `self.x` attribute node
;   member.value      the call on the right
;   with.value        the call of `with <call> as name` / `async with ...`
;   with.name         the as-target identifier
;   rebind            any other binding of a plain name: augmented assignment, unpacking,
;                     for target, walrus, with/except-as target. A name bound more than
;                     once is never a constant nor an inlinable local.
;   call              a call expression (every call; see "calls" below for which are kept)
;   call.function     its callee; kind "verb" when its last segment is an HTTP verb,
;                     `request` or `stream` (always recorded)
;   call.args         its arguments node; an argument value (positional or keyword) may
;                     make the call an HTTP call (kind "arg"): a string-like expression
;                     containing `/` or `{`, or a name, attribute, subscript or `+`/`%`
;                     expression that may refer to a parameter, a local URL or a URL constant
;   route             the call of a route decorator (@app.get("/x"), @bp.route("/x", ...))
;   route.owner       its receiver (app, router, bp)
;   route.verb        the decorator method (get, post, ..., route, api_route)
;   route.args        its argument list
;   route.handler     the name of the decorated function (or class: a class-based view)
;   mount             a call `<name>.<method>(...)` that mounts a router or adds a URL rule:
;                     FastAPI include_router / mount, Flask register_blueprint /
;                     add_url_rule, DRF router.register (the method's setting says which
;                     arguments are what)
;   mount.parent      its receiver, a plain name (app, api_router, parent_bp)
;   mount.method      the method (include_router, mount, register_blueprint, add_url_rule)
;   mount.args        its argument list

; ---------------------------------------------------------------- scopes
((function_definition
   name: (identifier) @function.name
   parameters: (parameters) @function.params) @function
 (#set! kind "function"))

((class_definition
   name: (identifier) @class.name) @class
 (#set! kind "class"))

; ---------------------------------------------------------------- imports
((import_statement
   name: (dotted_name) @import.module @import.item)
 (#set! kind "import"))

((import_statement
   name: (aliased_import
           name: (dotted_name) @import.module
           alias: (identifier) @import.alias) @import.item)
 (#set! kind "import"))

((import_from_statement
   module_name: (_) @from.module
   name: (dotted_name) @from.name @from.item)
 (#set! kind "from"))

((import_from_statement
   module_name: (_) @from.module
   name: (aliased_import
           name: (dotted_name) @from.name
           alias: (identifier) @from.alias) @from.item)
 (#set! kind "from"))

((import_from_statement
   module_name: (_) @from.module
   (wildcard_import) @from.item)
 (#set! kind "from"))

; ---------------------------------------------------------------- guarded imports
((try_statement body: (block) @guard (except_clause !value)) (#set! kind "guard"))

((try_statement
   body: (block) @guard
   (except_clause value: [(identifier) @_error
                          (tuple (identifier) @_error)
                          (as_pattern (identifier) @_error)
                          (as_pattern (tuple (identifier) @_error))]))
 (#any-of? @_error "ImportError" "ModuleNotFoundError" "Exception" "BaseException")
 (#set! kind "guard"))

((if_statement
   condition: [(identifier) @_flag (attribute attribute: (identifier) @_flag)]
   consequence: (block) @guard)
 (#eq? @_flag "TYPE_CHECKING")
 (#set! kind "guard"))

; an import whose branch depends on the interpreter's version or platform (`if
; sys.version_info >= (3, 11): ... else: from typing_extensions import ...`): every branch
; is guarded, since only one of them runs (pyright judges only the one it takes)
((if_statement
   condition: (comparison_operator
                . [(attribute object: (identifier) @_sys attribute: (identifier) @_attr)
                   (subscript value: (attribute object: (identifier) @_sys attribute: (identifier) @_attr))])) @guard
 (#eq? @_sys "sys")
 (#any-of? @_attr "version_info" "platform")
 (#set! kind "guard"))

; ---------------------------------------------------------------- bindings
; a name declared with a type and no value (`__version__: str` in a stub, a module-level
; `registry: dict[str, Handler]`): it is defined, for the import checks; in a class body, an
; annotated attribute (a data class's field: extract/python_models.py, as for `assign` below)
((assignment left: (identifier) @declare.name type: (_) !right) (#set! kind "declare"))

((assignment
   left: (identifier) @assign.name
   right: (_) @assign.value) @assign
 (#set! kind "assign"))

((assignment
   left: (attribute
           object: (identifier) @_self
           attribute: (identifier)) @member.target
   right: (call) @member.value) @member
 (#eq? @_self "self")
 (#set! kind "member"))

((assignment
   left: (attribute
           object: (identifier) @_self
           attribute: (identifier)) @member.target
   right: [(identifier) (boolean_operator)] @member.value) @member
 (#eq? @_self "self")
 (#set! kind "member"))

((with_item
   value: (as_pattern
            (call) @with.value
            alias: (as_pattern_target (identifier) @with.name)))
 (#set! kind "with"))

((augmented_assignment left: (identifier) @rebind) (#set! kind "rebind"))
((assignment left: (pattern_list (identifier) @rebind)) (#set! kind "rebind"))
((assignment left: (tuple_pattern (identifier) @rebind)) (#set! kind "rebind"))
((assignment left: (list_pattern (identifier) @rebind)) (#set! kind "rebind"))
((for_statement left: (identifier) @rebind) (#set! kind "rebind"))
((for_statement left: (pattern_list (identifier) @rebind)) (#set! kind "rebind"))
((named_expression name: (identifier) @rebind) (#set! kind "rebind"))
((as_pattern_target (identifier) @rebind) (#set! kind "rebind"))

; ---------------------------------------------------------------- calls
; Every call is one match. Which calls may be HTTP calls is declared in this pattern's
; settings, which the extractor applies to the callee and to the direct children of the
; argument list (positional arguments and keyword-argument values):
;   verbs      callee's last segment is one of these: always recorded (kind "verb")
;   url-args   an argument of one of these kinds whose text contains `/` or `{` (kind "arg")
;   name-args  an argument of one of these kinds (kind "arg")
;   django     a callee of one of these names (an identifier) that is an element of a list
;              or tuple may be a Django URL pattern (`urlpatterns = [path("x/", view)]`):
;              python_routes.py checks the name is Django's, through the file's imports
; "arg" candidates are confirmed after resolving names (see `call.arg` above).
; (Patterns that look inside the argument list, like `(argument_list (string) @arg)`,
; keep a query state alive over every argument subtree and cost more than the rest of
; this file together; one match per call costs almost nothing.)
((call
   function: (_) @call.function
   arguments: (_) @call.args) @call
 (#set! kind "call")
 (#set! verbs "get post put patch delete head options request stream")
 (#set! url-args "string concatenated_string call parenthesized_expression")
 (#set! name-args "identifier attribute subscript binary_operator")
 (#set! django "path re_path url"))

; ---------------------------------------------------------------- route decorators
; one match per route decorator of a definition (stacked decorators are several routes of
; the same handler)
((decorated_definition
   (decorator
     (call
       function: (attribute
                   object: (_) @route.owner
                   attribute: (identifier) @route.verb)
       arguments: (argument_list) @route.args) @route)
   definition: [(function_definition name: (identifier) @route.handler)
                (class_definition name: (identifier) @route.handler)])
 (#any-of? @route.verb "get" "post" "put" "patch" "delete" "head" "options" "trace" "route" "api_route")
 (#set! kind "route"))

; ---------------------------------------------------------------- mounts and URL rules
; Anywhere (module level, an app factory's body, ...), on a receiver that is a plain name.
; One setting per method: the framework, then `role=where` for each argument the extractor
; reads, `where` being a positional index, a keyword, or both (`0|router`: the first
; positional argument or the keyword `router`). Roles: `child` the mounted router or app,
; `prefix` its prefix; a method with a `rule` role declares a route instead (`rule` its
; path, `view` the view function, `endpoint` its name, `methods` the list of methods); one
; with a `register` role registers a Django REST framework viewset (`register` its prefix,
; `viewset` the class), counted only on a DRF router of the file. Django Ninja's
; `add_router` counts on a Ninja API or router of the file, or in a file that imports ninja.
((call
   function: (attribute
               object: (identifier) @mount.parent
               attribute: (identifier) @mount.method)
   arguments: (argument_list) @mount.args) @mount
 (#any-of? @mount.method "include_router" "mount" "register_blueprint" "add_url_rule" "register" "add_router")
 (#set! kind "mount")
 (#set! include_router "fastapi child=0|router prefix=prefix")
 (#set! mount "fastapi prefix=0|path child=1|app")
 (#set! register_blueprint "flask child=0|blueprint prefix=url_prefix")
 (#set! add_url_rule "flask rule=0|rule endpoint=1|endpoint view=2|view_func methods=methods")
 (#set! register "drf register=0|prefix viewset=1|viewset")
 (#set! add_router "ninja prefix=0|prefix child=1|router"))
