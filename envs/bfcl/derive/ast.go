package derive

// The syntax tree mirrors the parts of Python's ast module that the
// derivation reads. Field order follows Python's _fields, because the
// message table lists texts in ast.walk order.

// expr is an expression node.
type expr interface{ line() int }

// stmt is a statement node.
type stmt interface{ line() int }

type (
	// pyName is an identifier.
	pyName struct {
		ID   string
		Line int
	}
	// pyConst is a literal: string, int64, float64, bool, nil or
	// bfcl.Ellipsis.
	pyConst struct {
		Value any
		Line  int
	}
	// pyJoinedStr is an f-string; Parts are *pyConst strings and
	// *pyFormattedValue fields.
	pyJoinedStr struct {
		Parts []expr
		Line  int
	}
	// pyFormattedValue is one replacement field of an f-string.
	pyFormattedValue struct {
		Value expr
		Conv  byte // 0, 'r', 's' or 'a'
		Spec  *pyJoinedStr
		Line  int
	}
	// pyBinOp is a binary arithmetic or bitwise operation.
	pyBinOp struct {
		Op   string
		L, R expr
		Line int
	}
	// pyUnaryOp is "-", "+", "~" or "not".
	pyUnaryOp struct {
		Op   string
		X    expr
		Line int
	}
	// pyBoolOp is "and" or "or" over two or more values.
	pyBoolOp struct {
		Op     string
		Values []expr
		Line   int
	}
	// pyCompare is a (chained) comparison; Ops are "<", "in", "not in",
	// "is not", ...
	pyCompare struct {
		Left  expr
		Ops   []string
		Comps []expr
		Line  int
	}
	// pyCall is a call; a keyword with an empty Name is **kwargs.
	pyCall struct {
		Func expr
		Args []expr
		Kw   []pyKeyword
		Line int
	}
	// pyAttribute is X.Attr.
	pyAttribute struct {
		X    expr
		Attr string
		Line int
	}
	// pySubscript is X[Index].
	pySubscript struct {
		X, Index expr
		Line     int
	}
	// pySlice is lo:hi:step inside a subscript; absent parts are nil.
	pySlice struct {
		Lo, Hi, Step expr
		Line         int
	}
	// pyList, pyTuple and pySet are displays.
	pyList struct {
		Elts []expr
		Line int
	}
	pyTuple struct {
		Elts []expr
		Line int
	}
	pySet struct {
		Elts []expr
		Line int
	}
	// pyDict is a dict display; a nil key marks **mapping.
	pyDict struct {
		Keys, Values []expr
		Line         int
	}
	// pyComp is a comprehension or generator expression. Kind is "list",
	// "set", "dict" (Key and Value set) or "gen".
	pyComp struct {
		Kind            string
		Elt, Key, Value expr
		Gens            []pyCompFor
		Line            int
	}
	// pyIfExp is Body if Test else Else.
	pyIfExp struct {
		Test, Body, Else expr
		Line             int
	}
	// pyStarred is *X.
	pyStarred struct {
		X    expr
		Line int
	}
)

// pyKeyword is one keyword argument of a call.
type pyKeyword struct {
	Name  string
	Value expr
}

// pyCompFor is one "for Target in Iter if ..." clause.
type pyCompFor struct {
	Target, Iter expr
	Ifs          []expr
}

