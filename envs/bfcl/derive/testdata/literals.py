"""Hand-written constants for the literal reader's tests."""
import os

ESCAPES = 'tab\there\nnew \'q\' \"dq\" back\\slash \x41\u00e9\U0001F600 \101\0 \z \a\b\f\v\r'
RAW = r'raw\n\t\'' R"upper\d"
CONCAT = 'implicit ' "concat" '''enation'''
TRIPLE = """line one
  line "two" with 'quotes' and \"""
"""
CONTINUED = 'one \
two'
UNICODE = 'café ünïcode — … 😀'
NESTED = {"a": [1, (2, 3), {"b": [None, True, False]}], "c": {}, "d": [], "e": ()}
NUMBERS = [-5, -5.0, +3, 1_000, 0x1F, 0o17, 0b101, 1e-06, 2.5E3, 50, 50.0, .5, 5., -0.0, 1e16, 123456789012]
FOLDED = [5 / 9, 2 * 3, 1 + 2.0, 10 - 3, -(4), 1 / 4]
TRAILING = [
    1,
    2,  # a comment
    3,
]
TUPLES = ((1,), (), (1, 2,))
INT_KEYS = {1: "one", -2: "minus two", "3": "string three", 1: "one again"}
ELLIPSIS = ["a", ...]
EMPTY = ''
