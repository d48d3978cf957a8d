; The names a Python file uses, for the context manifests' forbidden symbols
; (analyzers/context.py): every identifier (names, attributes, keyword arguments, the
; names of `import` statements), never the text of a string or a comment.
;
; Captures:
;   name   one identifier
(identifier) @name
