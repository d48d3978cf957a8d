; JavaScript additions to body-ecma.scm (same captures, same `use` settings): a method's
; decorators (in this grammar they are the method's own children).

((method_definition decorator: (decorator) @function.decorator) @function.decorated
 (#set! use "pure"))
