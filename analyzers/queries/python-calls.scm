; Call sites and route decorators of a Python file. Read by analyzers/extract/python.py,
; which runs this query once per file and dispatches each match on the pattern's
; `kind` setting (#set! kind ...). The predicates keep only calls that may be HTTP
; calls; the extractor confirms the "arg" candidates after resolving names.
;
; Captures:
;   call          a call expression (one call may match several patterns)
;   call.verb     the callee's last segment when it is an HTTP verb, `request` or
;                 `stream` (kind "verb": always recorded)
;   call.arg      an argument value (positional or keyword) that may make the call an
;                 HTTP call (kind "arg"): a string-like expression containing `/` or `{`,
;                 a `+`/`%` expression, or a name, attribute or subscript that may refer
;                 to a parameter, a local URL or a URL constant
;   route         the call of a route decorator (@app.get("/x"), @bp.route("/x", ...))
;   route.owner   its receiver (app, router, bp)
;   route.verb    the decorator method (get, post, ..., route, api_route)
;   route.args    its argument list
; Captures starting with "_" only serve predicates.

; ---------------------------------------------------------------- HTTP-verb callees
((call
   function: (attribute attribute: (identifier) @call.verb)) @call
 (#any-of? @call.verb "get" "post" "put" "patch" "delete" "head" "options" "request" "stream")
 (#set! kind "verb"))

((call
   function: (identifier) @call.verb) @call
 (#any-of? @call.verb "get" "post" "put" "patch" "delete" "head" "options" "request" "stream")
 (#set! kind "verb"))

; ---------------------------------------------------------------- URL-like arguments
((call
   arguments: (argument_list
     [(string) (concatenated_string) (call) (parenthesized_expression)] @call.arg)) @call
 (#match? @call.arg "[/{]")
 (#set! kind "arg"))

((call
   arguments: (argument_list
     (keyword_argument
       value: [(string) (concatenated_string) (call) (parenthesized_expression)] @call.arg))) @call
 (#match? @call.arg "[/{]")
 (#set! kind "arg"))

((call
   arguments: (argument_list
     [(identifier) (attribute) (subscript) (binary_operator)] @call.arg)) @call
 (#set! kind "arg"))

((call
   arguments: (argument_list
     (keyword_argument
       value: [(identifier) (attribute) (subscript) (binary_operator)] @call.arg))) @call
 (#set! kind "arg"))

; ---------------------------------------------------------------- route decorators
((decorator
   (call
     function: (attribute
                 object: (_) @route.owner
                 attribute: (identifier) @route.verb)
     arguments: (argument_list) @route.args) @route)
 (#any-of? @route.verb "get" "post" "put" "patch" "delete" "head" "options" "trace" "route" "api_route")
 (#set! kind "route"))
