; Members of object literals, for the object-literal roots of a JavaScript, TypeScript or TSX
; file (module-level const objects, `export default { ... }`, `module.exports = { ... }`) and
; the objects nested in them (compiles for all three grammars). Run by
; analyzers/extract/ecma.py only when a file has such a root, limited to the root's byte range
; (QueryCursor.set_byte_range), so files without roots never pay for it.
;
; Captures:
;   member.object      an object literal
;   member.key         key of one of its pairs or methods
;   member.value       value of the pair (or the method_definition itself)

(object
  [
    (pair key: (_) @member.key value: (_) @member.value)
    (method_definition name: (_) @member.key) @member.value
  ]) @member.object