type (
	// pyFuncDef is a def statement.
	pyFuncDef struct {
		Name   string
		Params []pyParam
		Body   []stmt
		Line   int
	}
	// pyClassDef is a class statement.
	pyClassDef struct {
		Name  string
		Bases []expr
		Body  []stmt
		Line  int
	}
	// pyIf is an if statement; elif chains nest in Else.
	pyIf struct {
		Test       expr
		Body, Else []stmt
		Line       int
	}
	// pyFor is a for loop.
	pyFor struct {
		Target, Iter expr
		Body, Else   []stmt
		Line         int
	}
	// pyWhile is a while loop.
	pyWhile struct {
		Test       expr
		Body, Else []stmt
		Line       int
	}
	// pyTry is a try statement.
	pyTry struct {
		Body        []stmt
		Handlers    []*pyHandler
		Else, Final []stmt
		Line        int
	}
	// pyWith is a with statement.
	pyWith struct {
		Items []expr
		Body  []stmt
		Line  int
	}
	// pyReturn is a return statement; Value is nil for a bare return.
	pyReturn struct {
		Value expr
		Line  int
	}
	// pyAssign is targets = value; chained targets are all listed.
	pyAssign struct {
		Targets []expr
		Value   expr
		Line    int
	}
	// pyAnnAssign is target: annotation [= value].
	pyAnnAssign struct {
		Target, Ann, Value expr
		Line               int
	}
	// pyAugAssign is target op= value; Op is the operator without "=".
	pyAugAssign struct {
		Target expr
		Op     string
		Value  expr
		Line   int
	}
	// pyRaise is raise [Exc [from Cause]].
	pyRaise struct {
		Exc, Cause expr
		Line       int
	}
	// pyExprStmt is an expression used as a statement.
	pyExprStmt struct {
		X    expr
		Line int
	}
	// pyImport is import or from-import; each name is bound as As.
	pyImport struct {
		Module string // the from-module; "" for a plain import
		Names  []pyImportName
		Line   int
	}
	// pySimple is pass, break, continue, del, global, nonlocal or assert.
	pySimple struct {
		Kind string
		Line int
	}
)

// pyHandler is one except clause of a pyTry. Python's ast puts it between the
// pyTry and its body, so it counts as one level in ast.walk order.
type pyHandler struct {
	Type expr
	Name string
	Body []stmt
	Line int
}

// pyParam is one parameter of a def. Kind is "" for a plain parameter, "*"
// or "**".
type pyParam struct {
	Name    string
	Default expr
	Kind    string
}

// pyImportName is one imported name: Name as bound to As.
type pyImportName struct{ Name, As string }

func (x *pyName) line() int           { return x.Line }
func (x *pyConst) line() int          { return x.Line }
func (x *pyJoinedStr) line() int      { return x.Line }
func (x *pyFormattedValue) line() int { return x.Line }
func (x *pyBinOp) line() int          { return x.Line }
func (x *pyUnaryOp) line() int        { return x.Line }
func (x *pyBoolOp) line() int         { return x.Line }
func (x *pyCompare) line() int        { return x.Line }
func (x *pyCall) line() int           { return x.Line }
func (x *pyAttribute) line() int      { return x.Line }
func (x *pySubscript) line() int      { return x.Line }
func (x *pySlice) line() int          { return x.Line }
func (x *pyList) line() int           { return x.Line }
func (x *pyTuple) line() int          { return x.Line }
func (x *pySet) line() int            { return x.Line }
func (x *pyDict) line() int           { return x.Line }
func (x *pyComp) line() int           { return x.Line }
func (x *pyIfExp) line() int          { return x.Line }
func (x *pyStarred) line() int        { return x.Line }
func (x *pyFuncDef) line() int        { return x.Line }
func (x *pyClassDef) line() int       { return x.Line }
func (x *pyIf) line() int             { return x.Line }
func (x *pyFor) line() int            { return x.Line }
func (x *pyWhile) line() int          { return x.Line }
func (x *pyTry) line() int            { return x.Line }
func (x *pyWith) line() int           { return x.Line }
func (x *pyReturn) line() int         { return x.Line }
func (x *pyAssign) line() int         { return x.Line }
func (x *pyAnnAssign) line() int      { return x.Line }
func (x *pyAugAssign) line() int      { return x.Line }
func (x *pyRaise) line() int          { return x.Line }
func (x *pyExprStmt) line() int       { return x.Line }
func (x *pyImport) line() int         { return x.Line }
func (x *pySimple) line() int         { return x.Line }
func (x *pyHandler) line() int        { return x.Line }
