package pyval

// Ellipsis is Python's Ellipsis object (...): hashable, printed as
// "Ellipsis", not JSON serialisable.
type Ellipsis struct{}

// ReprValue is a value that Python prints as the given text and that json.dumps
// cannot encode (an mpmath mpf, a Decimal).
type ReprValue string

// NotJSONError reports a value that Python's json.dumps cannot encode, in
// Python's words; Type is the Python type name.
type NotJSONError struct{ Type string }

func (e NotJSONError) Error() string { return "Object of type " + e.Type + " is not JSON serializable" }
